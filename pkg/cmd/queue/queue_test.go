package queue

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/queue"
)

// cluster: queue research (capability 16 GPUs, 2 allocated) with a running
// gang and one that waits, whose message spans lines; queue default.
func cluster(t *testing.T) *dynamicfake.FakeDynamicClient {
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

func execute(f *cmdutil.Factory, args ...string) error {
	cmd := NewCmdQueue(f)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestQueueList(t *testing.T) {
	f, stdout, _ := cmdutiltest.Factory(t, true, cluster(t), nil)
	if err := execute(f, "list"); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME       STATE   WEIGHT   GPUS   CPU       MEMORY            RUNNING   PENDING\n" +
		"default    Open    1        0/-    0/-       0 B/-             0         0\n" +
		"research   Open    4        2/16   4.5/200   8.0 GiB/1.0 TiB   1         2\n"
	if stdout.String() != want {
		t.Errorf("stdout\n%s\nwant\n%s", stdout, want)
	}
	f, stdout, _ = cmdutiltest.Factory(t, false, cluster(t), nil)
	if err := execute(f, "list", "-o", "name"); err != nil || stdout.String() != "default\nresearch\n" {
		t.Errorf("-o name: %v %q", err, stdout)
	}
	f, stdout, _ = cmdutiltest.Factory(t, false, cluster(t), nil)
	if err := execute(f, "list", "-o", "json"); err != nil || !strings.Contains(stdout.String(), `"kind": "QueueList"`) || !strings.Contains(stdout.String(), `"nvidia.com/gpu": "16"`) {
		t.Errorf("-o json: %v\n%s", err, stdout)
	}
}

func TestQueueGet(t *testing.T) {
	f, stdout, stderr := cmdutiltest.Factory(t, false, cluster(t), nil)
	if err := execute(f, "get", "research"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Name:     research\n", "Weight:   4\n", "Jobs:     1 running, 1 pending, 1 admitted and being placed\n",
		"  nvidia.com/gpu   2           16           -          -\n",
		"Jobs in namespace team-a:\n",
		"  Job/mnist   mnist-pg   Running   2     2         -\n",
		"  -           big-pg     Pending   4     0         NotEnoughResources: queue resource quota insufficient [31mred\n",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("get lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout.String(), "\x1b") || stderr.Len() != 0 {
		t.Errorf("an escape from the cluster reached the terminal, or stderr %q", stderr)
	}
	f, stdout, _ = cmdutiltest.Factory(t, false, cluster(t), nil)
	if err := execute(f, "get", "default", "-A", "-o", "json"); err != nil || !strings.Contains(stdout.String(), `"kind": "Queue"`) || !strings.Contains(stdout.String(), `"podGroups": []`) {
		t.Errorf("-o json: %v\n%s", err, stdout)
	}
	for args, want := range map[string]string{"get": "a queue name", "get a b": "a queue name", "list x": "takes no arguments", "get research -o wide": `-o "wide"`} {
		f, _, _ := cmdutiltest.Factory(t, false, cluster(t), nil)
		if err := execute(f, strings.Fields(args)...); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want exit 2 with %q", args, err, want)
		}
	}
	f, _, _ = cmdutiltest.Factory(t, false, cluster(t), nil)
	if err := execute(f, "get", "nope"); exit.Code(err) != exit.NotFound {
		t.Errorf("get nope: %v", err)
	}
}
