package trainjob

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// ErrNoTrainer is a cluster that serves no training runtimes: Kubeflow
// Trainer v2 is not installed. It is a kinds.ErrNoRuntimes (errors.Is).
var ErrNoTrainer error = noTrainer{}

type noTrainer struct{}

func (noTrainer) Error() string {
	return "Kubeflow Trainer v2 is not installed on this cluster (it serves no trainer.kubeflow.org API)"
}

// Is makes it a kinds.ErrNoRuntimes.
func (noTrainer) Is(target error) bool { return target == kinds.ErrNoRuntimes }

// ListRuntimes implements kinds.RuntimeLister: the ClusterTrainingRuntimes
// and the TrainingRuntimes of namespace. A list the user may not read is
// left out with a note (a user whose rights end at a namespace may not list
// cluster-wide objects); ErrNoTrainer when the cluster serves neither.
func (Kind) ListRuntimes(ctx context.Context, dyn dynamic.Interface, namespace string) (runtimes []kinds.Runtime, notes []string, err error) {
	missing := 0
	for _, l := range []struct {
		kind string
		list func() (*unstructured.UnstructuredList, error)
	}{
		{ClusterRuntimeKind, func() (*unstructured.UnstructuredList, error) {
			return dyn.Resource(ClusterRuntimes).List(ctx, metav1.ListOptions{})
		}},
		{RuntimeKind, func() (*unstructured.UnstructuredList, error) {
			return dyn.Resource(Runtimes).Namespace(namespace).List(ctx, metav1.ListOptions{})
		}},
	} {
		list, err := l.list()
		switch {
		case apierrors.IsNotFound(err):
			missing++
			continue
		case apierrors.IsForbidden(err):
			where := "cluster-wide"
			if l.kind == RuntimeKind {
				where = "in namespace " + namespace
			}
			notes = append(notes, fmt.Sprintf("%ss not shown: you may not list them %s", l.kind, where))
			continue
		case err != nil:
			return nil, nil, fmt.Errorf("listing %ss: %w", l.kind, err)
		}
		for i := range list.Items {
			runtimes = append(runtimes, RuntimeOf(&list.Items[i], l.kind))
		}
	}
	if missing == 2 {
		return nil, nil, ErrNoTrainer
	}
	sort.SliceStable(runtimes, func(i, j int) bool {
		if runtimes[i].Kind != runtimes[j].Kind {
			return runtimes[i].Kind == ClusterRuntimeKind
		}
		return runtimes[i].Name < runtimes[j].Name
	})
	return runtimes, notes, nil
}

// RuntimeOf reads what "easyai runtimes" shows of a runtime object.
func RuntimeOf(obj *unstructured.Unstructured, kind string) kinds.Runtime {
	r := kinds.Runtime{
		Name: obj.GetName(), Kind: kind, Framework: jobmodel.OneLine(obj.GetLabels()[FrameworkLabel]),
		Gang: jobmodel.OneLine(GangPlugin(obj)), Created: obj.GetCreationTimestamp().Time,
		Ref: obj.GetName(),
	}
	if kind == RuntimeKind {
		// --runtime's name for it (ParseRuntime).
		r.Namespace, r.Namespaced, r.Ref = obj.GetNamespace(), true, "trainingruntime/"+obj.GetName()
	}
	if n, found, err := unstructured.NestedInt64(obj.Object, "spec", "mlPolicy", "numNodes"); found && err == nil {
		r.Nodes = &n
	}
	return r
}
