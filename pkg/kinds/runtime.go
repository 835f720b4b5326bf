package kinds

import (
	"context"
	"errors"
	"time"

	"k8s.io/client-go/dynamic"
)

// RuntimeLister is a Kind whose jobs run on runtimes the cluster defines (a
// TrainJob: the training runtimes of Kubeflow Trainer v2): "easyai
// runtimes" lists them, and submit completes --runtime with them.
type RuntimeLister interface {
	// ListRuntimes lists the cluster's runtimes and namespace's, with a note
	// for each list left out (one the user may not read). Its error is an
	// ErrNoRuntimes (errors.Is) when the cluster serves no runtimes at all.
	ListRuntimes(ctx context.Context, dyn dynamic.Interface, namespace string) (runtimes []Runtime, notes []string, err error)
}

// ErrNoRuntimes is what a RuntimeLister's error is when the cluster serves
// no runtimes at all: what defines them is not installed.
var ErrNoRuntimes = errors.New("the cluster serves no runtimes")

// Runtime is one runtime a job may run on, as "easyai runtimes" shows it.
type Runtime struct {
	Name string `json:"name"`
	// Kind is its API kind (ClusterTrainingRuntime, TrainingRuntime);
	// Namespace is a namespace's runtime's.
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	// Framework is what it runs (a training runtime's
	// trainer.kubeflow.org/framework label).
	Framework string `json:"framework,omitempty"`
	// Nodes are the nodes of a job that sets none (a training runtime's
	// spec.mlPolicy.numNodes); nil when the runtime does not say.
	Nodes *int64 `json:"nodes,omitempty"`
	// Gang is the plugin of its podGroupPolicy ("" when it has none):
	// whether --gang can be honoured on it.
	Gang    string    `json:"gang,omitempty"`
	Created time.Time `json:"created"`

	// Ref is how submit's --runtime names it, and Namespaced tells a
	// namespace's runtime from the cluster's; neither is printed as such.
	Ref        string `json:"-"`
	Namespaced bool   `json:"-"`
}

// RuntimeLister is the first registered kind that lists runtimes.
func (r *Registry) RuntimeLister() (RuntimeLister, bool) {
	for _, k := range r.kinds {
		if l, ok := k.(RuntimeLister); ok {
			return l, true
		}
	}
	return nil, false
}
