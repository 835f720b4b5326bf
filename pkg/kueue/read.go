package kueue

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// The fields read of Kueue's objects (v1beta2).
type (
	quantityOf struct {
		Name           string             `json:"name"`
		NominalQuota   *resource.Quantity `json:"nominalQuota"`
		BorrowingLimit *resource.Quantity `json:"borrowingLimit"`
		Total          *resource.Quantity `json:"total"`
		Borrowed       *resource.Quantity `json:"borrowed"`
	}
	flavorOf struct {
		Name      string       `json:"name"`
		Resources []quantityOf `json:"resources"`
	}
	localQueueObject struct {
		Spec struct {
			ClusterQueue string `json:"clusterQueue"`
		} `json:"spec"`
		Status struct {
			Conditions         []metav1.Condition `json:"conditions"`
			PendingWorkloads   int32              `json:"pendingWorkloads"`
			ReservingWorkloads int32              `json:"reservingWorkloads"`
			AdmittedWorkloads  int32              `json:"admittedWorkloads"`
			FlavorsUsage       []flavorOf         `json:"flavorsUsage"`
		} `json:"status"`
	}
	clusterQueueObject struct {
		Spec struct {
			ResourceGroups []struct {
				Flavors []flavorOf `json:"flavors"`
			} `json:"resourceGroups"`
			CohortName       string `json:"cohortName"`
			QueueingStrategy string `json:"queueingStrategy"`
			FairSharing      *struct {
				Weight *resource.Quantity `json:"weight"`
			} `json:"fairSharing"`
		} `json:"spec"`
		Status struct {
			PendingWorkloads   int32      `json:"pendingWorkloads"`
			ReservingWorkloads int32      `json:"reservingWorkloads"`
			AdmittedWorkloads  int32      `json:"admittedWorkloads"`
			FlavorsUsage       []flavorOf `json:"flavorsUsage"`
		} `json:"status"`
	}
)

// decode reads obj's fields into into; an object that does not fit is an
// error naming it.
func decode(obj *unstructured.Unstructured, into any) error {
	data, err := json.Marshal(obj.Object)
	if err == nil {
		err = json.Unmarshal(data, into)
	}
	if err != nil {
		return fmt.Errorf("reading %s %s/%s: %w", obj.GetKind(), obj.GetNamespace(), obj.GetName(), err)
	}
	return nil
}

// add puts q (when set) under flavor and resource in into.
func add(into FlavorResources, flavor, res string, q *resource.Quantity) FlavorResources {
	if q == nil {
		return into
	}
	if into == nil {
		into = FlavorResources{}
	}
	flavor, res = jobmodel.OneLine(flavor), jobmodel.OneLine(res)
	if into[flavor] == nil {
		into[flavor] = Resources{}
	}
	into[flavor][res] = q.String()
	return into
}

// LocalQueueOf reads a LocalQueue.
func LocalQueueOf(obj *unstructured.Unstructured) (LocalQueue, error) {
	var o localQueueObject
	if err := decode(obj, &o); err != nil {
		return LocalQueue{}, err
	}
	q := LocalQueue{Name: obj.GetName(), Namespace: obj.GetNamespace(), ClusterQueue: jobmodel.OneLine(o.Spec.ClusterQueue),
		Pending: o.Status.PendingWorkloads, Reserving: o.Status.ReservingWorkloads, Admitted: o.Status.AdmittedWorkloads}
	if c := meta(o.Status.Conditions, "Active"); c != nil {
		q.Active = c.Status == metav1.ConditionTrue
		if !q.Active {
			q.Reason = jobmodel.OneLine(c.Message)
		}
	}
	for _, f := range o.Status.FlavorsUsage {
		for _, r := range f.Resources {
			q.Usage = add(q.Usage, f.Name, r.Name, r.Total)
		}
	}
	return q, nil
}

// ClusterQueueOf reads a ClusterQueue.
func ClusterQueueOf(obj *unstructured.Unstructured) (ClusterQueue, error) {
	var o clusterQueueObject
	if err := decode(obj, &o); err != nil {
		return ClusterQueue{}, err
	}
	q := ClusterQueue{Name: obj.GetName(), Cohort: jobmodel.OneLine(o.Spec.CohortName), QueueingStrategy: jobmodel.OneLine(o.Spec.QueueingStrategy),
		Pending: o.Status.PendingWorkloads, Reserving: o.Status.ReservingWorkloads, Admitted: o.Status.AdmittedWorkloads}
	if o.Spec.FairSharing != nil && o.Spec.FairSharing.Weight != nil {
		q.Weight = o.Spec.FairSharing.Weight.String()
	}
	for _, g := range o.Spec.ResourceGroups {
		for _, f := range g.Flavors {
			q.Flavors = append(q.Flavors, jobmodel.OneLine(f.Name))
			for _, r := range f.Resources {
				q.Quota = add(q.Quota, f.Name, r.Name, r.NominalQuota)
				q.BorrowingLimit = add(q.BorrowingLimit, f.Name, r.Name, r.BorrowingLimit)
			}
		}
	}
	for _, f := range o.Status.FlavorsUsage {
		for _, r := range f.Resources {
			q.Usage = add(q.Usage, f.Name, r.Name, r.Total)
			if r.Borrowed != nil && !r.Borrowed.IsZero() {
				q.Borrowed = add(q.Borrowed, f.Name, r.Name, r.Borrowed)
			}
		}
	}
	return q, nil
}

// meta is the condition of type t, nil when there is none.
func meta(conditions []metav1.Condition, t string) *metav1.Condition {
	for i := range conditions {
		if conditions[i].Type == t {
			return &conditions[i]
		}
	}
	return nil
}
