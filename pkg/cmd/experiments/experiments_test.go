package experiments

import (
	"context"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

func execute(f *cmdutil.Factory, args ...string) error {
	cmd := NewCmdExperiments(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

// jobs: lr-sweep has two running TFJobs (2 and 1 GPUs), a failed one and a
// running PyTorchJob (4 GPUs, the newest); bert one succeeded TFJob; solo
// belongs to none.
func jobs() *dynamicfake.FakeDynamicClient {
	t0 := jobclienttest.T0
	running := []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning}
	worker := func(gpus int64) []jobclienttest.Role {
		return []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 1, GPUs: gpus, Active: 1}}
	}
	return jobclienttest.Dynamic(
		jobclienttest.Job{Name: "lr-1", Created: t0, Experiment: "lr-sweep", Roles: worker(2), Conditions: running}.Object(),
		jobclienttest.Job{Name: "lr-2", Created: t0.Add(time.Minute), Experiment: "lr-sweep", Roles: worker(1), Conditions: running}.Object(),
		jobclienttest.Job{Name: "lr-3", Created: t0.Add(2 * time.Minute), Experiment: "lr-sweep", Roles: worker(8),
			Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobFailed}}.Object(),
		jobclienttest.Job{APIKind: kubeflowv1.PyTorchJobKind, Name: "lr-4", Created: t0.Add(50 * time.Minute), Experiment: "lr-sweep",
			Roles: []jobclienttest.Role{{Type: kubeflowv1.PyTorchJobReplicaTypeMaster, Replicas: 1, GPUs: 4, Active: 1}}, Conditions: running}.Object(),
		jobclienttest.Job{Name: "bert-1", Created: t0.Add(-2 * time.Hour), Experiment: "bert", Roles: worker(8),
			Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobSucceeded}}.Object(),
		jobclienttest.Job{Name: "solo", Created: t0.Add(55 * time.Minute), Roles: worker(8), Conditions: running}.Object(),
	)
}

func TestExperiments(t *testing.T) {
	for _, tc := range []struct {
		tty  bool
		want string
	}{
		{true, "EXPERIMENT   JOBS   RUNNING   PENDING   SUCCEEDED   FAILED   GPUS   NEWEST   AGE\n" +
			"lr-sweep     4      3         0         0           1        7      lr-4     10m\n" +
			"bert         1      0         0         1           0        0      bert-1   3h\n"},
		{false, "lr-sweep\t4\t3\t0\t0\t1\t7\tlr-4\t10m\nbert\t1\t0\t0\t1\t0\t0\tbert-1\t3h\n"},
	} {
		f, stdout, stderr := cmdutiltest.Factory(t, tc.tty, jobs(), nil)
		if err := execute(f); err != nil {
			t.Fatal(err)
		}
		if stdout.String() != tc.want || stderr.String() != "" {
			t.Errorf("tty %v: stdout\n%s\nwant\n%s\nstderr %q", tc.tty, stdout, tc.want, stderr)
		}
	}
}

func TestExperimentsOutputs(t *testing.T) {
	f, stdout, _ := cmdutiltest.Factory(t, false, jobs(), nil)
	if err := execute(f, "-o", "json"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"kind": "ExperimentList"`, `"name": "lr-sweep"`, `"gpus": 7`, `"jobKind": "pytorch"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("-o json lacks %s:\n%s", want, stdout)
		}
	}
	f, stdout, _ = cmdutiltest.Factory(t, false, jobs(), nil)
	if err := execute(f, "-o", "name"); err != nil || stdout.String() != "lr-sweep\nbert\n" {
		t.Errorf("-o name: %q (%v)", stdout, err)
	}
	f, _, _ = cmdutiltest.Factory(t, false, jobs(), nil)
	if err := execute(f, "-o", "wide"); exit.Code(err) != exit.Usage {
		t.Errorf("-o wide: %v", err)
	}
	if err := execute(f, "lr-sweep"); exit.Code(err) != exit.Usage {
		t.Errorf("an argument: %v", err)
	}
}

// TestExperimentsDegrade: a kind the user may not list is one warning line,
// the others are shown; no experiment at all is said on stderr.
func TestExperimentsDegrade(t *testing.T) {
	dyn := jobs()
	jobclienttest.Refuse(dyn, "list", "pytorchjobs")
	f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, nil)
	if err := execute(f); err != nil {
		t.Fatal(err)
	}
	if want := "lr-sweep\t3\t2\t0\t0\t1\t3\tlr-3\t58m\nbert\t1\t0\t0\t1\t0\t0\tbert-1\t3h\n"; stdout.String() != want {
		t.Errorf("stdout\n%s\nwant\n%s", stdout, want)
	}
	if want := "Warning: cannot list pytorchjobs in team-a: forbidden\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}

	f, stdout, stderr = cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	if err := execute(f); err != nil || stdout.String() != "" || stderr.String() != "No experiments in namespace team-a.\n" {
		t.Errorf("none: %v, stdout %q, stderr %q", err, stdout, stderr)
	}
}
