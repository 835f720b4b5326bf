package prune

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdPrune(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"7d": 7 * 24 * time.Hour, "36h": 36 * time.Hour, "90m": 90 * time.Minute, "1d12h": 36 * time.Hour, "0d30m": 30 * time.Minute,
	} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "7", "d", "7days", "-1h", "0d", "0s", "1w", "7d-1h", "99999999999d"} {
		if _, err := ParseAge(in); exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), "--older-than \""+in+"\": ") {
			t.Errorf("ParseAge(%q): %v, want exit 2 naming the flag", in, err)
		}
	}
}

func TestNewCmdPruneBadInput(t *testing.T) {
	for _, tc := range []struct {
		tty  bool
		args string
		err  string
	}{
		{true, "", "say which jobs to prune: --finished, --older-than, --experiment or -l (any of them; a job must match all given)"},
		{true, "--yes --dry-run", "say which jobs to prune: --finished, --older-than, --experiment or -l (any of them; a job must match all given)"},
		{true, "--older-than 7", `--older-than "7": must be an age such as 7d, 36h, 90m or 1d12h`},
		{true, "-l a=b=c", `--selector "a=b=c": `},
		{true, "--experiment Bad/Name", `--experiment "Bad/Name": `},
		{false, "--finished", "not pruning without confirmation: pass --yes, or --dry-run to only see the jobs (there is no terminal to ask on)"},
		{true, "--finished mnist", `"prune" takes no arguments, got ["mnist"]`},
	} {
		f, _, _ := cmdutiltest.Factory(t, tc.tty, nil, nil)
		err := execute(f, func(*Options) error { t.Error("runF called"); return nil }, strings.Fields(tc.args)...)
		if exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("prune %s (tty %v): %v (exit %d), want exit 2: %s", tc.args, tc.tty, err, exit.Code(err), tc.err)
		}
	}
	// Without a terminal, a dry run or --yes is enough.
	for _, args := range []string{"--finished --dry-run", "--finished --yes"} {
		f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
		var got *Options
		if err := execute(f, func(o *Options) error { got = o; return nil }, strings.Fields(args)...); err != nil || !got.Finished {
			t.Errorf("prune %s: %v", args, err)
		}
	}
}

// jobs (the clock is T0+1h): old-ok succeeded 3h ago, old-failed failed,
// a day old; recent-ok succeeded, 10 minutes old; running is 2h old and
// running; sweep-1 a finished PyTorchJob of experiment lr-sweep; foreign,
// finished and old, was not submitted by easyai.
func jobs() *dynamicfake.FakeDynamicClient {
	t0 := jobclienttest.T0
	worker := []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 1}}
	succeeded := []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobSucceeded}
	return jobclienttest.Dynamic(
		jobclienttest.Job{Name: "old-ok", Created: t0.Add(-2 * time.Hour), Roles: worker, Conditions: succeeded}.Object(),
		jobclienttest.Job{Name: "old-failed", Created: t0.Add(-23 * time.Hour), Roles: worker,
			Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobFailed}}.Object(),
		jobclienttest.Job{Name: "recent-ok", Created: t0.Add(50 * time.Minute), Roles: worker, Conditions: succeeded}.Object(),
		jobclienttest.Job{Name: "running", Created: t0.Add(-time.Hour), Roles: worker,
			Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning}}.Object(),
		jobclienttest.Job{APIKind: kubeflowv1.PyTorchJobKind, Name: "sweep-1", Created: t0.Add(-3 * time.Hour), Experiment: "lr-sweep",
			Roles: []jobclienttest.Role{{Type: kubeflowv1.PyTorchJobReplicaTypeMaster, Replicas: 1}}, Conditions: succeeded}.Object(),
		jobclienttest.Job{Name: "foreign", Created: t0.Add(-48 * time.Hour), External: true, Roles: worker, Conditions: succeeded}.Object(),
	)
}

// deleted are the jobs deleted, each with the uid of its precondition.
func deleted(dyn *dynamicfake.FakeDynamicClient) []string {
	var out []string
	for _, a := range dyn.Actions() {
		if d, ok := a.(clienttesting.DeleteAction); ok {
			uid := "-"
			if p := d.GetDeleteOptions().Preconditions; p != nil && p.UID != nil {
				uid = string(*p.UID)
			}
			out = append(out, d.GetResource().Resource+"/"+d.GetName()+"@"+uid)
		}
	}
	return out
}

func TestPrune(t *testing.T) {
	for _, tc := range []struct {
		args    string
		table   string
		deleted string
	}{
		{"--finished --older-than 1h --yes", "tf/old-ok\tSucceeded\t3h\npytorch/sweep-1\tSucceeded\t4h\ntf/old-failed\tFailed\t24h\n",
			"tfjobs/old-ok@uid-old-ok pytorchjobs/sweep-1@uid-sweep-1 tfjobs/old-failed@uid-old-failed"},
		{"--older-than 1d12h --yes", "", ""},
		{"--older-than 90m --yes", "tf/running\tRunning\t120m\ntf/old-ok\tSucceeded\t3h\npytorch/sweep-1\tSucceeded\t4h\ntf/old-failed\tFailed\t24h\n",
			"tfjobs/running@uid-running tfjobs/old-ok@uid-old-ok pytorchjobs/sweep-1@uid-sweep-1 tfjobs/old-failed@uid-old-failed"},
		{"--experiment lr-sweep -y", "pytorch/sweep-1\tSucceeded\t4h\n", "pytorchjobs/sweep-1@uid-sweep-1"},
		{"-l easyai.io/job-name=recent-ok --yes", "tf/recent-ok\tSucceeded\t10m\n", "tfjobs/recent-ok@uid-recent-ok"},
	} {
		dyn := jobs()
		f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, nil)
		if err := execute(f, nil, strings.Fields(tc.args)...); err != nil {
			t.Fatalf("prune %s: %v", tc.args, err)
		}
		var want strings.Builder
		want.WriteString(tc.table)
		for _, name := range strings.Fields(tc.table) {
			if strings.Contains(name, "/") {
				want.WriteString("deleted " + name + "\n")
			}
		}
		if got := strings.Join(deleted(dyn), " "); got != tc.deleted {
			t.Errorf("prune %s deleted %q, want %q", tc.args, got, tc.deleted)
		}
		if stdout.String() != want.String() {
			t.Errorf("prune %s: stdout\n%s\nwant\n%s", tc.args, stdout, want.String())
		}
		if tc.table == "" && stderr.String() != "No jobs to prune in namespace team-a.\n" {
			t.Errorf("prune %s: stderr %q", tc.args, stderr)
		}
	}
}

// TestPruneAsks: on a terminal the jobs are a table and the question
// follows; no deletes nothing (exit 130), yes deletes them.
func TestPruneAsks(t *testing.T) {
	for _, answer := range []bool{false, true} {
		dyn := jobs()
		f, stdout, _ := cmdutiltest.Factory(t, true, dyn, nil)
		confirm := &cmdutiltest.Confirm{Answer: answer}
		f.Prompter = confirm
		err := execute(f, nil, "--finished", "--experiment", "lr-sweep")
		wantTable := "JOB               STATUS      AGE\npytorch/sweep-1   Succeeded   4h\n"
		if !strings.HasPrefix(stdout.String(), wantTable) {
			t.Errorf("stdout\n%s\nwant the table\n%s", stdout, wantTable)
		}
		if len(confirm.Questions) != 1 || confirm.Questions[0] != "Delete this job in namespace team-a?" {
			t.Errorf("questions %q", confirm.Questions)
		}
		got := strings.Join(deleted(dyn), " ")
		switch {
		case !answer && (exit.Code(err) != exit.Error || err.Error() != "Nothing deleted." || got != ""):
			t.Errorf("answered no: %v, deleted %q", err, got)
		case answer && (err != nil || got != "pytorchjobs/sweep-1@uid-sweep-1"):
			t.Errorf("answered yes: %v, deleted %q", err, got)
		}
	}
}

func TestPruneDryRun(t *testing.T) {
	dyn := jobs()
	f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, nil)
	if err := execute(f, nil, "--finished", "--older-than", "2h", "--dry-run"); err != nil {
		t.Fatal(err)
	}
	if want := "tf/old-ok\tSucceeded\t3h\npytorch/sweep-1\tSucceeded\t4h\ntf/old-failed\tFailed\t24h\n"; stdout.String() != want {
		t.Errorf("stdout\n%s\nwant\n%s", stdout, want)
	}
	if want := "3 jobs would be deleted in namespace team-a (dry run: nothing deleted).\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if got := deleted(dyn); len(got) != 0 {
		t.Errorf("a dry run deleted %v", got)
	}
}

// TestPrunePerJobFailures: a kind the user may not delete is reported per
// job, the other jobs are deleted, and prune exits 1; a job made again
// under its name since it was listed is left alone and said so.
func TestPrunePerJobFailures(t *testing.T) {
	dyn := jobs()
	jobclienttest.Refuse(dyn, "delete", "pytorchjobs")
	dyn.PrependReactor("delete", "tfjobs", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.(clienttesting.DeleteAction).GetName() != "old-failed" {
			return false, nil, nil
		}
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "kubeflow.org", Resource: "tfjobs"}, "old-failed",
			errors.New("Precondition failed: UID in precondition: uid-old-failed, UID in object meta: new"))
	})
	f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, nil)
	err := execute(f, nil, "--finished", "--older-than", "1h", "--yes")
	if exit.Code(err) != exit.Error || err.Error() != "1 of 3 jobs not deleted" {
		t.Errorf("error %v (exit %d), want exit 1", err, exit.Code(err))
	}
	if !strings.HasSuffix(stdout.String(), "deleted tf/old-ok\n") || strings.Count(stdout.String(), "deleted ") != 1 {
		t.Errorf("stdout\n%s", stdout)
	}
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	if len(lines) != 2 || lines[1] != "tf/old-failed not deleted: it was replaced by another job of the same name since it was listed" ||
		!strings.HasPrefix(lines[0], "Error: deleting pytorch/sweep-1: ") || !strings.Contains(lines[0], "forbidden") {
		t.Errorf("stderr\n%s", stderr)
	}
}

// A job whose summary could not be read has no creation time: it is never
// old enough for --older-than (it would be infinitely old).
func TestUnreadableJobsAreNotPrunedByAge(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	jobs := []jobclient.Listed{
		{Summary: jobmodel.Summary{Name: "old", Created: now.Add(-48 * time.Hour)}},
		{Summary: jobmodel.Summary{Name: "new", Created: now.Add(-time.Hour)}},
		{Summary: jobmodel.Summary{Name: "unreadable", Status: jobmodel.Status{State: jobmodel.Unknown, Reason: "Unreadable"}}},
	}
	var names []string
	for _, j := range olderThan(jobs, 24*time.Hour, now) {
		names = append(names, j.Summary.Name)
	}
	if len(names) != 1 || names[0] != "old" {
		t.Errorf("--older-than 24h keeps %v, want [old]", names)
	}
	if got := olderThan(jobs, 0, now); len(got) != 3 {
		t.Errorf("without --older-than: %d jobs, want all 3", len(got))
	}
}
