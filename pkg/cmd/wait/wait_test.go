package wait_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/wait"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/config"
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

// hookURL is a webhook recording the notifications it gets.
func hookURL(t *testing.T, got *[]map[string]any) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n map[string]any
		if err := json.NewDecoder(r.Body).Decode(&n); err != nil {
			t.Errorf("not JSON: %v", err)
		}
		*got = append(*got, n)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/hooks/s3cr3t-token"
}

func TestNotifyFlags(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *wait.Options
	cmd := wait.NewCmdWait(f, func(o *wait.Options) error { got = o; return nil })
	if err := run(cmd, "mnist", "--notify", "https://ci.example.com/x", "--notify", "slack:https://hooks.slack.com/services/T/B/s3cr3t",
		"--notify-on", "running,failed", "--notify-on", "finished"); err != nil {
		t.Fatal(err)
	}
	if len(got.Notify.URLs) != 2 || strings.Join(got.Notify.On, " ") != "running failed finished" {
		t.Errorf("options %+v", got.Notify)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--notify", "ftp://files.example.com/s3cr3t"}, `--notify (webhook 1): scheme "ftp" is neither http nor https`},
		{[]string{"--notify", "https://ok.example.com/x", "--notify", "hooks.slack.com/services/s3cr3t"}, "--notify (webhook 2): not a URL (no scheme)"},
		{[]string{"--notify", "slack:", "--notify-on", "failed"}, "--notify (webhook 1): empty"},
		{[]string{"--notify", "https://ok.example.com/x", "--notify-on", "always"}, `--notify-on "always": want finished, failed, running, suspended`},
		{[]string{"--notify", "https://ok.example.com/x", "--notify-on", "suspended"}, "--notify-on suspended: this wait (for finished) does not end at suspended"},
		{[]string{"--notify", "none", "--notify", "https://ok.example.com/x"}, "--notify none sends no notification: not with a webhook"},
	} {
		err := run(wait.NewCmdWait(f, func(*wait.Options) error { return nil }), append([]string{"mnist"}, tt.args...)...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%q: %v, want a usage error saying %q", tt.args, err, tt.want)
		}
	}
	if err := run(wait.NewCmdWait(f, func(*wait.Options) error { return nil }), "mnist", "--for", "suspended", "--notify", "https://ok.example.com/x", "--notify-on", "suspended,failed"); err != nil {
		t.Errorf("--for suspended --notify-on suspended: %v", err)
	}
	// --notify-on with no webhook, neither given nor configured.
	if err := run(wait.NewCmdWait(f, nil), "old", "--notify-on", "failed"); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--notify-on: no webhook to notify") {
		t.Errorf("--notify-on alone: %v", err)
	}
}

// TestWaitNotifies: the final state goes to the webhook; the configuration's webhooks serve when --notify is not
// given, and --notify none turns them off.
func TestWaitNotifies(t *testing.T) {
	var got []map[string]any
	url := hookURL(t, &got)
	f, stdout, stderr := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
	if err := run(wait.NewCmdWait(f, nil), "old", "--notify", url); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "" || stderr.String() != "tf/old Succeeded after 0s\n" || len(got) != 1 {
		t.Fatalf("stdout %q stderr %q, %d notifications", stdout, stderr, len(got))
	}
	job, _ := got[0]["job"].(map[string]any)
	if got[0]["kind"] != "Notification" || got[0]["event"] != "succeeded" || got[0]["message"] != "tf/old in namespace team-a succeeded after 60m" ||
		job["name"] != "old" || job["state"] != "Succeeded" || job["user"] != "bob" {
		t.Errorf("notification %v", got[0])
	}

	f, _, _ = cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
	f.Config = func() (*config.Config, error) {
		return &config.Config{GPUResource: config.DefaultGPUResource, Notify: config.Webhooks(url)}, nil
	}
	f.Namespace = func() (string, bool, error) { return "team-b", true, nil }
	if err := run(wait.NewCmdWait(f, nil), "bert", "--notify-on", "failed"); exit.Code(err) != exit.JobFailed {
		t.Fatalf("err %v, want job failed", err)
	}
	if len(got) != 2 || got[1]["event"] != "failed" {
		t.Errorf("from the configuration: %v", got)
	}
	if err := run(wait.NewCmdWait(f, nil), "bert", "--notify", "none"); exit.Code(err) != exit.JobFailed || len(got) != 2 {
		t.Errorf("--notify none: %v, %d notifications", err, len(got))
	}
}
