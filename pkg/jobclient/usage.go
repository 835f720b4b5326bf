package jobclient

import (
	"context"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kueue"
)

// JobUsageListDocumentKind is the kind of top job's document
// (docs/output.md).
const JobUsageListDocumentKind = "JobUsageList"

// JobUsage is what one job holds and has used: GPUs now, and GPU-hours
// over its run (within a window when one is given).
type JobUsage struct {
	Name       string         `json:"name"`
	Namespace  string         `json:"namespace"`
	KindName   string         `json:"jobKind"`
	User       string         `json:"user,omitempty"`
	Experiment string         `json:"experiment,omitempty"`
	State      jobmodel.State `json:"state"`
	// GPUs is what the job asks for over every replica; GPUsHeld the same
	// while it runs, else 0.
	GPUs     float64    `json:"gpus"`
	GPUsHeld float64    `json:"gpusHeld"`
	Started  *time.Time `json:"started,omitempty"`
	Finished *time.Time `json:"finished,omitempty"`
	// RunningSeconds is how long it ran (within the window).
	RunningSeconds int64 `json:"runningSeconds"`
	// GPUHours is GPUs times the hours it ran (within the window).
	GPUHours float64 `json:"gpuHours"`
	// Usage is what its pods use now by the metrics API; nil without it.
	Usage *PodUsage `json:"usage,omitempty"`
}

// PodUsage is CPU cores and memory bytes in use.
type PodUsage struct {
	CPU    float64 `json:"cpu"`
	Memory float64 `json:"memory"`
}

// UsageTotal is what the listed jobs add up to.
type UsageTotal struct {
	GPUsHeld float64 `json:"gpusHeld"`
	GPUHours float64 `json:"gpuHours"`
}

// JobUsageList is top job's document.
type JobUsageList struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Since is the window's start, when one was given (--since).
	Since *time.Time `json:"since,omitempty"`
	Items []JobUsage `json:"items"`
	Total UsageTotal `json:"total"`
	// Queues are the Kueue LocalQueues of the namespace (every namespace
	// with -A), with their ClusterQueue where the user may read it.
	Queues []kueue.LocalQueue `json:"queues,omitempty"`
}

// UsageOf is what each job holds and has used. Without a window (since
// 0) the jobs are those running now, their GPU-hours those of their whole
// run so far; with one, also the jobs whose run overlaps the last since
// (finished ones from their start and end times), each counted within the
// window only. The job holding the most GPUs comes first, then the one
// that used the most GPU-hours.
func UsageOf(jobs []Listed, now time.Time, since time.Duration) JobUsageList {
	out := JobUsageList{APIVersion: jobmodel.APIVersion, Kind: JobUsageListDocumentKind, Items: []JobUsage{}}
	var from time.Time
	if since > 0 {
		from = now.Add(-since)
		out.Since = &from
	}
	for _, j := range jobs {
		s := &j.Summary
		running := s.Status.State == jobmodel.Running
		if s.Started == nil || (!running && since == 0) {
			continue
		}
		start, end := *s.Started, now
		if s.Finished != nil {
			end = *s.Finished
		}
		if since > 0 && start.Before(from) {
			start = from
		}
		if !running && end.Before(start) {
			continue // ended before the window
		}
		ran := max(end.Sub(start), 0)
		u := JobUsage{Name: s.Name, Namespace: s.Namespace, KindName: j.Kind.Name(), User: s.User, Experiment: s.Experiment,
			State: s.Status.State, GPUs: s.GPUs, Started: s.Started, Finished: s.Finished,
			RunningSeconds: int64(ran / time.Second), GPUHours: s.GPUs * ran.Hours()}
		if running {
			u.GPUsHeld = s.GPUs
		}
		out.Items = append(out.Items, u)
		out.Total.GPUsHeld += u.GPUsHeld
		out.Total.GPUHours += u.GPUHours
	}
	sort.SliceStable(out.Items, func(i, k int) bool {
		a, b := out.Items[i], out.Items[k]
		switch {
		case a.GPUsHeld != b.GPUsHeld:
			return a.GPUsHeld > b.GPUsHeld
		case a.GPUHours != b.GPUHours:
			return a.GPUHours > b.GPUHours
		case a.Namespace != b.Namespace:
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return out
}

// PodMetrics are the metrics API's pod usage (metrics-server).
var PodMetrics = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}

// JobPodUsage is what the pods of each job of namespace ("": every
// namespace) use now, by NAMESPACE/NAME of the job, from one LIST of the
// metrics API's pod metrics (which carry their pods' labels). It is nil
// when the cluster serves no metrics API or the user may not read it:
// usage is an extra, never an error.
func (c *Client) JobPodUsage(ctx context.Context, namespace string) map[string]PodUsage {
	if c.Dynamic == nil {
		return nil
	}
	list, err := c.Dynamic.Resource(PodMetrics).Namespace(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	out := map[string]PodUsage{}
	for _, item := range list.Items {
		_, name := jobmodel.JobOfLabels(item.GetLabels())
		if name == "" {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(item.Object, "containers")
		key := item.GetNamespace() + "/" + name
		u := out[key]
		for _, c := range containers {
			m, _ := c.(map[string]any)
			usage, _, _ := unstructured.NestedStringMap(m, "usage")
			if q, err := resource.ParseQuantity(usage["cpu"]); err == nil {
				u.CPU += q.AsApproximateFloat64()
			}
			if q, err := resource.ParseQuantity(usage["memory"]); err == nil {
				u.Memory += q.AsApproximateFloat64()
			}
		}
		out[key] = u
	}
	return out
}
