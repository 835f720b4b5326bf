// Package kueue reads Kueue's queues and the admission of the jobs in them:
// a namespace's LocalQueues, the ClusterQueues behind them (quotas per
// resource flavor, usage, borrowing), and each job's Workload (queued,
// admitted, evicted; its place in line and the quota it waits for).
//
// Kueue's types are read from unstructured objects into the few fields used
// here (API kueue.x-k8s.io/v1beta2, Kueue 0.15 and later), not from Kueue's
// own module, which pins a Kubernetes other than easyai's. Everything read
// is anyone's with edit rights to write: strings are made one line.
package kueue

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kueue's API.
var (
	LocalQueues             = gvr("localqueues")
	ClusterQueues           = gvr("clusterqueues")
	Workloads               = gvr("workloads")
	WorkloadPriorityClasses = gvr("workloadpriorityclasses")
)

// OldLocalQueues are LocalQueues of Kueue's older API (before 0.15),
// which easyai does not read: a cluster that serves only them is told so.
var OldLocalQueues = schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta1", Resource: "localqueues"}

func gvr(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: resource}
}

// Labels Kueue reads on a job, and writes on its Workload.
const (
	// QueueLabel names the LocalQueue a job waits in: the job is Kueue's.
	QueueLabel = "kueue.x-k8s.io/queue-name"
	// PriorityLabel names the job's WorkloadPriorityClass.
	PriorityLabel = "kueue.x-k8s.io/priority-class"
	// JobUIDLabel is, on a Workload, the UID of the job it is of.
	JobUIDLabel = "kueue.x-k8s.io/job-uid"
)

// Resources are quantities by resource name, as the API writes them.
type Resources map[string]string

// FlavorResources are Resources by resource flavor.
type FlavorResources map[string]Resources

// LocalQueue is one LocalQueue of a namespace, with what its status counts.
type LocalQueue struct {
	Name         string `json:"name"`
	Namespace    string `json:"namespace"`
	ClusterQueue string `json:"clusterQueue"`
	// Active is false when Kueue does not admit from it (its ClusterQueue
	// missing or stopped): Reason says why.
	Active bool   `json:"active"`
	Reason string `json:"reason,omitempty"`
	// Pending waits for quota; Reserving holds quota; Admitted runs.
	Pending   int32 `json:"pendingWorkloads"`
	Reserving int32 `json:"reservingWorkloads"`
	Admitted  int32 `json:"admittedWorkloads"`
	// Usage is what its admitted workloads use, by flavor.
	Usage FlavorResources `json:"usage,omitempty"`
	// ClusterQueueDetails is its ClusterQueue where the user may read it.
	ClusterQueueDetails *ClusterQueue `json:"clusterQueueDetails,omitempty"`
}

// ClusterQueue is a cluster-wide queue: its quotas per flavor, what is used
// and borrowed, its cohort and fair-sharing weight.
type ClusterQueue struct {
	Name             string `json:"name"`
	Cohort           string `json:"cohort,omitempty"`
	QueueingStrategy string `json:"queueingStrategy,omitempty"`
	// Weight is its fair-sharing weight ("" : Kueue's default, 1).
	Weight string `json:"fairSharingWeight,omitempty"`
	// Quota is the nominal quota; BorrowingLimit how much more it may
	// borrow from its cohort (absent: no limit).
	Quota          FlavorResources `json:"nominalQuota,omitempty"`
	BorrowingLimit FlavorResources `json:"borrowingLimit,omitempty"`
	// Usage is what its admitted workloads use; Borrowed the part of it
	// above the nominal quota.
	Usage    FlavorResources `json:"usage,omitempty"`
	Borrowed FlavorResources `json:"borrowed,omitempty"`
	// Flavors are its resource flavors, in the order it tries them.
	Flavors   []string `json:"flavors,omitempty"`
	Pending   int32    `json:"pendingWorkloads"`
	Reserving int32    `json:"reservingWorkloads"`
	Admitted  int32    `json:"admittedWorkloads"`
}

// Sum is resource name's quantity over every flavor, as a number (0 where
// none, or where what the cluster wrote is no quantity).
func (r FlavorResources) Sum(name string) float64 {
	var total float64
	for _, res := range r {
		if q, err := resource.ParseQuantity(res[name]); err == nil {
			total += q.AsApproximateFloat64()
		}
	}
	return total
}
