// Package pipeline is "easyai pipeline run|list|get|wait|logs|delete": a
// graph of training jobs run by Volcano's JobFlow (docs/pipelines.md). The
// pipeline itself is made and read by pkg/pipeline.
package pipeline

import (
	"github.com/spf13/cobra"

	deletecmd "github.com/easyai-dev/easyai/pkg/cmd/pipeline/delete"
	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/get"
	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/list"
	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/logs"
	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/retry"
	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/run"
	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/wait"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// NewCmdPipeline returns "easyai pipeline" and its subcommands.
func NewCmdPipeline(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "pipeline",
		Aliases: []string{"pipelines"},
		Short:   "Run a graph of training jobs: steps after steps, a step's model feeding the next",
		Long: `A pipeline is a graph of training jobs (steps), each run once the steps it runs
after have completed, a step's model_dir optionally the next one's
pre_model_dir (serial training). Volcano's JobFlow runs it: easyai makes a
JobTemplate per step and a JobFlow of the graph, and nothing of easyai keeps
running (docs/pipelines.md).`,
		Example: `  easyai pipeline run -f examples/pipeline/pipeline.yaml --wait
  easyai pipeline list
  easyai pipeline get mnist-pipeline
  easyai pipeline logs mnist-pipeline train -f
  easyai pipeline retry mnist-pipeline --from train --wait
  easyai pipeline delete mnist-pipeline --yes`,
	}
	cmd.AddCommand(run.NewCmdRun(f, nil), list.NewCmdList(f, nil), get.NewCmdGet(f, nil), wait.NewCmdWait(f, nil), logs.NewCmdLogs(f), retry.NewCmdRetry(f, nil), deletecmd.NewCmdDelete(f, nil))
	return cmd
}
