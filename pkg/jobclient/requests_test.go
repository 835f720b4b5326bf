package jobclient_test

import (
	"context"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// TestGetOfAThousandReplicasIsThreeRequests: what "easyai get tf/NAME"
// reads of a job of 1,000 workers, whatever its size: the job, its pods in
// one LIST, the namespace's Warning events in one LIST (a page holds 500).
// A target of docs/benchmarks.md, held as a count, not a time.
func TestGetOfAThousandReplicasIsThreeRequests(t *testing.T) {
	const workers = 1000
	t0 := jobclienttest.T0
	job := runningTFJob("big", workers)
	var objs []runtime.Object
	for i := 0; i < workers; i++ {
		objs = append(objs, jobclienttest.Pod("team-a", "big", "worker", i, corev1.PodRunning, t0))
	}
	for i := 0; i < 50; i++ {
		objs = append(objs, jobclienttest.Warning("team-a", "ev-"+string(rune('a'+i%26))+string(rune('a'+i/26)), "Pod", "big-worker-1", "BackOff", "restarting", 1, t0.Add(time.Minute)))
	}
	kube := kubefake.NewClientset(objs...)
	dyn := jobclienttest.Dynamic(job)
	c := &jobclient.Client{Dynamic: dyn, Kube: kube, Kinds: jobclienttest.Registry(), GPUResource: "nvidia.com/gpu"}
	tf, _ := c.Kinds.Lookup("tf")
	ctx := context.Background()
	k, obj, err := c.Find(ctx, "team-a", kinds.Ref{Kind: tf, Name: "big"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.Describe(ctx, k, obj)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Replicas) != workers || len(d.Events) == 0 {
		t.Fatalf("%d replicas, %d events", len(d.Replicas), len(d.Events))
	}
	requests := append(jobclienttest.Actions(dyn.Actions()), jobclienttest.Actions(kube.Actions())...)
	if len(requests) > 3 {
		t.Errorf("get of %d replicas made %d requests, want at most 3: %v", workers, len(requests), requests)
	}
}

// runningTFJob is a running TFJob of team-a with workers GPU workers, all
// active.
func runningTFJob(name string, workers int32) *unstructured.Unstructured {
	return jobclienttest.Job{Name: name, Created: jobclienttest.T0,
		Roles:      []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: workers, GPUs: 8, Active: workers}},
		Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning}}.Object()
}
