// Package logs is "easyai pipeline logs": the logs of one step's job,
// through the job logs command.
package logs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/pipelineargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/pipeline"
)

// NewCmdLogs returns "pipeline logs": "easyai logs" of the step's job, with
// its flags. The job logs command is found in the command tree at run
// time (a command imports no other), and parses the flags itself.
func NewCmdLogs(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "logs NAME STEP [flags of easyai logs]",
		Short: "Print or follow the logs of a pipeline step's job",
		Long: `Print or follow the logs of one step of a pipeline: "easyai logs" of the step's
job (PIPELINE-PIPELINE-STEP), taking every flag "easyai logs" takes (-f,
--tail, --since, --role, -c, ...; see easyai logs --help). A step whose job
Volcano has not created (still waiting, or never to run after a failed step)
exits 3 saying so.`,
		Example: `  easyai pipeline logs nightly train -f
  easyai pipeline logs nightly eval --tail 20`,
		DisableFlagParsing: true,
		ValidArgsFunction:  complete(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			if slices.Contains(args, "-h") || slices.Contains(args, "--help") {
				return cmd.Help()
			}
			logs, _, err := cmd.Root().Find([]string{"logs"})
			if err != nil || logs == cmd.Root() {
				return fmt.Errorf("no logs command in this binary")
			}
			if err := logs.ParseFlags(args); err != nil {
				return exit.UsageErrorf("%v (easyai logs --help lists the flags)", err)
			}
			pos := logs.Flags().Args()
			if len(pos) != 2 {
				return exit.UsageErrorf("pipeline logs takes the pipeline's name and a step, got %d arguments (%s)", len(pos), strings.Join(pos, " "))
			}
			job, err := stepJob(cmd, f, pos[0], pos[1])
			if err != nil {
				return err
			}
			logs.SetContext(cmd.Context())
			return logs.RunE(logs, []string{job})
		},
	}
}

// stepJob is the job of a step of the pipeline (vcjob/NAME); a step
// without one is a not-found error saying why.
func stepJob(cmd *cobra.Command, f *cmdutil.Factory, name, step string) (string, error) {
	n := pipelineargs.NewNamed(f)
	n.Name = name
	if err := n.Validate(); err != nil {
		return "", err
	}
	c, ns, err := pipelineargs.Client(f)
	if err != nil {
		return "", err
	}
	st, err := c.Get(cmd.Context(), ns, name)
	if err != nil {
		return "", err
	}
	var names []string
	for _, s := range st.Steps {
		if s.Name != step {
			names = append(names, s.Name)
			continue
		}
		if s.State == pipeline.Waiting || s.State == pipeline.Blocked {
			return "", exit.NotFoundErrorf("step %s of pipeline %s has no job: %s", s.Name, st.Name, s.Reason)
		}
		return s.Job, nil
	}
	return "", exit.NotFoundErrorf("pipeline %s has no step %s (steps: %s)", st.Name, step, strings.Join(names, ", "))
}

// complete completes the pipeline's name, then its steps.
func complete(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch len(args) {
		case 0:
			return pipelineargs.Complete(f)(cmd, args, toComplete)
		case 1:
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
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}
