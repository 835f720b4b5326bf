// Package queuetest is the fake cluster of the queue commands' tests.
package queuetest

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/queue"
)

// Cluster is a fake cluster with queue research (capability 16 GPUs, 2 allocated) with a running
// gang and one that waits, whose message spans lines; queue default.
func Cluster(t testing.TB) *dynamicfake.FakeDynamicClient {
	t.Helper()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{queue.Queues: "QueueList", queue.PodGroups: "PodGroupList"})
	objs := map[schema.GroupVersionResource][]map[string]any{
		queue.Queues: {
			{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": map[string]any{"name": "research"},
				"spec":   map[string]any{"weight": int64(4), "capability": map[string]any{"nvidia.com/gpu": "16", "cpu": "200", "memory": "1Ti"}},
				"status": map[string]any{"state": "Open", "running": int64(1), "pending": int64(1), "inqueue": int64(1), "allocated": map[string]any{"nvidia.com/gpu": "2", "cpu": "4500m", "memory": "8Gi"}}},
			{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": map[string]any{"name": "default"},
				"spec": map[string]any{"weight": int64(1)}, "status": map[string]any{"state": "Open"}},
		},
		queue.PodGroups: {
			{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
				"metadata": map[string]any{"namespace": "team-a", "name": "mnist-pg", "ownerReferences": []any{map[string]any{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": "mnist", "uid": "u", "controller": true}}},
				"spec":     map[string]any{"queue": "research", "minMember": int64(2)}, "status": map[string]any{"phase": "Running", "running": int64(2)}},
			{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
				"metadata": map[string]any{"namespace": "team-a", "name": "big-pg"},
				"spec":     map[string]any{"queue": "research", "minMember": int64(4)},
				"status": map[string]any{"phase": "Pending", "conditions": []any{map[string]any{"type": "Unschedulable", "status": "True",
					"reason": "NotEnoughResources", "message": "queue resource quota insufficient\n\x1b[31mred"}}}},
		},
	}
	for gvr, list := range objs {
		for _, o := range list {
			u := &unstructured.Unstructured{Object: o}
			if err := dyn.Tracker().Create(gvr, u, u.GetNamespace()); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dyn
}

// Execute runs "queue ARGS...", queue holding only verb, as the root mounts
// it, its output and errors on f's stderr.
func Execute(f *cmdutil.Factory, verb *cobra.Command, args ...string) error {
	cmd := &cobra.Command{Use: "queue"}
	cmd.AddCommand(verb)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}
