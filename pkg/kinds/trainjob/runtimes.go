package trainjob

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Runtime is one training runtime a TrainJob may name, as "easyai
// runtimes" shows it.
type Runtime struct {
	Name string `json:"name"`
	// Kind is ClusterTrainingRuntime or TrainingRuntime; Namespace is the
	// latter's.
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	// Framework is the runtime's trainer.kubeflow.org/framework label.
	Framework string `json:"framework,omitempty"`
	// Nodes is spec.mlPolicy.numNodes, the nodes of a job that sets none;
	// nil when the runtime does not say.
	Nodes *int64 `json:"nodes,omitempty"`
	// Gang is the plugin of its podGroupPolicy ("" when it has none):
	// whether --gang can be honoured on it.
	Gang    string    `json:"gang,omitempty"`
	Created time.Time `json:"created"`
}

// Ref is how --runtime names it.
func (r Runtime) Ref() string {
	if r.Kind == RuntimeKind {
		return "trainingruntime/" + r.Name
	}
	return r.Name
}

// ErrNoTrainer is a cluster that serves no training runtimes: Kubeflow
// Trainer v2 is not installed.
var ErrNoTrainer = errors.New("Kubeflow Trainer v2 is not installed on this cluster (it serves no trainer.kubeflow.org API)")

// ListRuntimes lists the ClusterTrainingRuntimes and the TrainingRuntimes
// of namespace. A list the user may not read is left out with a note (a
// user whose rights end at a namespace may not list cluster-wide objects);
// ErrNoTrainer when the cluster serves neither.
func ListRuntimes(ctx context.Context, dyn dynamic.Interface, namespace string) (runtimes []Runtime, notes []string, err error) {
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
func RuntimeOf(obj *unstructured.Unstructured, kind string) Runtime {
	r := Runtime{
		Name: obj.GetName(), Kind: kind, Framework: jobmodel.OneLine(obj.GetLabels()[FrameworkLabel]),
		Gang: jobmodel.OneLine(GangPlugin(obj)), Created: obj.GetCreationTimestamp().Time,
	}
	if kind == RuntimeKind {
		r.Namespace = obj.GetNamespace()
	}
	if n, found, err := unstructured.NestedInt64(obj.Object, "spec", "mlPolicy", "numNodes"); found && err == nil {
		r.Nodes = &n
	}
	return r
}
