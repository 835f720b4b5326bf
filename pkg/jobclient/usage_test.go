package jobclient_test

import (
	"context"
	"math"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// TestUsageOf: the running jobs by GPUs held, GPU-hours from their start;
// with a window, the jobs that ran in it too, counted within it.
func TestUsageOf(t *testing.T) {
	tf := kind(t, "tf")
	at := func(ago time.Duration) *time.Time { v := now.Add(-ago); return &v }
	job := func(name string, state jobmodel.State, gpus float64, started, finished *time.Time) jobclient.Listed {
		return jobclient.Listed{Kind: tf, Summary: jobmodel.Summary{Name: name, Namespace: "team-a", Status: jobmodel.Status{State: state},
			GPUs: gpus, Started: started, Finished: finished}}
	}
	jobs := []jobclient.Listed{
		job("big", jobmodel.Running, 8, at(2*time.Hour), nil),
		job("small", jobmodel.Running, 1, at(30*time.Hour), nil),
		job("queued", jobmodel.Queued, 16, nil, nil),
		// 4 GPUs for 10 hours, ended 1 hour ago.
		job("done", jobmodel.Succeeded, 4, at(11*time.Hour), at(time.Hour)),
		// Ended before the window.
		job("old", jobmodel.Failed, 2, at(50*time.Hour), at(49*time.Hour)),
		// Ended within the second it started (the status's times are
		// whole seconds): in the window, with no GPU-hours.
		job("instant", jobmodel.Failed, 2, at(3*time.Hour), at(3*time.Hour)),
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

	got := jobclient.UsageOf(jobs, now, 0)
	if got.Kind != "JobUsageList" || got.Since != nil || len(got.Items) != 2 {
		t.Fatalf("usage %+v", got)
	}
	if a, b := got.Items[0], got.Items[1]; a.Name != "big" || a.GPUsHeld != 8 || !near(a.GPUHours, 16) || a.RunningSeconds != 7200 ||
		b.Name != "small" || b.GPUsHeld != 1 || !near(b.GPUHours, 30) {
		t.Errorf("items %+v", got.Items)
	}
	if got.Total.GPUsHeld != 9 || !near(got.Total.GPUHours, 46) {
		t.Errorf("total %+v", got.Total)
	}

	// The last 24 hours: small's 30 hours count as 24, done's 10 hours
	// (40 GPU-hours) count, instant is there with none; old is not.
	got = jobclient.UsageOf(jobs, now, 24*time.Hour)
	if got.Since == nil || !got.Since.Equal(now.Add(-24*time.Hour)) || len(got.Items) != 4 {
		t.Fatalf("usage %+v", got)
	}
	names := []string{got.Items[0].Name, got.Items[1].Name, got.Items[2].Name, got.Items[3].Name}
	if names[0] != "big" || names[1] != "small" || names[2] != "done" || names[3] != "instant" {
		t.Errorf("order %v, want big, small (GPUs held), then done, instant", names)
	}
	if i := got.Items[3]; i.GPUHours != 0 || i.RunningSeconds != 0 || i.State != jobmodel.Failed {
		t.Errorf("instant %+v", i)
	}
	if s, d := got.Items[1], got.Items[2]; !near(s.GPUHours, 24) || s.RunningSeconds != 24*3600 || !near(d.GPUHours, 40) || d.GPUsHeld != 0 {
		t.Errorf("small %+v, done %+v", s, d)
	}
	if !near(got.Total.GPUHours, 16+24+40) {
		t.Errorf("total %+v", got.Total)
	}

	// No job: an empty list, not null.
	if got := jobclient.UsageOf(nil, now, 0); got.Items == nil || len(got.Items) != 0 {
		t.Errorf("no jobs: %+v", got)
	}
}

// TestJobPodUsage: the metrics API's pod usage by job, from the pods'
// labels; nil without the API.
func TestJobPodUsage(t *testing.T) {
	metrics := func(ns, name string, labels map[string]any, usage ...string) *unstructured.Unstructured {
		var containers []any
		for i := 0; i < len(usage); i += 2 {
			containers = append(containers, map[string]any{"name": "c", "usage": map[string]any{"cpu": usage[i], "memory": usage[i+1]}})
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "metrics.k8s.io/v1beta1", "kind": "PodMetrics",
			"metadata": map[string]any{"namespace": ns, "name": name, "labels": labels}, "containers": containers}}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{jobclient.PodMetrics: "PodMetricsList"})
	for _, m := range []*unstructured.Unstructured{
		metrics("team-a", "mnist-worker-0", map[string]any{"easyai.io/job-name": "mnist", "easyai.io/kind": "tf"}, "1", "1Gi", "500m", "1Gi"),
		metrics("team-a", "mnist-worker-1", map[string]any{"easyai.io/job-name": "mnist"}, "2", "2Gi"),
		metrics("team-a", "other-0", map[string]any{"training.kubeflow.org/job-name": "other"}, "250m", "1Mi"),
		metrics("team-a", "lonely", nil, "8", "8Gi"),
	} {
		if err := dyn.Tracker().Create(jobclient.PodMetrics, m, "team-a"); err != nil {
			t.Fatal(err)
		}
	}
	got := (&jobclient.Client{Dynamic: dyn}).JobPodUsage(context.Background(), "team-a")
	if len(got) != 2 || got["team-a/mnist"] != (jobclient.PodUsage{CPU: 3.5, Memory: 4 << 30}) || got["team-a/other"].CPU != 0.25 {
		t.Errorf("usage %+v", got)
	}
	none := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{jobclient.PodMetrics: "PodMetricsList"})
	none.PrependReactor("list", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Group: "metrics.k8s.io", Resource: "pods"}, "")
	})
	if got := (&jobclient.Client{Dynamic: none}).JobPodUsage(context.Background(), ""); got != nil {
		t.Errorf("without the metrics API: %+v", got)
	}
}
