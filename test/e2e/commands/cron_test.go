//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// TestCronSubmitsOnItsSchedule: as the namespace's user of examples/rbac
// and as the admin, a schedule is a CronJob whose launcher runs easyai as
// the namespace's ServiceAccount easyai-cron. trigger makes the launcher
// Job; the launcher's exact command line, run with a token of that
// ServiceAccount, submits the job labelled with the schedule, and a second
// run while it runs submits nothing (Forbid); list, get, suspend, resume
// and delete --with-jobs do what they say; bad input exits 2 and creates
// nothing. With --backend volcano the schedule is Volcano's CronJob (its
// API served by the local cluster without its controller): the API server
// takes it, trigger makes a run's Volcano Job of its template, which the
// Volcano controller runs, and every verb works on it.
func TestCronSubmitsOnItsSchedule(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	for who, env := range map[string]func(ns string) []string{
		"alice": func(ns string) []string { return []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)} },
		"admin": func(string) []string { return nil },
	} {
		t.Run(who, func(t *testing.T) {
			t.Parallel()
			ns := c.ShortNamespace(t)
			applyExample(t, c, "rbac/easyai-user.yaml", ns)
			run := func(args ...string) easyai.Result {
				t.Helper()
				return easyai.RunWith(t, env(ns), append([]string{"-n", ns}, args...)...)
			}
			cronLifecycle(t, c, ns, run)
			cronOnVolcano(t, c, ns, run)
		})
	}
}

func cronLifecycle(t *testing.T, c *cluster.Cluster, ns string, run func(...string) easyai.Result) {
	ctx := cluster.Context(t, 3*time.Minute)
	file := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(file, []byte("kind: tf\nimage: example.com/train:1\ncommand: [python, train.py]\n"+
		"env: [{name: "+cluster.RunForEnv+", value: \"10m\"}]\nroles: {worker: {replicas: 1}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Bad input: exit 2 naming it, nothing created.
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"--schedule", "61 * * * *"}, `--schedule "61 * * * *"`},
		{[]string{"--schedule", "0 2 * * *", "--timezone", "Mars/Olympus"}, `--timezone "Mars/Olympus"`},
		{[]string{"--schedule", "0 2 * * *", "--concurrency", "Sometimes"}, `--concurrency "Sometimes"`},
	} {
		r := run(append([]string{"cron", "create", "bad", "-f", file}, bad.args...)...)
		if r.Code != 2 || !strings.Contains(r.Stderr, bad.want) {
			t.Errorf("cron create %v: exit %d, stderr %q; want 2 and %q", bad.args, r.Code, r.Stderr, bad.want)
		}
	}
	if _, err := c.Kube.BatchV1().CronJobs(ns).Get(ctx, "bad", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a refused schedule was created: %v", err)
	}

	r := run("cron", "create", "nightly", "--schedule", "0 2 * * *", "--timezone", "Asia/Shanghai", "--keep", "1", "--image", "example.com/easyai:1", "-f", file)
	r.MustSucceed(t)
	if r.Stdout != "schedule nightly created in namespace "+ns+": 0 2 * * *\n" {
		t.Errorf("cron create: %q", r.Stdout)
	}
	cj, err := c.Kube.BatchV1().CronJobs(ns).Get(ctx, "nightly", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := cj.Spec.JobTemplate.Spec.Template.Spec
	args := pod.Containers[0].Args
	if cj.Spec.TimeZone == nil || *cj.Spec.TimeZone != "Asia/Shanghai" || cj.Spec.Suspend == nil || *cj.Spec.Suspend || pod.ServiceAccountName != "easyai-cron" ||
		strings.Join(args, " ") != "cron launch nightly -n "+ns || pod.Containers[0].Image != "example.com/easyai:1" {
		t.Errorf("the CronJob: %+v", cj.Spec)
	}

	// trigger: the launcher Job, owned by the CronJob, of its template.
	if out := run("cron", "trigger", "nightly").MustSucceed(t).Stdout; !strings.HasPrefix(out, "schedule nightly triggered: launcher job nightly-manual-") {
		t.Errorf("cron trigger: %q", out)
	}
	jobs, err := c.Kube.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/cron=nightly"})
	if err != nil || len(jobs.Items) != 1 || jobs.Items[0].OwnerReferences[0].Name != "nightly" ||
		jobs.Items[0].Spec.Template.Spec.ServiceAccountName != "easyai-cron" || strings.Join(jobs.Items[0].Spec.Template.Spec.Containers[0].Args, " ") != strings.Join(args, " ") {
		t.Fatalf("the launcher Job: %+v, %v", jobs, err)
	}

	// What the launcher's pod runs, as its ServiceAccount: the job is
	// submitted, labelled with the schedule; a second run while it runs
	// submits nothing.
	launcher := []string{"KUBECONFIG=" + c.ServiceAccountKubeconfig(t, ns, "easyai-cron")}
	r = easyai.RunWith(t, launcher, args...).MustSucceed(t)
	if !strings.Contains(r.Stdout, "schedule nightly: tf/nightly-") {
		t.Errorf("the launcher: %q", r.Stdout)
	}
	var listed struct {
		Items []struct {
			Name, Experiment string
			Labels           map[string]string
		}
	}
	if err := json.Unmarshal([]byte(run("list", "-o", "json").MustSucceed(t).Stdout), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Items) != 1 || listed.Items[0].Experiment != "nightly" || listed.Items[0].Labels["easyai.io/cron"] != "nightly" || !strings.HasPrefix(listed.Items[0].Name, "nightly-") {
		t.Fatalf("the job the launcher submitted: %+v", listed.Items)
	}
	first := listed.Items[0].Name
	easyai.Run(t, "wait", "-n", ns, "tf/"+first, "--for", "running", "--timeout", "90s").MustSucceed(t)
	r = easyai.RunWith(t, launcher, args...).MustSucceed(t)
	if !strings.Contains(r.Stdout, "tf/"+first+" still runs: this run submits nothing (concurrency Forbid)") {
		t.Errorf("a second run while the first job runs: %q", r.Stdout)
	}

	var got struct {
		Schedule, TimeZone string
		Suspended          bool
		NextRun            time.Time
		Runs               []struct{ Job, State string }
	}
	if err := json.Unmarshal([]byte(run("cron", "get", "nightly", "-o", "json").MustSucceed(t).Stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Schedule != "0 2 * * *" || got.TimeZone != "Asia/Shanghai" || got.NextRun.IsZero() || len(got.Runs) != 1 || got.Runs[0].Job != "tf/"+first {
		t.Errorf("cron get -o json: %+v", got)
	}
	if out := run("cron", "list").MustSucceed(t).Stdout; !strings.HasPrefix(out, "nightly\t0 2 * * * (Asia/Shanghai)\tfalse\tForbid\t") {
		t.Errorf("cron list: %q", out)
	}
	run("cron", "suspend", "nightly").MustSucceed(t)
	if cj, err := c.Kube.BatchV1().CronJobs(ns).Get(ctx, "nightly", metav1.GetOptions{}); err != nil || !*cj.Spec.Suspend {
		t.Errorf("after suspend: %v, %v", cj.Spec.Suspend, err)
	}
	run("cron", "resume", "nightly").MustSucceed(t)

	// The job as a submit command line: kept as the job file it makes.
	run("cron", "create", "hourly", "--schedule", "@hourly", "--", "tf", "--workers", "1", "--image", "example.com/train:1", "--", "python", "eval.py").MustSucceed(t)
	cm, err := c.Kube.CoreV1().ConfigMaps(ns).Get(ctx, "hourly-cron", metav1.GetOptions{})
	if err != nil || !strings.HasPrefix(cm.Data["job.yaml"], "kind: tf\n") || !strings.Contains(cm.Data["job.yaml"], "- eval.py") {
		t.Errorf("the job file of a submit command line: %q (%v)", cm.Data["job.yaml"], err)
	}
	run("cron", "delete", "hourly", "--yes").MustSucceed(t)

	r = run("cron", "delete", "nightly", "--with-jobs", "--yes").MustSucceed(t)
	if !strings.Contains(r.Stdout, "schedule nightly deleted from namespace "+ns) || !strings.Contains(r.Stdout, "tf/"+first+" deleted") {
		t.Errorf("cron delete --with-jobs: %q", r.Stdout)
	}
	if _, err := c.Kube.CoreV1().ConfigMaps(ns).Get(ctx, "nightly-cron", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the schedule's ConfigMap outlived it: %v", err)
	}
	if r := run("cron", "get", "nightly"); r.Code != 3 {
		t.Errorf("cron get after delete: exit %d", r.Code)
	}
}

var volcanoCronJobs = schema.GroupVersionResource{Group: "batch.volcano.sh", Version: "v1alpha1", Resource: "cronjobs"}

func cronOnVolcano(t *testing.T, c *cluster.Cluster, ns string, run func(...string) easyai.Result) {
	ctx := cluster.Context(t, 3*time.Minute)
	file := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(file, []byte("kind: tf\nimage: example.com/train:1\ncommand: [python, train.py]\n"+
		"env: [{name: "+cluster.RunForEnv+", value: \"10m\"}]\nroles: {worker: {replicas: 2}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	trainjob := filepath.Join(t.TempDir(), "trainjob.yaml")
	if err := os.WriteFile(trainjob, []byte("kind: trainjob\nimage: example.com/train:1\ncommand: [python, train.py]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", file, "--image", "example.com/easyai:1"}, "--image is the launcher's"},
		{[]string{"-f", trainjob}, "is a trainjob job, which cannot run as a Volcano Job"},
		{[]string{"-f", file, "--backend", "argo"}, `--backend "argo": kubernetes or volcano`},
	} {
		args := append([]string{"cron", "create", "vbad", "--schedule", "0 3 * * *", "--backend", "volcano"}, bad.args...)
		if r := run(args...); r.Code != 2 || !strings.Contains(r.Stderr, bad.want) {
			t.Errorf("cron create %v: exit %d, stderr %q; want 2 and %q", bad.args, r.Code, r.Stderr, bad.want)
		}
	}
	if _, err := c.Dynamic.Resource(volcanoCronJobs).Namespace(ns).Get(ctx, "vbad", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a refused schedule was created: %v", err)
	}

	r := run("cron", "create", "vnightly", "--schedule", "0 3 * * *", "--backend", "volcano", "--concurrency", "Replace", "--keep", "2", "-f", file, "--dry-run=server").MustSucceed(t)
	if r.Stdout != "schedule vnightly checked by the API server (server dry run; nothing was created) in namespace "+ns+" (Volcano's CronJob): 0 3 * * *\n" {
		t.Errorf("cron create --backend volcano --dry-run=server: %q", r.Stdout)
	}
	if _, err := c.Dynamic.Resource(volcanoCronJobs).Namespace(ns).Get(ctx, "vnightly", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a server dry run created the schedule: %v", err)
	}
	run("cron", "create", "vnightly", "--schedule", "0 3 * * *", "--backend", "volcano", "--concurrency", "Replace", "--keep", "2", "-f", file).MustSucceed(t)
	cj, err := c.Dynamic.Resource(volcanoCronJobs).Namespace(ns).Get(ctx, "vnightly", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	policy, _, _ := unstructured.NestedString(cj.Object, "spec", "concurrencyPolicy")
	keep, _, _ := unstructured.NestedInt64(cj.Object, "spec", "successfulJobsHistoryLimit")
	tmplLabels, _, _ := unstructured.NestedStringMap(cj.Object, "spec", "jobTemplate", "metadata", "labels")
	plugins, _, _ := unstructured.NestedMap(cj.Object, "spec", "jobTemplate", "spec", "plugins")
	if policy != "Replace" || keep != 2 || tmplLabels["easyai.io/cron"] != "vnightly" || tmplLabels["easyai.io/experiment"] != "vnightly" || plugins["tensorflow"] == nil {
		t.Errorf("Volcano's CronJob as the API server keeps it: policy %q, keep %d, template labels %v, plugins %v", policy, keep, tmplLabels, plugins)
	}

	r = run("cron", "trigger", "vnightly").MustSucceed(t)
	job, ok := strings.CutPrefix(strings.TrimSpace(r.Stdout), "schedule vnightly triggered: job vcjob/")
	if !ok {
		t.Fatalf("cron trigger: %q", r.Stdout)
	}
	cluster.Eventually(t, time.Minute, "the triggered run running", func(ctx context.Context) (bool, error) {
		var got struct {
			Backend string
			Runs    []struct{ Job, State string }
		}
		if err := json.Unmarshal([]byte(run("cron", "get", "vnightly", "-o", "json").MustSucceed(t).Stdout), &got); err != nil {
			return false, err
		}
		if got.Backend != "volcano" || len(got.Runs) != 1 || got.Runs[0].Job != "volcano/"+job {
			return false, fmt.Errorf("cron get -o json: %+v", got)
		}
		return got.Runs[0].State == "Running", nil
	})
	run("cron", "suspend", "vnightly").MustSucceed(t)
	if cj, err := c.Dynamic.Resource(volcanoCronJobs).Namespace(ns).Get(ctx, "vnightly", metav1.GetOptions{}); err != nil {
		t.Error(err)
	} else if suspended, _, _ := unstructured.NestedBool(cj.Object, "spec", "suspend"); !suspended {
		t.Errorf("after suspend: %v", cj.Object["spec"])
	}
	if out := run("cron", "list").MustSucceed(t).Stdout; !strings.Contains(out, "vnightly\t0 3 * * *\ttrue\tReplace\t") || !strings.Contains(out, "(Running)") {
		t.Errorf("cron list: %q", out)
	}
	r = run("cron", "delete", "vnightly", "--with-jobs", "--yes").MustSucceed(t)
	if !strings.Contains(r.Stdout, "volcano/"+job+" deleted") {
		t.Errorf("cron delete --with-jobs: %q", r.Stdout)
	}
	cluster.Eventually(t, time.Minute, "nothing of the schedule left", func(ctx context.Context) (bool, error) {
		_, err := c.Dynamic.Resource(volcanoCronJobs).Namespace(ns).Get(ctx, "vnightly", metav1.GetOptions{})
		jobs, lerr := c.Dynamic.Resource(volcanoJobs).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/cron=vnightly"})
		if lerr != nil {
			return false, lerr
		}
		return apierrors.IsNotFound(err) && len(jobs.Items) == 0, nil
	})
}
