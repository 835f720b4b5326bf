package logs

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/logs"
)

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdLogs(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestNewCmdLogs(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
	var got *Options
	err := execute(f, func(o *Options) error { got = o; return nil },
		"tf/mnist", "-f", "--task", "Worker-0", "--task", "ps-0", "--role", "Worker", "--tail", "10", "--since", "10m",
		"--timestamps", "--max-log-requests", "8", "-c", "tensorflow")
	if err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "tf/mnist" || !got.Request.Follow || strings.Join(got.Request.Tasks, ",") != "worker-0,ps-0" || got.Request.Role != "worker" ||
		got.Request.Tail != 10 || got.Request.Since != 10*time.Minute || !got.Request.Timestamps || got.Request.MaxLogRequests != 8 || got.Request.Container != "tensorflow" || got.Request.Previous {
		t.Errorf("options %+v", got)
	}

	got = nil
	if err := execute(f, func(o *Options) error { got = o; return nil }, "mnist"); err != nil {
		t.Fatal(err)
	}
	if got.Request.Follow || got.Request.Tail != -1 || got.Request.MaxLogRequests != logs.DefaultMaxLogRequests || got.Request.Tasks != nil {
		t.Errorf("defaults %+v", got)
	}
}

func TestLogsUsageErrors(t *testing.T) {
	tests := map[string]string{
		"mnist -f --previous":        "--previous prints a finished run's log: it cannot be followed (-f)",
		"mnist --max-log-requests 0": "--max-log-requests 0: must be at least 1",
		"mnist --tail -5":            "--tail -5: must be -1 (all) or more",
		"nosuchkind/mnist":           `"nosuchkind/mnist": unknown kind "nosuchkind" (known: colossalai, jax, mpi, paddle, pytorch, tf, trainjob, volcano, xgboost)`,
	}
	for args, want := range tests {
		f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
		err := execute(f, func(*Options) error { t.Errorf("%s: ran", args); return nil }, strings.Fields(args)...)
		if exit.Code(err) != exit.Usage || err.Error() != want {
			t.Errorf("%s: %v (exit %d), want %q", args, err, exit.Code(err), want)
		}
	}
}

func TestLogsOfAJobWithFakes(t *testing.T) {
	var pods []runtime.Object
	for _, p := range []*corev1.Pod{
		jobclienttest.Pod("team-a", "mnist", "worker", 1, corev1.PodRunning, jobclienttest.T0),
		jobclienttest.Pod("team-a", "mnist", "ps", 0, corev1.PodRunning, jobclienttest.T0),
		jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, jobclienttest.T0),
	} {
		p.Spec.Containers = []corev1.Container{{Name: "tensorflow"}}
		pods = append(pods, p)
	}
	for _, tty := range []bool{false, true} {
		f, stdout, stderr := cmdutiltest.Factory(t, tty, jobclienttest.Dynamic(jobclienttest.Fixtures()...), kubefake.NewClientset(pods...))
		if err := execute(f, nil, "mnist"); err != nil {
			t.Fatal(err)
		}
		// The fake API server answers every log request with "fake logs".
		want := "[ps-0] fake logs\n[worker-0] fake logs\n[worker-1] fake logs\n"
		got := stdout.String()
		if tty {
			if !strings.HasPrefix(got, "\x1b[") {
				t.Errorf("no colour on a terminal: %q", got)
			}
			got = plain(got)
		}
		if got != want || stderr.String() != "" {
			t.Errorf("tty %v: stdout %q stderr %q", tty, stdout.String(), stderr.String())
		}
	}

	f, stdout, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), kubefake.NewClientset(pods...))
	err := execute(f, nil, "mnist", "--task", "worker-7")
	if exit.Code(err) != exit.NotFound || err.Error() != "the job has no task worker-7 (its tasks: ps-0, worker-0, worker-1)" || stdout.String() != "" {
		t.Errorf("--task worker-7: %v (exit %d)", err, exit.Code(err))
	}
}

// plain strips the ANSI colours of terminal output.
func plain(s string) string { return regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(s, "") }
