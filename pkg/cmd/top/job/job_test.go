package job

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

// usageJobs: two running TFJobs of team-a (4 GPUs for 2 hours, 1 GPU for 30
// minutes), one that ended 10 minutes ago after 5 hours on 8 GPUs, and one
// of team-b.
func usageJobs() *dynamicfake.FakeDynamicClient {
	t0 := jobclienttest.T0
	at := func(d time.Duration) *time.Time { v := t0.Add(d); return &v }
	running := []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning}
	worker := func(n int32, gpus int64) []jobclienttest.Role {
		return []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: n, GPUs: gpus, Active: n}}
	}
	return jobclienttest.Dynamic(
		jobclienttest.Job{Name: "big", User: "alice", Created: t0.Add(-time.Hour), Started: at(-time.Hour), Roles: worker(2, 2), Conditions: running}.Object(),
		jobclienttest.Job{Name: "small", User: "bob", Created: t0.Add(30 * time.Minute), Started: at(30 * time.Minute), Roles: worker(1, 1), Conditions: running}.Object(),
		jobclienttest.Job{Name: "done", Created: t0.Add(-5 * time.Hour), Started: at(-4*time.Hour - 10*time.Minute), Finished: at(50 * time.Minute),
			Roles: worker(1, 8), Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobSucceeded}}.Object(),
		jobclienttest.Job{Namespace: "team-b", Name: "other", Created: t0, Started: at(0), Roles: worker(1, 1), Conditions: running}.Object(),
	)
}

// executeJob runs "top job ARGS...", top holding job only, as the root
// mounts it.
func executeJob(f *cmdutil.Factory, args ...string) error {
	cmd := &cobra.Command{Use: "top"}
	cmd.AddCommand(NewCmdJob(f, nil))
	cmd.SetArgs(append([]string{"job"}, args...))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestTopJob(t *testing.T) {
	f, stdout, stderr := cmdutiltest.Factory(t, true, usageJobs(), nil)
	if err := executeJob(f); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"JOB        USER    STATUS    GPUS   RUNNING   GPU-HOURS   CPU USE   MEMORY USE\n" +
		"tf/big     alice   Running   4      120m      8.0         -         -\n" +
		"tf/small   bob     Running   1      30m       0.5         -         -\n" +
		"total      -       -         5      -         8.5         -         -\n"
	if stdout.String() != want || stderr.Len() != 0 {
		t.Errorf("stdout\n%s\nwant\n%s\nstderr %q", stdout, want, stderr)
	}

	// The last day, every namespace, as JSON: done counts its 5 hours.
	f, stdout, _ = cmdutiltest.Factory(t, false, usageJobs(), nil)
	if err := executeJob(f, "-A", "--since", "1d", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	var doc jobclient.JobUsageList
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if doc.Kind != "JobUsageList" || len(doc.Items) != 4 || doc.Since == nil || doc.Total.GPUsHeld != 6 || doc.Total.GPUHours != 8+0.5+40+1 {
		t.Errorf("document %+v", doc)
	}
	if last := doc.Items[3]; last.Name != "done" || last.GPUsHeld != 0 || last.GPUHours != 40 || last.RunningSeconds != 5*3600 || last.KindName != "tf" {
		t.Errorf("done %+v", last)
	}
}

// TestTopJobUsage: the metrics API's usage of a job's pods fills CPU USE
// and MEMORY USE.
func TestTopJobUsage(t *testing.T) {
	dyn := usageJobs()
	m := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
		"metadata":   map[string]any{"namespace": "team-a", "name": "big-worker-0", "labels": map[string]any{"easyai.io/job-name": "big"}},
		"containers": []any{map[string]any{"name": "c", "usage": map[string]any{"cpu": "1500m", "memory": "2Gi"}}}}}
	if err := dyn.Tracker().Create(jobclient.PodMetrics, m, "team-a"); err != nil {
		t.Fatal(err)
	}
	f, stdout, _ := cmdutiltest.Factory(t, false, dyn, nil)
	if err := executeJob(f); err != nil {
		t.Fatal(err)
	}
	if want := "tf/big\talice\tRunning\t4\t120m\t8.0\t1.5\t2.0 GiB\n"; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("stdout\n%s\nwant first\n%s", stdout, want)
	}
}

func TestTopJobNothingAndBadInput(t *testing.T) {
	f, stdout, stderr := cmdutiltest.Factory(t, true, jobclienttest.Dynamic(), nil)
	if err := executeJob(f, "--since", "7d"); err != nil || stdout.Len() != 0 || stderr.String() != "No job ran in namespace team-a in the last 7d.\n" {
		t.Errorf("no jobs: %v, stdout %q, stderr %q", err, stdout, stderr)
	}
	// A bad --since is the flag's parse error (the root makes it exit 2).
	f, _, _ = cmdutiltest.Factory(t, false, usageJobs(), nil)
	if err := executeJob(f, "--since", "7days"); err == nil || !strings.Contains(err.Error(), `"7days": not a duration such as 7d, 36h or 1d12h`) {
		t.Errorf("--since 7days: %v", err)
	}
	for args, want := range map[string]string{
		"-o wide":               `-o "wide"`,
		"--experiment bad/name": "--experiment",
		"extra":                 "takes no arguments",
	} {
		f, _, _ := cmdutiltest.Factory(t, false, usageJobs(), nil)
		if err := executeJob(f, strings.Fields(args)...); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v (exit %d), want exit 2 with %q", args, err, exit.Code(err), want)
		}
	}
}
