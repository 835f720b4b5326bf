package serving

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Workload is a serving as the logs engine reads it (logs.Workload): the
// pods of every version, or of one, each named by its pod; it never ends,
// so that following its logs lasts until it is interrupted.
type Workload struct {
	// Serving is the serving's name; Version, when set, one version.
	Serving, Version string
}

// Name is what messages call it.
func (w Workload) Name() string { return "serving" }

// Resource is where the object followed is: a version's Deployment.
func (w Workload) Resource() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
}

// PodSelector selects the serving's pods (of Version, when set), whatever
// Deployment the engine names.
func (w Workload) PodSelector(string) string {
	if w.Version != "" {
		return Label + "=" + w.Serving + "," + VersionLabel + "=" + w.Version
	}
	return Label + "=" + w.Serving
}

// Replicas are the pods, each its own replica named by the pod.
func (w Workload) Replicas(_ *unstructured.Unstructured, pods []corev1.Pod) ([]jobmodel.Replica, error) {
	out := make([]jobmodel.Replica, 0, len(pods))
	for i := range pods {
		p := podOf(&pods[i])
		out = append(out, jobmodel.Replica{Task: p.Name, Role: p.Version, Pod: p.Name, Phase: string(pods[i].Status.Phase), Node: p.Node, Restarts: p.Restarts})
	}
	return out, nil
}

// Summarize says a serving runs: it has no end for logs -f to wait for.
func (w Workload) Summarize(*unstructured.Unstructured, corev1.ResourceName) (jobmodel.Summary, error) {
	return jobmodel.Summary{Status: jobmodel.Status{State: jobmodel.Running}}, nil
}
