package jobclient

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// Delete deletes a job in the background: the API server removes it at once
// and the garbage collector then removes its pods, services and PodGroup.
// A job already gone is Find's not-found error.
func (c *Client) Delete(ctx context.Context, k kinds.Kind, namespace, name string) error {
	background := metav1.DeletePropagationBackground
	err := c.Dynamic.Resource(k.Resource()).Namespace(namespace).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background})
	switch {
	case err == nil:
		return nil
	case kube.NotInstalled(err):
		return kube.NotInstalledError(k)
	case apierrors.IsNotFound(err):
		return notFound(Ref{Kind: k, Name: name}, namespace)
	default:
		return fmt.Errorf("deleting %s/%s: %w", k.Name(), name, err)
	}
}
