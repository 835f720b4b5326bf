package exec_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	utilexec "k8s.io/utils/exec"

	execcmd "github.com/easyai-dev/easyai/pkg/cmd/exec"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/remote"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestFlagsMakeOptions(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *execcmd.Options
	cmd := execcmd.NewCmdExec(f, func(o *execcmd.Options) error { got = o; return nil })
	if err := run(cmd, "tf/mnist", "--task", "worker-1", "-c", "train", "-i", "--", "ls", "-l", "/data"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "tf/mnist" || got.Task != "worker-1" || got.Container != "train" || !got.Stdin ||
		strings.Join(got.Command, " ") != "ls -l /data" {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{
		{"mnist"}, {"mnist", "ls"}, {"mnist", "--all", "--task", "worker-0", "--", "ls"}, {"mnist", "--all", "-i", "--", "ls"}, {"mnist", "--all", "--max-parallel", "0", "--", "ls"},
	} {
		err := run(execcmd.NewCmdExec(f, func(*execcmd.Options) error { return nil }), args...)
		if exit.Code(err) != exit.Usage {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// recorder is an executor that records where commands ran and answers as told.
type recorder struct {
	mu    sync.Mutex
	pods  []string
	stdin bool
	fail  map[string]error
}

func (r *recorder) Exec(_ context.Context, namespace, pod, container string, command []string, s remote.Streams) error {
	r.mu.Lock()
	r.pods = append(r.pods, namespace+"/"+pod)
	r.stdin = s.Stdin != nil
	r.mu.Unlock()
	fmt.Fprintf(s.Stdout, "%s\n", strings.Join(command, " "))
	return r.fail[pod]
}

// factory serves the fixtures with the pods of team-a's tf/mnist (ps-0,
// worker-0 running, worker-1 pending).
func factory(t *testing.T, rec *recorder) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	kube := kubefake.NewClientset(
		jobclienttest.Pod("team-a", "mnist", "ps", 0, corev1.PodRunning, jobclienttest.T0),
		jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, jobclienttest.T0),
		jobclienttest.Pod("team-a", "mnist", "worker", 1, corev1.PodPending, jobclienttest.T0),
	)
	f, stdout, stderr := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), kube)
	f.RESTConfig = func() (*rest.Config, error) { return &rest.Config{}, nil }
	return f, stdout, stderr
}

func newCmd(f *cmdutil.Factory, rec *recorder) *cobra.Command {
	return execcmd.NewCmdExec(f, func(o *execcmd.Options) error {
		if err := o.Complete(); err != nil {
			return err
		}
		o.Executor = rec
		return o.Run(context.Background())
	})
}

func TestExecRunsInTheDefaultReplica(t *testing.T) {
	rec := &recorder{}
	f, stdout, stderr := factory(t, rec)
	cmd := newCmd(f, rec)
	if err := run(cmd, "mnist", "--", "nvidia-smi"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rec.pods, ",") != "team-a/mnist-worker-0" || rec.stdin {
		t.Errorf("ran in %v (stdin %v)", rec.pods, rec.stdin)
	}
	if stdout.String() != "nvidia-smi\n" || stderr.String() != "Running in worker-0 of tf/mnist (replicas: ps-0, worker-0, worker-1; choose with --task)\n" {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
}

func TestExecExitsWithTheRemoteCode(t *testing.T) {
	rec := &recorder{fail: map[string]error{"mnist-ps-0": utilexec.CodeExitError{Err: errors.New("exit"), Code: 42}}}
	f, _, stderr := factory(t, rec)
	err := run(newCmd(f, rec), "mnist", "--task", "ps-0", "-i", "--", "false")
	if exit.Code(err) != 42 || !errors.Is(err, exit.ErrSilent) {
		t.Errorf("err %v (code %d), want 42, silently", err, exit.Code(err))
	}
	if stderr.String() != "" || !rec.stdin {
		t.Errorf("stderr %q, stdin %v", stderr, rec.stdin)
	}
}

func TestExecInAMissingOrPendingReplica(t *testing.T) {
	rec := &recorder{}
	f, _, _ := factory(t, rec)
	err := run(newCmd(f, rec), "mnist", "--task", "worker-5", "--", "ls")
	if exit.Code(err) != exit.NotFound || !strings.Contains(err.Error(), "the job has ps-0, worker-0, worker-1") {
		t.Errorf("worker-5: %v", err)
	}
	err = run(newCmd(f, rec), "mnist", "--task", "worker-1", "--", "ls")
	if err == nil || !strings.Contains(err.Error(), "worker-1 is Pending") {
		t.Errorf("worker-1: %v", err)
	}
	if len(rec.pods) != 0 {
		t.Errorf("ran in %v", rec.pods)
	}
}

func TestExecAllRunsInEveryRunningReplica(t *testing.T) {
	rec := &recorder{fail: map[string]error{"mnist-ps-0": utilexec.CodeExitError{Err: errors.New("exit"), Code: 2}}}
	f, stdout, _ := factory(t, rec)
	err := run(newCmd(f, rec), "mnist", "--all", "--", "hostname")
	if exit.Code(err) != exit.Error || err.Error() != "the command failed in 1 of 2 replicas: ps-0 (exit code 2)" {
		t.Errorf("err %v", err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	sort.Strings(lines)
	if strings.Join(lines, ",") != "[ps-0] hostname,[worker-0] hostname" {
		t.Errorf("stdout %q", stdout)
	}
}
