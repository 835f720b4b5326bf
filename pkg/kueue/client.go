package kueue

import (
	"context"
	"fmt"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
)

// Client reads Kueue's objects.
type Client struct {
	Dynamic dynamic.Interface
}

// LocalQueues lists the LocalQueues of namespace ("": every namespace),
// by namespace and name.
func (c *Client) LocalQueues(ctx context.Context, namespace string) ([]LocalQueue, error) {
	list, err := c.Dynamic.Resource(LocalQueues).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]LocalQueue, 0, len(list.Items))
	for i := range list.Items {
		q, err := LocalQueueOf(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// LocalQueue reads one LocalQueue.
func (c *Client) LocalQueue(ctx context.Context, namespace, name string) (*LocalQueue, error) {
	obj, err := c.Dynamic.Resource(LocalQueues).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	q, err := LocalQueueOf(obj)
	return &q, err
}

// ClusterQueue reads one ClusterQueue (cluster-wide: a namespace's user
// often may not).
func (c *Client) ClusterQueue(ctx context.Context, name string) (*ClusterQueue, error) {
	obj, err := c.Dynamic.Resource(ClusterQueues).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	q, err := ClusterQueueOf(obj)
	return &q, err
}

// Workloads lists the Workloads of namespace, selected by selector ("": all).
func (c *Client) Workloads(ctx context.Context, namespace, selector string) ([]Workload, error) {
	list, err := c.Dynamic.Resource(Workloads).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := make([]Workload, 0, len(list.Items))
	for i := range list.Items {
		w, err := WorkloadOf(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}

// NamespaceHasLocalQueues tells whether namespace has a LocalQueue: where it
// does, a queue's name means a LocalQueue (docs/capacity.md). refused: the
// user may not list them (then false).
func (c *Client) NamespaceHasLocalQueues(ctx context.Context, namespace string) (has, refused bool, err error) {
	list, err := c.Dynamic.Resource(LocalQueues).Namespace(namespace).List(ctx, metav1.ListOptions{Limit: 1})
	switch {
	case apierrors.IsForbidden(err):
		return false, true, nil
	case apierrors.IsNotFound(err):
		return false, false, nil
	case err != nil:
		return false, false, fmt.Errorf("listing the LocalQueues of namespace %s: %w", namespace, err)
	}
	return len(list.Items) > 0, false, nil
}
