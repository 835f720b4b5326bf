package cmdutil_test

import (
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

// flag is the help and default of a flag of cmd, and whether it is completed.
func flag(t *testing.T, cmd *cobra.Command, name string) (usage, def string, completed bool) {
	t.Helper()
	fl := cmd.Flags().Lookup(name)
	if fl == nil {
		t.Fatalf("no --%s", name)
	}
	_, completed = cmd.GetFlagCompletionFunc(name)
	return fl.Usage, fl.DefValue, completed
}

// The help of --task is the command's part, an example and the default;
// both forms complete the job's replicas.
func TestAddTaskFlag(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	cmd := &cobra.Command{Use: "exec"}
	var task string
	cmdutil.AddTaskFlag(cmd, f, &task, "the replica to run in", cmdutil.DefaultReplica)
	usage, def, completed := flag(t, cmd, "task")
	if want := "the replica to run in, e.g. worker-1 (default: chief, master, launcher or worker-0)"; usage != want || def != "" || !completed {
		t.Errorf("--task: %q (default %q, completed %v), want %q", usage, def, completed, want)
	}
	if err := cmd.Flags().Parse([]string{"--task", "worker-1"}); err != nil || task != "worker-1" {
		t.Errorf("--task worker-1: %q, %v", task, err)
	}

	cmd = &cobra.Command{Use: "logs"}
	var tasks []string
	cmdutil.AddTasksFlag(cmd, f, &tasks, "only this replica; repeatable")
	if usage, _, completed := flag(t, cmd, "task"); usage != "only this replica; repeatable" || !completed {
		t.Errorf("--task: %q (completed %v)", usage, completed)
	}
	if err := cmd.Flags().Parse([]string{"--task", "ps-0", "--task", "worker-1"}); err != nil || len(tasks) != 2 || tasks[1] != "worker-1" {
		t.Errorf("--task twice: %q, %v", tasks, err)
	}
}

// --wait says until when, --timeout bounds it; wait's own --timeout says
// that 0 waits forever.
func TestAddWaitAndTimeoutFlags(t *testing.T) {
	cmd := &cobra.Command{Use: "suspend"}
	var wait bool
	var limit time.Duration
	cmdutil.AddWaitFlags(cmd, &wait, "wait until the job is suspended", &limit, 10*time.Minute)
	if usage, def, _ := flag(t, cmd, "wait"); usage != "wait until the job is suspended" || def != "false" {
		t.Errorf("--wait: %q (default %q)", usage, def)
	}
	if usage, def, _ := flag(t, cmd, "timeout"); usage != "with --wait: give up after this long (exit 5)" || def != "10m0s" || limit != 10*time.Minute {
		t.Errorf("--timeout: %q (default %q, %s)", usage, def, limit)
	}
	if err := cmd.Flags().Parse([]string{"--wait", "--timeout", "90s"}); err != nil || !wait || limit != 90*time.Second {
		t.Errorf("--wait --timeout 90s: %v %s %v", wait, limit, err)
	}

	cmd = &cobra.Command{Use: "wait"}
	cmdutil.AddTimeoutFlag(cmd, &limit, time.Hour)
	if usage, def, _ := flag(t, cmd, "timeout"); usage != "give up after this long (exit 5); 0 waits forever" || def != "1h0m0s" {
		t.Errorf("--timeout: %q (default %q)", usage, def)
	}
}
