package jobclient

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// ErrReplaced is a job deleted and made again under its name since it was
// read: DeleteListed leaves the new one alone.
var ErrReplaced = errors.New("it was replaced by another job of the same name since it was listed")

// Delete deletes a job in the background: the API server removes it at once
// and the garbage collector then removes its pods, services and PodGroup.
// A job already gone is Find's not-found error.
func (c *Client) Delete(ctx context.Context, k kinds.Kind, namespace, name string) error {
	return c.delete(ctx, k, namespace, name, metav1.DeleteOptions{})
}

// DeleteListed deletes the job as Delete does, but only the very object
// that was listed: uid is a precondition, so that a job made again under
// the same name since is not deleted (an error wrapping ErrReplaced).
func (c *Client) DeleteListed(ctx context.Context, k kinds.Kind, namespace, name, uid string) error {
	if uid == "" {
		return fmt.Errorf("deleting %s/%s: the listed job has no uid", k.Name(), name)
	}
	return c.delete(ctx, k, namespace, name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(uid)})
}

func (c *Client) delete(ctx context.Context, k kinds.Kind, namespace, name string, opts metav1.DeleteOptions) error {
	background := metav1.DeletePropagationBackground
	opts.PropagationPolicy = &background
	err := c.Dynamic.Resource(k.Resource()).Namespace(namespace).Delete(ctx, name, opts)
	switch {
	case err == nil:
		return nil
	case kube.NotInstalled(err):
		return kube.NotInstalledError(k)
	case apierrors.IsNotFound(err):
		return notFound(kinds.Ref{Kind: k, Name: name}, namespace)
	case apierrors.IsConflict(err) && opts.Preconditions != nil:
		return fmt.Errorf("%s/%s not deleted: %w", k.Name(), name, ErrReplaced)
	default:
		return fmt.Errorf("deleting %s/%s: %w", k.Name(), name, err)
	}
}
