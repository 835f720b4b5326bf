// Package serve is "easyai serve create|list|get|delete": a model server
// on a Deployment and a Service of the namespace (docs/serving.md). The
// serving itself is made and read by pkg/serving.
package serve

import (
	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/create"
	deletecmd "github.com/easyai-dev/easyai/pkg/cmd/serve/delete"
	"github.com/easyai-dev/easyai/pkg/cmd/serve/get"
	"github.com/easyai-dev/easyai/pkg/cmd/serve/invoke"
	"github.com/easyai-dev/easyai/pkg/cmd/serve/list"
	"github.com/easyai-dev/easyai/pkg/cmd/serve/logs"
	"github.com/easyai-dev/easyai/pkg/cmd/serve/open"
	"github.com/easyai-dev/easyai/pkg/cmd/serve/promote"
	"github.com/easyai-dev/easyai/pkg/cmd/serve/rollback"
	"github.com/easyai-dev/easyai/pkg/cmd/serve/scale"
	"github.com/easyai-dev/easyai/pkg/cmd/serve/update"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// NewCmdServe returns "easyai serve" and its subcommands.
func NewCmdServe(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "serve",
		Aliases: []string{"serving"},
		Short:   "Serve a trained model: a model server behind a Service",
		Long: `A serving is a model server in the namespace: a Deployment whose pods run the
server (vLLM, TGI, Triton, TorchServe, TF Serving, or your own command) and a
Service in front of them. --model-from JOB mounts the model_dir of a job
submitted with --storage, read-only, where the server reads it.

Everything easyai knows of a serving is in the labels and annotations of its
Deployments (easyai.io/serving=NAME, one per version): the other verbs read
them back (docs/serving.md).`,
		Example: `  easyai serve create bert --framework vllm --image vllm/vllm-openai:v0.6.3 --model-from mnist --gpus 1 --wait
  easyai serve list
  easyai serve get bert
  easyai serve invoke bert --path /v1/completions -d '{"model": "/model", "prompt": "Hello"}'
  easyai serve update bert --image vllm/vllm-openai:v0.6.4 --canary 50
  easyai serve promote bert
  easyai serve delete bert --yes`,
	}
	cmd.AddCommand(create.NewCmdCreate(f, nil), list.NewCmdList(f, nil), get.NewCmdGet(f, nil), update.NewCmdUpdate(f, nil), invoke.NewCmdInvoke(f, nil), logs.NewCmdLogs(f, nil), open.NewCmdOpen(f, nil),
		promote.NewCmdPromote(f, nil), rollback.NewCmdRollback(f, nil), scale.NewCmdScale(f, nil), deletecmd.NewCmdDelete(f, nil))
	return cmd
}
