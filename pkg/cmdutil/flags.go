package cmdutil

import (
	"time"

	"github.com/spf13/cobra"
)

// DefaultReplica is what --task's help says a command that acts in one
// replica takes without it (remote.DefaultReplica's order).
const DefaultReplica = "chief, master, launcher or worker-0"

// giveUp is what --timeout does, said in each command's help.
const giveUp = "give up after this long (exit 5)"

// AddTaskFlag adds --task, the one replica (ROLE-INDEX) a command acts in,
// completed with the replicas of the job its first argument names. Its
// help is what, then an example, then byDefault, the replica taken
// without it: "the replica to run in, e.g. worker-1 (default: chief,
// master, launcher or worker-0)".
func AddTaskFlag(cmd *cobra.Command, f *Factory, task *string, what, byDefault string) {
	cmd.Flags().StringVar(task, "task", "", what+", e.g. worker-1 (default: "+byDefault+")")
	_ = cmd.RegisterFlagCompletionFunc("task", CompleteTasks(f))
}

// AddTasksFlag adds --task to a command that takes several replicas, one
// a --task (logs), completed as AddTaskFlag's; usage is its whole help.
func AddTasksFlag(cmd *cobra.Command, f *Factory, tasks *[]string, usage string) {
	cmd.Flags().StringArrayVar(tasks, "task", nil, usage)
	_ = cmd.RegisterFlagCompletionFunc("task", CompleteTasks(f))
}

// AddWaitFlags adds --wait to a command that may wait for what it did,
// usage saying until when (and its exit codes), and --timeout, how long
// it waits before it gives up with exit 5 (timeout unless given).
func AddWaitFlags(cmd *cobra.Command, wait *bool, usage string, limit *time.Duration, timeout time.Duration) {
	cmd.Flags().BoolVar(wait, "wait", false, usage)
	cmd.Flags().DurationVar(limit, "timeout", timeout, "with --wait: "+giveUp)
}

// AddTimeoutFlag adds --timeout to a command that always waits (wait):
// how long before it gives up with exit 5 (timeout unless given); 0 waits
// forever.
func AddTimeoutFlag(cmd *cobra.Command, limit *time.Duration, timeout time.Duration) {
	cmd.Flags().DurationVar(limit, "timeout", timeout, giveUp+"; 0 waits forever")
}
