package queue

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
)

func queueObject(name string, spec, status map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
		"metadata": map[string]any{"name": name}, "spec": spec, "status": status,
	}}
}

func podGroupObject(ns, name, queue, phase string, owner string, conditions ...any) *unstructured.Unstructured {
	meta := map[string]any{"namespace": ns, "name": name}
	if owner != "" {
		meta["ownerReferences"] = []any{map[string]any{"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "name": owner, "uid": "u", "controller": true}}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup", "metadata": meta,
		"spec":   map[string]any{"queue": queue, "minMember": int64(2), "minResources": map[string]any{"nvidia.com/gpu": "2"}},
		"status": map[string]any{"phase": phase, "running": int64(0), "conditions": conditions},
	}}
}

func fakeClient(t *testing.T, objs ...*unstructured.Unstructured) *dynamicfake.FakeDynamicClient {
	t.Helper()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{Queues: "QueueList", PodGroups: "PodGroupList"})
	for _, o := range objs {
		gvr := Queues
		if o.GetKind() == "PodGroup" {
			gvr = PodGroups
		}
		if err := dyn.Tracker().Create(gvr, o, o.GetNamespace()); err != nil {
			t.Fatal(err)
		}
	}
	return dyn
}

func TestListAndGet(t *testing.T) {
	dyn := fakeClient(t,
		queueObject("research", map[string]any{"weight": int64(4), "capability": map[string]any{"nvidia.com/gpu": "16", "cpu": "200"},
			"deserved": map[string]any{"nvidia.com/gpu": "8"}, "guarantee": map[string]any{"resource": map[string]any{"nvidia.com/gpu": "2"}}},
			map[string]any{"state": "Open", "running": int64(1), "pending": int64(1), "inqueue": int64(2), "allocated": map[string]any{"nvidia.com/gpu": "2", "cpu": "4"}}),
		queueObject("default", map[string]any{"weight": int64(1)}, map[string]any{}),
		podGroupObject("team-a", "mnist-pg", "research", "Running", "mnist"),
		podGroupObject("team-a", "big-pg", "research", "Pending", "big",
			map[string]any{"type": "Unschedulable", "status": "True", "reason": "NotEnoughResources", "message": "queue resource\nquota insufficient"}),
		podGroupObject("team-a", "other-pg", "default", "Running", "other"),
		podGroupObject("team-b", "b-pg", "research", "Running", "b"),
	)
	c := &Client{Dynamic: dyn}
	list, err := c.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if list.Kind != "QueueList" || len(list.Items) != 2 || list.Items[0].Name != "default" || list.Items[0].State != "Unknown" {
		t.Fatalf("list %+v", list)
	}
	want := Queue{Name: "research", State: "Open", Weight: 4, Capability: Resources{"nvidia.com/gpu": "16", "cpu": "200"},
		Deserved: Resources{"nvidia.com/gpu": "8"}, Guarantee: Resources{"nvidia.com/gpu": "2"}, Allocated: Resources{"nvidia.com/gpu": "2", "cpu": "4"},
		Running: 1, Pending: 1, Inqueue: 2}
	if !reflect.DeepEqual(list.Items[1], want) {
		t.Errorf("research %+v\nwant %+v", list.Items[1], want)
	}
	if n, ok := want.Capability.Quantity("cpu"); !ok || n != 200 {
		t.Errorf("Quantity(cpu) = %v, %v", n, ok)
	}
	if _, ok := want.Capability.Quantity("memory"); ok {
		t.Error("Quantity(memory) of no memory: ok")
	}

	q, refused, err := c.Get(context.Background(), "research", "team-a")
	if err != nil || refused != nil {
		t.Fatal(err, refused)
	}
	wantGroups := []PodGroup{
		{Namespace: "team-a", Name: "big-pg", Job: "Job/big", Phase: "Pending", MinMember: 2, Requests: Resources{"nvidia.com/gpu": "2"},
			Reason: "NotEnoughResources", Message: "queue resource\nquota insufficient"},
		{Namespace: "team-a", Name: "mnist-pg", Job: "Job/mnist", Phase: "Running", MinMember: 2, Requests: Resources{"nvidia.com/gpu": "2"}},
	}
	if !reflect.DeepEqual(q.PodGroups, wantGroups) {
		t.Errorf("pod groups %+v\nwant %+v", q.PodGroups, wantGroups)
	}
	q, _, err = c.Get(context.Background(), "research", "")
	if err != nil || len(q.PodGroups) != 3 {
		t.Errorf("every namespace: %v %+v", err, q)
	}
}

func TestGetErrors(t *testing.T) {
	dyn := fakeClient(t, queueObject("research", map[string]any{}, map[string]any{}), queueObject("default", map[string]any{}, map[string]any{}))
	c := &Client{Dynamic: dyn}
	_, _, err := c.Get(context.Background(), "nope", "team-a")
	if exit.Code(err) != exit.NotFound || err.Error() != `no Volcano queue "nope"` || exit.Hint(err) != "the queues are: [default research]" {
		t.Errorf("no such queue: %v (exit %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}

	// PodGroups refused: the queue, and one line.
	dyn.PrependReactor("list", "podgroups", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "podgroups"}, "", errors.New("no"))
	})
	q, refused, err := c.Get(context.Background(), "research", "team-a")
	if err != nil || q == nil || refused == nil || refused.Error() != "cannot list podgroups in namespace team-a: forbidden; the queue's jobs are not shown" {
		t.Errorf("podgroups refused: %v, %v, %+v", err, refused, q)
	}

	// Queues refused, or not served.
	for _, tc := range []struct {
		err  error
		want string
		hint string
	}{
		{apierrors.NewForbidden(schema.GroupResource{Group: "scheduling.volcano.sh", Resource: "queues"}, "", errors.New("no")), "cannot list queues: forbidden", "ask your cluster admin"},
		{apierrors.NewGenericServerResponse(404, "GET", schema.GroupResource{}, "", "404 page not found", 0, true), "cannot list queues: this cluster serves no Volcano queues", "without Volcano"},
	} {
		dyn := fakeClient(t)
		dyn.PrependReactor("list", "queues", func(clienttesting.Action) (bool, runtime.Object, error) { return true, nil, tc.err })
		_, err := (&Client{Dynamic: dyn}).List(context.Background())
		if exit.Code(err) != exit.Error || !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(exit.Hint(err), tc.hint) {
			t.Errorf("list: %v (hint %q), want %q", err, exit.Hint(err), tc.want)
		}
	}
}
