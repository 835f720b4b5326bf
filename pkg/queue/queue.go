// Package queue reads Volcano queues and the PodGroups in them: what a
// queue may hold (capability), should get (deserved, guarantee), holds
// (allocated) and the jobs running and waiting in it.
package queue

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	schedulingv1beta1 "volcano.sh/apis/pkg/apis/scheduling/v1beta1"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// The Volcano objects read.
var (
	Queues    = schema.GroupVersionResource{Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "queues"}
	PodGroups = schema.GroupVersionResource{Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "podgroups"}
)

// Document kinds (docs/output.md).
const (
	APIVersion       = "easyai.io/v1"
	ListDocumentKind = "QueueList"
	DocumentKind     = "Queue"
)

// Resources are quantities by resource name, as the API writes them.
type Resources map[string]string

// Queue is one Volcano queue.
type Queue struct {
	Name  string `json:"name"`
	State string `json:"state"`
	// Weight is its share of the cluster when queues compete.
	Weight int32 `json:"weight"`
	// Capability is the most it may hold (nil: no limit); Deserved what
	// it should get when the cluster is full; Guarantee what is kept for
	// it; Allocated what its running jobs hold, as the scheduler counts.
	Capability Resources `json:"capability,omitempty"`
	Deserved   Resources `json:"deserved,omitempty"`
	Guarantee  Resources `json:"guarantee,omitempty"`
	Allocated  Resources `json:"allocated,omitempty"`
	// Running, Pending and Inqueue count its PodGroups by phase, as its
	// status does (Inqueue: admitted, pods being created or placed).
	Running int32 `json:"running"`
	Pending int32 `json:"pending"`
	Inqueue int32 `json:"inqueue"`
	// PodGroups are the gangs in the queue the user can see (queue get).
	PodGroups []PodGroup `json:"podGroups,omitempty"`
}

// PodGroup is one gang of pods in a queue: a job's, scheduled together.
type PodGroup struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Job is KIND/NAME of the job it belongs to (its owner), "" when none.
	Job       string    `json:"job,omitempty"`
	Phase     string    `json:"phase"`
	MinMember int32     `json:"minMember"`
	Running   int32     `json:"running"`
	Requests  Resources `json:"minResources,omitempty"`
	// Reason and Message say why it waits (its Unschedulable condition).
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// List is the queues document.
type List struct {
	APIVersion string  `json:"apiVersion"`
	Kind       string  `json:"kind"`
	Items      []Queue `json:"items"`
}

// Client reads queues and PodGroups.
type Client struct {
	Dynamic dynamic.Interface
}

// List reads every queue, by name.
func (c *Client) List(ctx context.Context) (*List, error) {
	list, err := c.Dynamic.Resource(Queues).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, readError(err, "list queues")
	}
	out := &List{APIVersion: APIVersion, Kind: ListDocumentKind, Items: []Queue{}}
	for i := range list.Items {
		q, err := queueOf(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, q)
	}
	sort.Slice(out.Items, func(i, j int) bool { return out.Items[i].Name < out.Items[j].Name })
	return out, nil
}

// Get reads one queue and the PodGroups in it of namespace ("": every
// namespace). PodGroups the user may not list are left out with a note in
// refused (the queue is still shown).
func (c *Client) Get(ctx context.Context, name, namespace string) (q *Queue, refused error, err error) {
	obj, err := c.Dynamic.Resource(Queues).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) && !kube.NotInstalled(err) {
		return nil, nil, c.notFound(ctx, name)
	}
	if err != nil {
		return nil, nil, readError(err, "get queue "+name)
	}
	got, err := queueOf(obj)
	if err != nil {
		return nil, nil, err
	}
	groups, err := c.Dynamic.Resource(PodGroups).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		where := "namespace " + namespace
		if namespace == "" {
			where = "every namespace"
		}
		if kube.Refused(err) {
			return &got, fmt.Errorf("cannot list podgroups in %s: forbidden; the queue's jobs are not shown", where), nil
		}
		return nil, nil, fmt.Errorf("listing podgroups in %s: %w", where, err)
	}
	for i := range groups.Items {
		pg, err := podGroupOf(&groups.Items[i])
		if err != nil || pg.queue != name {
			continue
		}
		got.PodGroups = append(got.PodGroups, pg.PodGroup)
	}
	sort.Slice(got.PodGroups, func(i, j int) bool {
		a, b := got.PodGroups[i], got.PodGroups[j]
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return &got, nil, nil
}

// notFound is exit 3 naming the queues there are, when they can be read.
func (c *Client) notFound(ctx context.Context, name string) error {
	err := exit.NotFoundErrorf("no Volcano queue %q", name)
	if list, lerr := c.List(ctx); lerr == nil {
		names := make([]string, len(list.Items))
		for i, q := range list.Items {
			names[i] = q.Name
		}
		return exit.WithHint(err, fmt.Sprintf("the queues are: %v", names))
	}
	return err
}

// readError says what could not be read: one line when the user may not,
// or when the cluster has no Volcano.
func readError(err error, what string) error {
	switch {
	case kube.Refused(err):
		return exit.WithHint(fmt.Errorf("cannot %s: forbidden", what),
			"Volcano queues are cluster-wide: ask your cluster admin for the right to get and list queues.scheduling.volcano.sh")
	case kube.NotInstalled(err):
		return exit.WithHint(fmt.Errorf("cannot %s: this cluster serves no Volcano queues (queues.scheduling.volcano.sh)", what),
			"queues are Volcano's; without Volcano, jobs wait in no queue")
	}
	return fmt.Errorf("%s: %w", what, err)
}

func queueOf(obj *unstructured.Unstructured) (Queue, error) {
	var q schedulingv1beta1.Queue
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &q); err != nil {
		return Queue{}, fmt.Errorf("queue %s: %w", obj.GetName(), err)
	}
	state := string(q.Status.State)
	if state == "" {
		state = "Unknown"
	}
	return Queue{
		Name: q.Name, State: state, Weight: q.Spec.Weight,
		Capability: resources(q.Spec.Capability), Deserved: resources(q.Spec.Deserved),
		Guarantee: resources(q.Spec.Guarantee.Resource), Allocated: resources(q.Status.Allocated),
		Running: q.Status.Running, Pending: q.Status.Pending, Inqueue: q.Status.Inqueue,
	}, nil
}

type podGroup struct {
	PodGroup
	queue string
}

func podGroupOf(obj *unstructured.Unstructured) (podGroup, error) {
	var pg schedulingv1beta1.PodGroup
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &pg); err != nil {
		return podGroup{}, err
	}
	out := podGroup{queue: pg.Spec.Queue, PodGroup: PodGroup{
		Namespace: pg.Namespace, Name: pg.Name, Phase: string(pg.Status.Phase),
		MinMember: pg.Spec.MinMember, Running: pg.Status.Running,
	}}
	if pg.Spec.MinResources != nil {
		out.Requests = resources(*pg.Spec.MinResources)
	}
	for _, o := range pg.OwnerReferences {
		if o.Controller != nil && *o.Controller {
			out.Job = o.Kind + "/" + o.Name
		}
	}
	if out.Job == "" {
		if kind, name := jobmodel.JobOfLabels(pg.Labels); name != "" && kind != "" {
			out.Job = kind + "/" + name
		}
	}
	if pg.Status.Phase != schedulingv1beta1.PodGroupRunning {
		for _, c := range pg.Status.Conditions {
			if c.Type == schedulingv1beta1.PodGroupUnschedulableType && c.Status == corev1.ConditionTrue {
				out.Reason, out.Message = c.Reason, c.Message
			}
		}
	}
	return out, nil
}

// resources is a ResourceList as quantity strings; nil for none.
func resources(list corev1.ResourceList) Resources {
	if len(list) == 0 {
		return nil
	}
	out := Resources{}
	for name, q := range list {
		out[string(name)] = q.String()
	}
	return out
}

// Quantity is r's amount of name as a number (cores for cpu, bytes for
// memory); ok is false when r does not name it.
func (r Resources) Quantity(name string) (float64, bool) {
	s, ok := r[name]
	if !ok {
		return 0, false
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return 0, false
	}
	return q.AsApproximateFloat64(), true
}
