package cron

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// renderedJob is a Volcano Job as submit renders it, named as the schedule.
func renderedJob() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
		"metadata": map[string]any{"name": "nightly", "namespace": "team-a",
			"labels":      map[string]any{jobmodel.NameLabel: "nightly", jobmodel.KindLabel: "tf", jobmodel.ExperimentLabel: "nightly", Label: "nightly"},
			"annotations": map[string]any{jobmodel.RequestAnnotation: `{"name":"nightly"}`}},
		"spec": map[string]any{"queue": "default", "tasks": []any{map[string]any{"name": "worker", "replicas": int64(2),
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{jobmodel.NameLabel: "nightly", "team": "vision"}}}}}},
	}}
}

// TestVolcanoBackend: a schedule on Volcano's CronJob carries the job as
// its template (labels, annotations and spec, easyai's job-name label left
// to Volcano's own), and get, list, suspend, trigger and delete work on it
// beside the launcher's schedules.
func TestVolcanoBackend(t *testing.T) {
	s := spec()
	s.Backend, s.Image, s.Keep = BackendVolcano, "", 0
	cj, err := RenderVolcano(s, renderedJob())
	if err != nil {
		t.Fatal(err)
	}
	tmplLabels, _, _ := unstructured.NestedStringMap(cj.Object, "spec", "jobTemplate", "metadata", "labels")
	podLabels, _, _ := unstructured.NestedSlice(cj.Object, "spec", "jobTemplate", "spec", "tasks")
	keep, _, _ := unstructured.NestedInt64(cj.Object, "spec", "successfulJobsHistoryLimit")
	tz, _, _ := unstructured.NestedString(cj.Object, "spec", "timeZone")
	if tmplLabels[Label] != "nightly" || tmplLabels[jobmodel.ExperimentLabel] != "nightly" || tmplLabels[jobmodel.NameLabel] != "" ||
		strings.Contains(jsonOf(t, podLabels), jobmodel.NameLabel) || !strings.Contains(jsonOf(t, podLabels), "vision") || keep != math.MaxInt32 || tz != "Asia/Shanghai" {
		t.Errorf("rendered %s", jsonOf(t, cj.Object))
	}
	notVolcano := renderedJob()
	notVolcano.SetAPIVersion("kubeflow.org/v1")
	if _, err := RenderVolcano(s, notVolcano); exit.Code(err) != exit.Usage {
		t.Errorf("a TFJob as a Volcano CronJob's template: %v", err)
	}

	ctx := context.Background()
	scheme := runtime.NewScheme()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{VolcanoCronJobs: "CronJobList", volcanoJobs: "JobList"})
	c := &Client{Kube: fake.NewSimpleClientset(), Dynamic: dyn, Now: func() time.Time { return time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC) }}
	if err := c.Create(ctx, &Objects{Volcano: cj}, false); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &Objects{Volcano: cj}, false); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second create: %v", err)
	}
	got, err := c.Get(ctx, "team-a", "nightly")
	if err != nil || got.Backend != BackendVolcano || got.Concurrency != Forbid || got.Keep != 0 || got.Suspended || got.NextRun.UTC().Hour() != 18 {
		t.Fatalf("get: %+v, %v", got, err)
	}
	if err := c.SetSuspended(ctx, "team-a", "nightly", true); err != nil {
		t.Fatal(err)
	}
	if list, err := c.List(ctx, "team-a"); err != nil || len(list) != 1 || !list[0].Suspended || !list[0].NextRun.IsZero() {
		t.Errorf("list: %+v, %v", list, err)
	}
	if _, err := c.Settings(ctx, "team-a", "nightly"); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "Volcano's CronJob") {
		t.Errorf("a launcher's settings of a Volcano schedule: %v", err)
	}
	made, err := c.Trigger(ctx, "team-a", "nightly")
	if err != nil || made != "job vcjob/nightly-20261127-000000" {
		t.Fatalf("trigger: %q, %v", made, err)
	}
	job, err := dyn.Resource(volcanoJobs).Namespace("team-a").Get(ctx, "nightly-20261127-000000", metav1.GetOptions{})
	if err != nil || job.GetLabels()[Label] != "nightly" || job.GetOwnerReferences()[0].Name != "nightly" || job.GetAnnotations()["cronjob.kubernetes.io/instantiate"] != "manual" {
		t.Errorf("the triggered job: %v, %v", job, err)
	}
	if err := c.Delete(ctx, "team-a", "nightly"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "team-a", "nightly"); exit.Code(err) != exit.NotFound {
		t.Errorf("get after delete: %v", err)
	}
}

// TestManualNames: a launcher Job's name fits a Job's 63 characters
// whatever the schedule's name (at most 52).
func TestManualNames(t *testing.T) {
	at := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	if got := manualName("nightly", at); got != "nightly-manual-1795737600" {
		t.Errorf("short: %s", got)
	}
	long := strings.Repeat("n", 52)
	if got := manualName(long, at); len(got) > 63 || !strings.HasPrefix(got, long+"-m") {
		t.Errorf("long: %s (%d)", got, len(got))
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzSummarizeVolcano: a Volcano CronJob is anyone's with edit rights in
// the namespace to write; whatever it holds, summarizing it neither panics
// nor lets a line break into list's table.
func FuzzSummarizeVolcano(f *testing.F) {
	cj, _ := RenderVolcano(&Spec{Name: "n", Namespace: "ns", Schedule: "0 2 * * *", Concurrency: Forbid, Backend: BackendVolcano}, renderedJob())
	seed, _ := json.Marshal(cj.Object)
	f.Add(seed)
	f.Add([]byte(`{"spec":{"schedule":"0 2 * * *\n\u001b[31m","timeZone":7,"suspend":"yes","successfulJobsHistoryLimit":-5},"status":{"lastScheduleTime":"not a time"}}`))
	f.Add([]byte(`{"metadata":{"annotations":{"easyai.io/user":"a\rb"}},"spec":{"timeZone":"../../etc/passwd","schedule":"@every 1s"}}`))
	c := &Client{Now: func() time.Time { return time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC) }}
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]any
		if json.Unmarshal(data, &obj) != nil {
			return
		}
		s := c.summarizeVolcano(&unstructured.Unstructured{Object: obj})
		for _, v := range []string{s.Schedule, s.TimeZone, s.Concurrency, s.User} {
			if strings.ContainsAny(v, "\n\r\x1b") {
				t.Errorf("a field with a control character: %q", v)
			}
		}
	})
}
