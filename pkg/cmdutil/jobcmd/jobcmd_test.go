package jobcmd_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	kubefake "k8s.io/client-go/kubernetes/fake"

	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/cmdutil/jobcmd"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// FindRunnable takes --task's replica, else the default one, said on
// notes, and refuses one whose pod does not run.
func TestReplicaOptions(t *testing.T) {
	f := replicaFactory(t)
	for _, tc := range []struct {
		task, want, notes, err string
	}{
		{"", "worker-0", "Running in worker-0 of tf/mnist (replicas: ps-0, worker-0, worker-1; choose with --task)\n", ""},
		{"ps-0", "ps-0", "", ""},
		{"worker-1", "", "", "replica worker-1 is Pending"},
		{"worker-7", "", "", "no replica worker-7"},
	} {
		o := &jobcmd.ReplicaOptions{JobOptions: cmdutil.JobOptions{JobArg: "mnist"}, Task: tc.task}
		if err := o.ParseJob(f.Kinds); err != nil {
			t.Fatal(err)
		}
		r, err := o.CompleteReplicas(f)
		if err != nil || r.Namespace != "team-a" || o.Namespace != "team-a" || o.Client == nil || o.Executor == nil {
			t.Fatalf("CompleteReplicas: %v, %+v", err, o)
		}
		var notes bytes.Buffer
		j, replica, err := o.FindRunnable(context.Background(), &notes)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("--task %s: %v, want %q", tc.task, err, tc.err)
			}
		case err != nil || j.String() != "tf/mnist" || replica.Task != tc.want || notes.String() != tc.notes:
			t.Errorf("--task %q: %v, %s in %v, notes %q; want %s, %q", tc.task, err, replica.Task, j, notes.String(), tc.want, tc.notes)
		}
	}
}

func TestAllReplicas(t *testing.T) {
	cmd := &cobra.Command{Use: "exec"}
	a := &jobcmd.AllReplicas{}
	a.AddAllFlags(cmd, "run in every replica", "most at once")
	if a.Parallel != remote.DefaultMaxParallel || cmd.Flags().Lookup("all").Usage != "run in every replica" || cmd.Flags().Lookup("max-parallel").Usage != "most at once" {
		t.Errorf("flags: %+v", a)
	}
	for _, tc := range []struct {
		all      bool
		parallel int
		task     string
		err      string
	}{
		{false, 32, "", ""},
		{true, 1, "", ""},
		{false, 3, "ps-0", ""},
		{true, 32, "ps-0", "--all runs in every replica that waits: not with --task"},
		{false, 0, "", "--max-parallel 0: must be at least 1"},
	} {
		a := jobcmd.AllReplicas{All: tc.all, Parallel: tc.parallel}
		err := a.ValidateAll(tc.task, "every replica that waits")
		if (tc.err == "" && err != nil) || (tc.err != "" && (exit.Code(err) != exit.Usage || err.Error() != tc.err)) {
			t.Errorf("%+v --task %q: %v, want %q", a, tc.task, err, tc.err)
		}
	}
}

// SSHOptions check --user, and name a replica TASK.JOB.NAMESPACE.
func TestSSHOptions(t *testing.T) {
	f := replicaFactory(t)
	o := &jobcmd.SSHOptions{ReplicaOptions: jobcmd.ReplicaOptions{JobOptions: cmdutil.JobOptions{JobArg: "mnist"}}, User: "x y"}
	if err := o.ValidateSSH(f.Kinds); exit.Code(err) != exit.Usage {
		t.Errorf("--user %q: %v", o.User, err)
	}
	o.User = "jovyan"
	if err := o.ValidateSSH(f.Kinds); err != nil || o.Ref.String() != "mnist" {
		t.Fatalf("ValidateSSH: %v, ref %s", err, o.Ref)
	}
	r, err := o.CompleteSSH(f)
	if err != nil || o.Kube != r.Kube || o.Executor == nil || o.Proxy.Executable == "" {
		t.Fatalf("CompleteSSH: %v, %+v", err, o)
	}
	j, err := o.FindJob(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	target := o.Target(j, "worker-0")
	if target.Alias != "worker-0.mnist.team-a" || target.Task != "worker-0" || target.JobArg != "tf/mnist" || target.Namespace != "team-a" || target.User != "jovyan" {
		t.Errorf("target %+v", target)
	}
}

// replicaFactory serves team-a's tf/mnist with ps-0 and worker-0 running,
// worker-1 pending.
func replicaFactory(t *testing.T) *cmdutil.Factory {
	kube := kubefake.NewClientset(
		jobclienttest.Pod("team-a", "mnist", "ps", 0, corev1.PodRunning, jobclienttest.T0),
		jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, jobclienttest.T0),
		jobclienttest.Pod("team-a", "mnist", "worker", 1, corev1.PodPending, jobclienttest.T0),
	)
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), kube)
	f.RESTConfig = func() (*rest.Config, error) { return &rest.Config{}, nil }
	return f
}
