// Package logs is "easyai pipeline logs": the logs of one step's job,
// through the job logs command.
package logs

import (
	"fmt"

	"github.com/spf13/cobra"

	jobslogs "github.com/easyai-dev/easyai/pkg/cmd/logs"
	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/pipelineargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/pipeline"
)

// NewCmdLogs returns "pipeline logs": "easyai logs" of the step's job,
// with the same flags.
func NewCmdLogs(f *cmdutil.Factory) *cobra.Command {
	cmd := jobslogs.NewCmdLogs(f, nil)
	jobLogs := cmd.RunE
	cmd.Use = "logs NAME STEP"
	cmd.Short = "Print or follow the logs of a pipeline step's job"
	cmd.Long = `Print or follow the logs of one step of a pipeline: "easyai logs" of the step's
job (PIPELINE-PIPELINE-STEP), with the same flags. A step whose job Volcano
has not created (still waiting, or never to run after a failed step) exits 3
saying so.`
	cmd.Example = `  easyai pipeline logs nightly train -f
  easyai pipeline logs nightly eval --tail 20`
	cmd.Args = cmdutil.ExactArgs(2, "the pipeline's name and a step")
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return pipelineargs.Complete(f)(cmd, args, toComplete)
		}
		if len(args) > 1 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, ns, err := pipelineargs.Client(f)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		st, err := c.Get(cmd.Context(), ns, args[0])
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, s := range st.Steps {
			out = append(out, s.Name)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		n := pipelineargs.Named{Factory: f, Name: args[0]}
		if err := n.Validate(); err != nil {
			return err
		}
		c, ns, err := pipelineargs.Client(f)
		if err != nil {
			return err
		}
		st, err := c.Get(cmd.Context(), ns, args[0])
		if err != nil {
			return err
		}
		for _, s := range st.Steps {
			if s.Name != args[1] {
				continue
			}
			if s.State == pipeline.Waiting || s.State == pipeline.Blocked {
				return exit.NotFoundErrorf("step %s of pipeline %s has no job: %s", s.Name, st.Name, s.Reason)
			}
			return jobLogs(cmd, []string{s.Job})
		}
		var names []string
		for _, s := range st.Steps {
			names = append(names, s.Name)
		}
		return exit.NotFoundErrorf("pipeline %s has no step %s (steps: %v)", st.Name, args[1], fmt.Sprint(names))
	}
	return cmd
}
