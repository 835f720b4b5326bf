package kube

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
)

// Served tells whether the cluster serves a resource: discovery, which
// every user may read. A group the cluster does not serve is false, not an
// error.
func Served(kc kubernetes.Interface, gvr schema.GroupVersionResource) (bool, error) {
	list, err := kc.Discovery().ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, err
	}
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource {
			return true, nil
		}
	}
	return false, nil
}
