// Package queue is "easyai queue list|get": Volcano's queues, what they
// may hold and hold, and the jobs in them; each verb is a package below.
package queue

import (
	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/queue/get"
	"github.com/easyai-dev/easyai/pkg/cmd/queue/list"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// NewCmdQueue returns "easyai queue" and its subcommands.
func NewCmdQueue(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "Show Volcano queues: what each may hold, holds, and its jobs",
		Long: `Show the Volcano queues jobs are submitted to with --queue (gang jobs and
Volcano jobs wait in them): their weight, the most each may hold
(capability), what it deserves and is guaranteed, what its running jobs hold
(allocated, as Volcano's scheduler counts it), and how many jobs run and
wait in it.

Queues are cluster-wide objects: reading them needs the right to get and
list queues.scheduling.volcano.sh, which a cluster admin may give a
team (examples/rbac/easyai-scheduling-reader.yaml).`,
		Example: `  easyai queue list
  easyai queue get research
  easyai queue get research -A -o json | jq '.podGroups[] | select(.phase != "Running")'`,
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(list.NewCmdList(f, nil), get.NewCmdGet(f, nil))
	return cmd
}
