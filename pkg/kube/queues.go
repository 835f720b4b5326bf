package kube

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/easyai-dev/easyai/pkg/kueue"
)

// volcanoQueues are Volcano's queues (pkg/queue reads them; it imports
// this package).
var volcanoQueues = schema.GroupVersionResource{Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "queues"}

// QueueSystem is one queue system: whether the cluster serves it and what
// the user may read of it in the namespace.
type QueueSystem struct {
	Name      string `json:"name"`
	API       string `json:"api"`
	Installed bool   `json:"installed"`
	// Queues are those the user may see: the namespace's LocalQueues
	// (Kueue), the cluster's queues (Volcano).
	Queues []string `json:"queues"`
	// Note says what could not be read ("" when all was).
	Note string `json:"note,omitempty"`
}

// QueueSystems reports Volcano's queues and Kueue's LocalQueues of
// namespace, and which of them --queue names there (docs/capacity.md:
// Kueue where the namespace has a LocalQueue).
func QueueSystems(ctx context.Context, kc kubernetes.Interface, dyn dynamic.Interface, namespace string) (systems []QueueSystem, queueMeans string) {
	queueMeans = "volcano"
	for _, s := range []struct {
		name string
		gvr  schema.GroupVersionResource
		ns   string
	}{{"volcano", volcanoQueues, ""}, {"kueue", kueue.LocalQueues, namespace}} {
		sys := QueueSystem{Name: s.name, API: s.gvr.Resource + "." + s.gvr.GroupVersion().String(), Queues: []string{}}
		sys.Installed, _ = Served(kc, s.gvr)
		if sys.Installed && dyn != nil {
			list, err := dyn.Resource(s.gvr).Namespace(s.ns).List(ctx, metav1.ListOptions{})
			switch {
			case apierrors.IsForbidden(err):
				sys.Note = fmt.Sprintf("you may not list %s%s", s.gvr.GroupResource(), where(s.ns))
			case err != nil:
				sys.Note = fmt.Sprintf("listing %s: %s", s.gvr.GroupResource(), strings.Join(strings.Fields(err.Error()), " "))
			default:
				for _, it := range list.Items {
					sys.Queues = append(sys.Queues, it.GetName())
				}
				sort.Strings(sys.Queues)
			}
		}
		if s.name == "kueue" && len(sys.Queues) > 0 {
			queueMeans = "kueue"
		}
		systems = append(systems, sys)
	}
	return systems, queueMeans
}

func where(namespace string) string {
	if namespace == "" {
		return " (cluster-wide)"
	}
	return " in namespace " + namespace
}
