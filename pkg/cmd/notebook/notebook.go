// Package notebook is "easyai notebook create|list|open|stop|start|delete":
// Jupyter Lab in one pod of the cluster, with the storage's workspaces
// (docs/notebooks.md). The notebook itself is made by pkg/notebook.
package notebook

import (
	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/notebook/create"
	deletecmd "github.com/easyai-dev/easyai/pkg/cmd/notebook/delete"
	"github.com/easyai-dev/easyai/pkg/cmd/notebook/list"
	"github.com/easyai-dev/easyai/pkg/cmd/notebook/open"
	"github.com/easyai-dev/easyai/pkg/cmd/notebook/start"
	"github.com/easyai-dev/easyai/pkg/cmd/notebook/stop"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// NewCmdNotebook returns "easyai notebook" and its subcommands.
func NewCmdNotebook(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "notebook",
		Aliases: []string{"nb"},
		Short:   "Jupyter notebooks in the cluster, with the team's storage",
		Long: `A notebook is Jupyter Lab in one pod of the cluster: your workspace
(notebook/USER on the team's storage) and the team's (notebook/public) under
/notebooks, GPUs if you ask for them, cpu and memory requested below their
limits (a notebook is idle most of the time), shut down by Jupyter when idle
and by Kubernetes at --max-duration. Stopping it frees its pod and GPUs and
keeps the workspace; starting it brings it back.

A notebook is a PyTorchJob of one replica labelled easyai.io/notebook=true:
get, logs, exec and delete work on it as on any job (docs/notebooks.md).`,
		Example: `  easyai notebook create explore --gpus 1
  easyai notebook open explore
  easyai notebook stop explore
  easyai notebook start explore
  easyai notebook list
  easyai notebook delete explore`,
	}
	cmd.AddCommand(create.NewCmdCreate(f, nil), list.NewCmdList(f, nil), open.NewCmdOpen(f, nil), stop.NewCmdStop(f, nil), start.NewCmdStart(f, nil), deletecmd.NewCmdDelete(f, nil))
	return cmd
}
