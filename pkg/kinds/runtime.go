package kinds

import "time"

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
	// namespace's runtime from the cluster's; neither is a field of the
	// -o json document.
	Ref        string `json:"-"`
	Namespaced bool   `json:"-"`
}
