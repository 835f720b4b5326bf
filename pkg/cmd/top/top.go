// Package top is "easyai top node" (where GPUs are free) and "easyai top job"
// (who holds them, and the GPU-hours used): each verb is a package below.
package top

import (
	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/top/job"
	"github.com/easyai-dev/easyai/pkg/cmd/top/node"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// NewCmdTop returns "top" and its subcommands.
func NewCmdTop(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "top",
		Short: "Show capacity, what is free and who holds the GPUs",
		Long: `Show the capacity of the cluster and what is free ("easyai top node"), and the
GPUs each job holds and the GPU-hours it used ("easyai top job").`,
		Example: `  easyai top node
  easyai top job -A --since 7d
  easyai top node --cluster prod`,
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(node.NewCmdNode(f, nil))
	cmd.AddCommand(job.NewCmdJob(f, nil))
	return cmd
}
