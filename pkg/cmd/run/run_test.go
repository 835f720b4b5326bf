package run_test

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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	utilexec "k8s.io/utils/exec"

	runcmd "github.com/easyai-dev/easyai/pkg/cmd/run"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestFlagsMakeOptions(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *runcmd.Options
	cmd := runcmd.NewCmdRun(f, func(o *runcmd.Options) error { got = o; return nil })
	if err := run(cmd, "tf/mnist", "--task", "worker-1"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "tf/mnist" || got.Task != "worker-1" || got.All {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{
		{}, {"mnist", "ls"}, {"mnist", "--all", "--task", "worker-0"}, {"mnist", "--all", "--max-parallel", "0"},
	} {
		err := run(runcmd.NewCmdRun(f, func(*runcmd.Options) error { return nil }), args...)
		if exit.Code(err) != exit.Usage {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// recorder is an executor that records where commands ran and answers as told.
type recorder struct {
	mu   sync.Mutex
	pods []string
	fail map[string]error
}

func (r *recorder) Exec(_ context.Context, namespace, pod, _ string, command []string, s remote.Streams) error {
	r.mu.Lock()
	r.pods = append(r.pods, namespace+"/"+pod)
	r.mu.Unlock()
	fmt.Fprintf(s.Stdout, "%s\n", strings.Join(command, " "))
	return r.fail[pod]
}

const recorded = `'python' 'train.py'`

// waitingPod is a pod of team-a's mnist whose container keeps the command,
// with EASYAI_DEBUG_TASKS when tasks is not empty.
func waitingPod(role string, index int, phase corev1.PodPhase, tasks string) *corev1.Pod {
	p := jobclienttest.Pod("team-a", "mnist", role, index, phase, jobclienttest.T0)
	env := []corev1.EnvVar{{Name: remote.CommandEnv, Value: recorded}}
	if tasks != "" {
		env = append(env, corev1.EnvVar{Name: "EASYAI_DEBUG_TASKS", Value: tasks})
	}
	p.Spec.Containers = []corev1.Container{{Name: "tensorflow", Env: env}}
	return p
}

// factory serves the fixtures, team-a's tf/mnist labelled as in debug mode
// when debug is true, with the pods given.
func factory(t *testing.T, debug bool, pods ...runtime.Object) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	objs := jobclienttest.Fixtures()
	for _, o := range objs {
		u := o.(*unstructured.Unstructured)
		if debug && u.GetName() == "mnist" {
			labels := u.GetLabels()
			labels[jobmodel.DebugLabel] = "true"
			u.SetLabels(labels)
		}
	}
	f, stdout, stderr := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(objs...), kubefake.NewClientset(pods...))
	f.RESTConfig = func() (*rest.Config, error) { return &rest.Config{}, nil }
	return f, stdout, stderr
}

func newCmd(f *cmdutil.Factory, rec *recorder) *cobra.Command {
	return runcmd.NewCmdRun(f, func(o *runcmd.Options) error {
		if err := o.Complete(); err != nil {
			return err
		}
		o.Executor = rec
		return o.Run(context.Background())
	})
}

// onlyWorker1 is mnist with worker-1 waiting (--debug-task worker-1).
func onlyWorker1() []runtime.Object {
	return []runtime.Object{
		waitingPod("ps", 0, corev1.PodRunning, "worker-1"),
		waitingPod("worker", 0, corev1.PodRunning, "worker-1"),
		waitingPod("worker", 1, corev1.PodRunning, "worker-1"),
	}
}

func TestRunStartsTheRecordedCommandInTheFirstReplicaThatWaits(t *testing.T) {
	rec := &recorder{}
	f, stdout, stderr := factory(t, true, onlyWorker1()...)
	if err := run(newCmd(f, rec), "mnist"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rec.pods, ",") != "team-a/mnist-worker-1" {
		t.Errorf("ran in %v, want worker-1 (the one that waits)", rec.pods)
	}
	if stdout.String() != "/bin/sh -c "+recorded+"\n" || !strings.Contains(stderr.String(), "Running the command in worker-1") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
}

func TestRunExitsWithTheCommandsCode(t *testing.T) {
	rec := &recorder{fail: map[string]error{"mnist-worker-1": utilexec.CodeExitError{Err: errors.New("exit"), Code: 3}}}
	f, _, _ := factory(t, true, onlyWorker1()...)
	err := run(newCmd(f, rec), "mnist", "--task", "worker-1")
	if exit.Code(err) != 3 || !errors.Is(err, exit.ErrSilent) {
		t.Errorf("err %v (code %d), want 3, silently", err, exit.Code(err))
	}
}

func TestRunRefusesAReplicaThatDoesNotWait(t *testing.T) {
	rec := &recorder{}
	f, _, _ := factory(t, true, onlyWorker1()...)
	err := run(newCmd(f, rec), "mnist", "--task", "worker-0")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "waiting in debug mode: worker-1") {
		t.Errorf("worker-0: %v, want a usage error naming worker-1", err)
	}
	if len(rec.pods) != 0 {
		t.Errorf("ran in %v", rec.pods)
	}
}

func TestRunAllStartsItInEveryRunningReplicaThatWaits(t *testing.T) {
	rec := &recorder{fail: map[string]error{"mnist-worker-0": utilexec.CodeExitError{Err: errors.New("exit"), Code: 3}}}
	f, stdout, _ := factory(t, true,
		waitingPod("ps", 0, corev1.PodRunning, ""),
		waitingPod("worker", 0, corev1.PodRunning, ""),
		waitingPod("worker", 1, corev1.PodPending, ""))
	err := run(newCmd(f, rec), "mnist", "--all")
	if exit.Code(err) != exit.Error || err.Error() != "the command failed in 1 of 2 replicas: worker-0 (exit code 3)" {
		t.Errorf("err %v", err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	sort.Strings(lines)
	want := "[ps-0] /bin/sh -c " + recorded + ",[worker-0] /bin/sh -c " + recorded
	if strings.Join(lines, ",") != want {
		t.Errorf("stdout %q", stdout)
	}
}

func TestRunRefusesAJobNotInDebugMode(t *testing.T) {
	rec := &recorder{}
	f, _, _ := factory(t, false, onlyWorker1()...)
	err := run(newCmd(f, rec), "mnist")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "tf/mnist is not in debug mode") || !strings.Contains(err.Error(), "easyai exec") {
		t.Errorf("err %v, want a usage error pointing at exec", err)
	}
}

func TestRunRefusesAKindsOwnDebugMode(t *testing.T) {
	rec := &recorder{}
	plain := jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, jobclienttest.T0)
	plain.Spec.Containers = []corev1.Container{{Name: "tensorflow"}}
	f, _, _ := factory(t, true, plain)
	err := run(newCmd(f, rec), "mnist")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "own debug mode") {
		t.Errorf("err %v, want a usage error saying the kind's own debug mode keeps no command", err)
	}
}
