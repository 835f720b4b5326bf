package trainjob_test

import (
	"errors"
	"reflect"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/trainjob"
)

var _ kinds.RuntimeLister = trainjob.New()

func runtimeObject(kind, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": trainjob.GroupVersion.String(), "kind": kind,
		"metadata": map[string]any{"name": name, "labels": map[string]any{trainjob.FrameworkLabel: "torch"}},
		"spec":     spec,
	}}
	if namespace != "" {
		obj.SetNamespace(namespace)
	}
	return obj
}

func fakeRuntimes(objs ...k8sruntime.Object) *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(k8sruntime.NewScheme(), map[schema.GroupVersionResource]string{
		trainjob.ClusterRuntimes: "ClusterTrainingRuntimeList", trainjob.Runtimes: "TrainingRuntimeList",
	}, objs...)
}

// TestListRuntimes: the cluster's runtimes first, then the namespace's, each
// with the name --runtime takes; a list the user may not read is a note,
// and a cluster that serves neither is kinds.ErrNoRuntimes.
func TestListRuntimes(t *testing.T) {
	dyn := fakeRuntimes(
		runtimeObject(trainjob.RuntimeKind, "team-a", "mine", map[string]any{"podGroupPolicy": map[string]any{"volcano": map[string]any{}}}),
		runtimeObject(trainjob.ClusterRuntimeKind, "", "torch-distributed", map[string]any{"mlPolicy": map[string]any{"numNodes": int64(2)}}),
		runtimeObject(trainjob.RuntimeKind, "team-b", "theirs", nil),
	)
	got, notes, err := trainjob.New().ListRuntimes(t.Context(), dyn, "team-a")
	if err != nil || len(notes) != 0 || len(got) != 2 {
		t.Fatalf("runtimes %+v, notes %q, %v; want 2, no notes", got, notes, err)
	}
	two := int64(2)
	if want := (kinds.Runtime{Name: "torch-distributed", Kind: trainjob.ClusterRuntimeKind, Framework: "torch", Nodes: &two, Ref: "torch-distributed"}); !reflect.DeepEqual(got[0], want) {
		t.Errorf("the cluster's runtime: %+v, want %+v", got[0], want)
	}
	if want := (kinds.Runtime{Name: "mine", Kind: trainjob.RuntimeKind, Namespace: "team-a", Framework: "torch", Gang: "volcano",
		Ref: "trainingruntime/mine", Namespaced: true}); !reflect.DeepEqual(got[1], want) {
		t.Errorf("the namespace's runtime: %+v, want %+v", got[1], want)
	}

	dyn = fakeRuntimes()
	dyn.PrependReactor("list", "clustertrainingruntimes", func(clienttesting.Action) (bool, k8sruntime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: trainjob.GroupVersion.Group, Resource: "clustertrainingruntimes"}, "", errors.New("no"))
	})
	_, notes, err = trainjob.New().ListRuntimes(t.Context(), dyn, "team-a")
	if err != nil || !reflect.DeepEqual(notes, []string{"ClusterTrainingRuntimes not shown: you may not list them cluster-wide"}) {
		t.Errorf("a forbidden list: notes %q, %v", notes, err)
	}

	dyn = fakeRuntimes()
	dyn.PrependReactor("list", "*", func(a clienttesting.Action) (bool, k8sruntime.Object, error) {
		return true, nil, apierrors.NewNotFound(a.GetResource().GroupResource(), "")
	})
	_, _, err = trainjob.New().ListRuntimes(t.Context(), dyn, "team-a")
	if !errors.Is(err, kinds.ErrNoRuntimes) || !errors.Is(err, trainjob.ErrNoTrainer) ||
		err.Error() != "Kubeflow Trainer v2 is not installed on this cluster (it serves no trainer.kubeflow.org API)" {
		t.Errorf("no trainer: %v", err)
	}
}
