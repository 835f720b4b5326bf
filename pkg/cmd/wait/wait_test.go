package wait_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/wait"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestFlagsMakeOptions(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *wait.Options
	cmd := wait.NewCmdWait(f, func(o *wait.Options) error { got = o; return nil })
	if err := run(cmd, "tf/mnist", "--for", "running", "--timeout", "10m", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "tf/mnist" || got.For != waiter.Running || got.Timeout != 10*time.Minute || got.Print.Format() != printers.FormatJSON {
		t.Errorf("options %+v", got)
	}

	cmd = wait.NewCmdWait(f, func(o *wait.Options) error { got = o; return nil })
	if err := run(cmd, "mnist"); err != nil {
		t.Fatal(err)
	}
	if got.For != waiter.Finished || got.Timeout != waiter.DefaultTimeout {
		t.Errorf("defaults: %+v", got)
	}
	for _, args := range [][]string{{"mnist", "--for", "done"}, {"mnist", "-o", "wide"}, {"x/mnist"}} {
		err := run(wait.NewCmdWait(f, func(*wait.Options) error { return nil }), args...)
		if exit.Code(err) != exit.Usage {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// The fixtures' tf/old has succeeded and team-b's bert has failed: the wait
// ends at once without a watch.
func TestWaitForAFinishedJob(t *testing.T) {
	f, stdout, stderr := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
	if err := run(wait.NewCmdWait(f, nil), "old"); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "" || stderr.String() != "tf/old Succeeded after 0s\n" {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}

	f, stdout, _ = cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
	f.Namespace = func() (string, bool, error) { return "team-b", true, nil }
	err := run(wait.NewCmdWait(f, nil), "bert", "-o", "json")
	if exit.Code(err) != exit.JobFailed || !strings.HasPrefix(err.Error(), "tf/bert Failed after 0s") {
		t.Fatalf("err %v, want job failed", err)
	}
	var doc struct {
		Kind   string `json:"kind"`
		Name   string `json:"name"`
		Status struct {
			State string `json:"state"`
		} `json:"status"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil || doc.Kind != "Job" || doc.Name != "bert" || doc.Status.State != "Failed" {
		t.Errorf("document %+v (%v): %s", doc, err, stdout)
	}
}

func TestWaitForAMissingJob(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
	if err := run(wait.NewCmdWait(f, nil), "nope"); exit.Code(err) != exit.NotFound {
		t.Fatalf("err %v, want not found", err)
	}
}
