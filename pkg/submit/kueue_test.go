package submit

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
	"github.com/easyai-dev/easyai/pkg/kinds/volcano"
	"github.com/easyai-dev/easyai/pkg/kueue"
)

// kueueSubmission is a submission to namespace team-a, which has the
// LocalQueue lq, on a cluster with the WorkloadPriorityClass urgent (and the
// Volcano queue research).
func kueueSubmission(t *testing.T, localQueues bool) (*Submission, *strings.Builder) {
	t.Helper()
	objs := []runtime.Object{clusterObject("kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass", "urgent"),
		clusterObject("scheduling.volcano.sh/v1beta1", "Queue", "research")}
	if localQueues {
		lq := clusterObject("kueue.x-k8s.io/v1beta2", "LocalQueue", "lq")
		lq.SetNamespace("team-a")
		objs = append(objs, lq)
	}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		Queues: "QueueList", PriorityClasses: "PriorityClassList", kueue.LocalQueues: "LocalQueueList", kueue.WorkloadPriorityClasses: "WorkloadPriorityClassList",
	}, objs...)
	var notes strings.Builder
	s := &Submission{JobRequest: JobRequest{DryRun: DryRunServer, Notes: &notes}, Namespace: "team-a",
		Dynamic: func() (dynamic.Interface, error) { return client, nil },
		Served:  func(context.Context, schema.GroupVersionResource) (bool, error) { return true, nil }}
	return s, &notes
}

// TestQueueOfKueue: where the namespace has LocalQueues, --queue names one
// and --priority a WorkloadPriorityClass: the job gets Kueue's labels (on
// itself only) instead of Volcano's queue and the pods' PriorityClass.
// Elsewhere --queue is Volcano's; --queue-system says which.
func TestQueueOfKueue(t *testing.T) {
	ctx := context.Background()
	s, _ := kueueSubmission(t, true)
	req := &Request{Kind: tfjob.New(), Values: map[string]any{}}
	if err := s.place(ctx, req, placement("lq", "urgent")); err != nil {
		t.Fatal(err)
	}
	rp, _ := req.Values["runPolicy"].(map[string]any)
	if req.JobLabels[kueue.QueueLabel] != "lq" || req.JobLabels[kueue.PriorityLabel] != "urgent" || rp["queue"] != "" || req.Values["priorityClassName"] != "" {
		t.Errorf("placed on Kueue: labels %v, values %v", req.JobLabels, req.Values)
	}
	for values, want := range map[*map[string]any]string{
		ptr(placement("nope", "")):   `--queue nope: namespace team-a has no LocalQueue "nope" (it has: lq)`,
		ptr(placement("lq", "nope")): `--priority nope: the cluster has no WorkloadPriorityClass "nope" (it has: urgent)`,
		ptr(map[string]any{"runPolicy": map[string]any{"queue": "lq", "gang": true}}): "--gang is Volcano's gang scheduling",
	} {
		if err := s.place(ctx, &Request{Kind: tfjob.New(), Values: map[string]any{}}, *values); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want %s", *values, err, want)
		}
	}
	if err := s.place(ctx, &Request{Kind: volcano.New(), Values: map[string]any{}}, placement("lq", "")); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "Kueue admits no volcano job") {
		t.Errorf("a Volcano Job for a LocalQueue: %v", err)
	}

	// No LocalQueue in the namespace: a Volcano queue.
	s, _ = kueueSubmission(t, false)
	req = &Request{Kind: tfjob.New(), Values: map[string]any{}}
	if err := s.place(ctx, req, placement("research", "")); err != nil || len(req.JobLabels) != 0 {
		t.Errorf("a Volcano queue: %v, labels %v", err, req.JobLabels)
	}
	// A Kueue of the old API only: said, and taken as Volcano's.
	old, notes := kueueSubmission(t, true)
	old.Served = func(_ context.Context, gvr schema.GroupVersionResource) (bool, error) {
		return gvr == kueue.OldLocalQueues, nil
	}
	req = &Request{Kind: tfjob.New(), Values: map[string]any{}}
	if err := old.place(ctx, req, placement("research", "")); err != nil || len(req.JobLabels) != 0 || !strings.Contains(notes.String(), "serves only its v1beta1 API") {
		t.Errorf("Kueue v1beta1 only: %v, labels %v, notes %q", err, req.JobLabels, notes.String())
	}
	// --queue-system says which, and is checked.
	s.Flags.QueueSystem = "kueue"
	if err := s.place(ctx, &Request{Kind: tfjob.New(), Values: map[string]any{}}, placement("research", "")); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `has no LocalQueue "research" (it has: none)`) {
		t.Errorf("--queue-system kueue: %v", err)
	}
	s.Flags.QueueSystem = "slurm"
	if err := s.place(ctx, &Request{Kind: tfjob.New(), Values: map[string]any{}}, placement("research", "")); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `--queue-system "slurm": kueue or volcano`) {
		t.Errorf("--queue-system slurm: %v", err)
	}
}
