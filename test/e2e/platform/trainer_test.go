//go:build e2e

package platform

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
)

var trainJobs = schema.GroupVersionResource{Group: "trainer.kubeflow.org", Version: "v1alpha1", Resource: "trainjobs"}

// trainerOrSkip skips unless the cluster runs Kubeflow Trainer v2
// (EASYAI_CLUSTER_COMPONENTS=...,trainer; docs/development.md).
func trainerOrSkip(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	if _, err := c.Kube.Discovery().ServerResourcesForGroupVersion(trainJobs.GroupVersion().String()); err != nil {
		t.Skipf("the cluster does not run Kubeflow Trainer v2 (start it with EASYAI_CLUSTER_COMPONENTS=training-operator,trainer): %v", err)
	}
}

// noRetries is a TrainingRuntime of the namespace like torch-distributed
// whose Jobs do not retry a failed pod (backoffLimit 0), so that a failing
// TrainJob fails at once.
func noRetries(ns string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
		"metadata": map[string]any{"name": "torch-no-retries", "namespace": ns,
			"labels": map[string]any{"trainer.kubeflow.org/framework": "torch"}},
		"spec": map[string]any{
			"mlPolicy": map[string]any{"numNodes": int64(1), "torch": map[string]any{}},
			"template": map[string]any{"spec": map[string]any{"replicatedJobs": []any{map[string]any{
				"name": "node",
				"template": map[string]any{
					"metadata": map[string]any{"labels": map[string]any{"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
					"spec": map[string]any{"backoffLimit": int64(0), "template": map[string]any{"spec": map[string]any{
						"containers": []any{map[string]any{"name": "node", "image": "example.com/train:1"}},
					}}},
				},
			}}}},
		},
	}}
}

var trainingRuntimes = schema.GroupVersionResource{Group: "trainer.kubeflow.org", Version: "v1alpha1", Resource: "trainingruntimes"}

// trainJob is a TrainJob on runtime (a ClusterTrainingRuntime, or with
// kind TrainingRuntime one of the namespace) whose nodes end with code after
// running for d (the fake nodes read it from the environment).
func trainJob(ns, name, kind, runtime string, nodes int64, code string, d time.Duration) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"runtimeRef": map[string]any{"name": runtime, "kind": kind, "apiGroup": "trainer.kubeflow.org"},
			"trainer": map[string]any{
				"numNodes": nodes, "image": "example.com/train:1", "command": []any{"torchrun", "train.py"},
				"env": []any{
					map[string]any{"name": cluster.ExitCodeEnv, "value": code},
					map[string]any{"name": cluster.RunForEnv, "value": d.String()},
				},
			},
		},
	}}
}

// condition is the status of a TrainJob's condition type ("" when absent).
func condition(obj *unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			s, _ := m["status"].(string)
			return s
		}
	}
	return ""
}

// TestTrainJobRunsToCompletion: the trainer makes a JobSet, the JobSet
// controller its Job, the Job controller the pods (one per node, run by
// kwok), and a clean exit of every node completes the TrainJob; an exit 3
// fails it.
func TestTrainJobRunsToCompletion(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	trainerOrSkip(t, c)
	ns := c.Namespace(t)
	ctx := cluster.Context(t, 3*time.Minute)
	client := c.Dynamic.Resource(trainJobs).Namespace(ns)
	if _, err := c.Dynamic.Resource(trainingRuntimes).Namespace(ns).Create(ctx, noRetries(ns), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Create(ctx, trainJob(ns, "ok", "ClusterTrainingRuntime", "torch-distributed", 3, "0", 30*time.Second), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Create(ctx, trainJob(ns, "bad", "TrainingRuntime", "torch-no-retries", 2, "3", 2*time.Second), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cluster.Eventually(t, 90*time.Second, "3 running pods of TrainJob ok", func(ctx context.Context) (bool, error) {
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "jobset.sigs.k8s.io/jobset-name=ok"})
		if err != nil {
			return false, err
		}
		running := 0
		for _, p := range pods.Items {
			if p.Status.Phase == "Running" {
				running++
			}
		}
		return running == 3, nil
	})
	for name, want := range map[string]string{"ok": "Complete", "bad": "Failed"} {
		cluster.Eventually(t, 2*time.Minute, "TrainJob "+name+" "+want, func(ctx context.Context) (bool, error) {
			obj, err := client.Get(ctx, name, metav1.GetOptions{})
			return err == nil && condition(obj, want) == "True", err
		})
	}
}
