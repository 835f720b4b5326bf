package kueue

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/inf.v0"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Owner is the job a Workload is of, as its owner reference names it.
type Owner struct{ APIVersion, Kind, Name string }

// JobNamer names a job as easyai does (KIND/NAME, "tf/mnist").
type JobNamer func(Owner) string

// DefaultJobNamer names a job by its API kind in lower case ("tfjob/mnist").
func DefaultJobNamer(o Owner) string {
	if o.Name == "" {
		return ""
	}
	return jobmodel.OneLine(strings.ToLower(o.Kind) + "/" + o.Name)
}

// Workload is what is read of one Workload.
type Workload struct {
	Name, Namespace string
	// JobUID is the UID of the job it is of; Job its owner, as the owner
	// reference names it.
	JobUID     string
	Job        Owner
	Queue      string
	Priority   int32
	Created    time.Time
	Active     bool
	Conditions []metav1.Condition
	// ClusterQueue and Flavors are of its admission.
	ClusterQueue string
	Flavors      []string
	// Requests are what all its pods ask for together.
	Requests corev1.ResourceList
}

type workloadObject struct {
	Spec struct {
		QueueName string `json:"queueName"`
		Priority  *int32 `json:"priority"`
		Active    *bool  `json:"active"`
		PodSets   []struct {
			Count    int32 `json:"count"`
			Template struct {
				Spec struct {
					Containers     []corev1.Container `json:"containers"`
					InitContainers []corev1.Container `json:"initContainers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"podSets"`
	} `json:"spec"`
	Status struct {
		Conditions []metav1.Condition `json:"conditions"`
		Admission  *struct {
			ClusterQueue      string `json:"clusterQueue"`
			PodSetAssignments []struct {
				Flavors map[string]string `json:"flavors"`
			} `json:"podSetAssignments"`
		} `json:"admission"`
	} `json:"status"`
}

// WorkloadOf reads a Workload.
func WorkloadOf(obj *unstructured.Unstructured) (Workload, error) {
	var o workloadObject
	if err := decode(obj, &o); err != nil {
		return Workload{}, err
	}
	w := Workload{Name: obj.GetName(), Namespace: obj.GetNamespace(), JobUID: obj.GetLabels()[JobUIDLabel],
		Queue: jobmodel.OneLine(o.Spec.QueueName), Created: obj.GetCreationTimestamp().Time,
		Active: o.Spec.Active == nil || *o.Spec.Active, Conditions: o.Status.Conditions, Requests: corev1.ResourceList{}}
	for _, ref := range obj.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller {
			w.Job = Owner{APIVersion: ref.APIVersion, Kind: ref.Kind, Name: ref.Name}
		}
	}
	if o.Spec.Priority != nil {
		w.Priority = *o.Spec.Priority
	}
	for _, ps := range o.Spec.PodSets {
		if ps.Count <= 0 {
			continue
		}
		for _, c := range ps.Template.Spec.Containers {
			for name, q := range requests(c.Resources) {
				// count × q, at once: a count is anyone's to write.
				all := new(inf.Dec).Mul(q.AsDec(), inf.NewDec(int64(ps.Count), 0))
				total := w.Requests[name]
				total.Add(*resource.NewDecimalQuantity(*all, q.Format))
				w.Requests[name] = total
			}
		}
	}
	if a := o.Status.Admission; a != nil {
		w.ClusterQueue = jobmodel.OneLine(a.ClusterQueue)
		seen := map[string]bool{}
		for _, ps := range a.PodSetAssignments {
			for _, f := range ps.Flavors {
				if f = jobmodel.OneLine(f); !seen[f] {
					seen[f] = true
					w.Flavors = append(w.Flavors, f)
				}
			}
		}
		sort.Strings(w.Flavors)
	}
	return w, nil
}

func (w *Workload) is(t string) bool {
	c := meta(w.Conditions, t)
	return c != nil && c.Status == metav1.ConditionTrue
}

// state is the workload's state, as Admission.State.
func (w *Workload) state() string {
	switch {
	case w.is("Finished"):
		return jobmodel.AdmissionFinished
	case !w.Active:
		// (Deactivated from the moment it is asked, as the job's own
		// suspend is; Kueue then evicts it.)
		return jobmodel.AdmissionDeactivated
	case w.is("Admitted"):
		return jobmodel.AdmissionAdmitted
	case w.is("QuotaReserved"):
		return jobmodel.AdmissionReserved
	case w.is("Evicted"):
		return jobmodel.AdmissionEvicted
	}
	return jobmodel.AdmissionQueued
}

// queuedSince is when Kueue put it in line: when it was evicted for its
// pods not being ready in time (requeued then), else when it was made.
func (w *Workload) queuedSince() time.Time {
	if c := meta(w.Conditions, "Evicted"); c != nil && c.Status == metav1.ConditionTrue && c.Reason == "PodsReadyTimeout" {
		return c.LastTransitionTime.Time
	}
	return w.Created
}

// Admissions are the admissions of the jobs of workloads (one namespace's),
// by the UID of each job.
func Admissions(workloads []Workload, name JobNamer) map[string]jobmodel.Admission {
	if name == nil {
		name = DefaultJobNamer
	}
	waiting := map[string][]*Workload{}
	byJobUID := map[string]*Workload{}
	for i := range workloads {
		w := &workloads[i]
		byJobUID[w.JobUID] = w
		if s := w.state(); s == jobmodel.AdmissionQueued || s == jobmodel.AdmissionEvicted {
			waiting[w.Queue] = append(waiting[w.Queue], w)
		}
	}
	position := map[*Workload]int{}
	for _, line := range waiting {
		sort.SliceStable(line, func(i, j int) bool {
			if line[i].Priority != line[j].Priority {
				return line[i].Priority > line[j].Priority
			}
			return line[i].queuedSince().Before(line[j].queuedSince())
		})
		for i, w := range line {
			position[w] = i + 1
		}
	}
	out := make(map[string]jobmodel.Admission, len(workloads))
	for i := range workloads {
		w := &workloads[i]
		a := jobmodel.Admission{State: w.state(), Workload: w.Name, LocalQueue: w.Queue, ClusterQueue: w.ClusterQueue, Flavors: w.Flavors, Position: position[w]}
		if a.State == jobmodel.AdmissionQueued || a.State == jobmodel.AdmissionEvicted {
			a.WaitingFor = w.waitingFor()
		}
		if c := meta(w.Conditions, "Evicted"); c != nil && c.Status == metav1.ConditionTrue {
			a.Evicted = evictedBecause(w, byJobUID, name)
		}
		out[w.JobUID] = a
	}
	return out
}

// insufficient is Kueue's message of a workload that does not fit:
// "insufficient unused quota for nvidia.com/gpu in flavor a100, 4 more needed".
var insufficient = regexp.MustCompile(`insufficient (?:unused )?quota for (\S+) in flavor (\S+), (\S+) more needed`)

// waitingFor is the quota a waiting workload waits for, from the message of
// its QuotaReserved condition and what its pods request.
func (w *Workload) waitingFor() string {
	c := meta(w.Conditions, "QuotaReserved")
	if c == nil || c.Status == metav1.ConditionTrue || c.Message == "" || c.Reason != "Pending" {
		// (Not Pending: released by an eviction, which says why itself.)
		return ""
	}
	m := insufficient.FindStringSubmatch(c.Message)
	if m == nil {
		return truncate(jobmodel.OneLine(c.Message), 200)
	}
	res, flavor := jobmodel.OneLine(m[1]), jobmodel.OneLine(m[2])
	more, err := resource.ParseQuantity(m[3])
	requested, ok := w.Requests[corev1.ResourceName(m[1])]
	if err != nil || !ok {
		return fmt.Sprintf("%s in flavor %s: %s more needed", res, flavor, jobmodel.OneLine(m[3]))
	}
	free := requested.DeepCopy()
	free.Sub(more)
	if free.Sign() < 0 {
		free = resource.Quantity{}
	}
	return fmt.Sprintf("%s: %s requested, %s free in flavor %s", res, requested.String(), free.String(), flavor)
}

// preemptedBy is the job UID in Kueue's message of a preempted workload:
// "Preempted to accommodate a workload (UID: ..., JobUID: ...) due to ...".
var preemptedBy = regexp.MustCompile(`JobUID: ([^\s,)]+)\)(?: due to ([^;]*))?`)

// evictedBecause says why the workload was evicted: by what preemption
// (naming the job that preempted it when it is in the same namespace), or
// Kueue's reason.
func evictedBecause(w *Workload, byJobUID map[string]*Workload, name JobNamer) string {
	if p := meta(w.Conditions, "Preempted"); p != nil && p.Status == metav1.ConditionTrue {
		by := "another workload"
		why := ""
		if m := preemptedBy.FindStringSubmatch(p.Message); m != nil {
			if other, ok := byJobUID[m[1]]; ok && other.Job.Name != "" {
				by = jobmodel.OneLine(name(other.Job))
			}
			why = m[2]
		}
		if why != "" {
			return "preempted by " + by + ": " + truncate(jobmodel.OneLine(why), 120)
		}
		return "preempted by " + by
	}
	c := meta(w.Conditions, "Evicted")
	return "evicted: " + truncate(jobmodel.OneLine(c.Reason+": "+c.Message), 160)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}

// requests are what a container asks for: its requests, and its limits of
// the resources it gives no request for (the API server, and Kueue, take
// those as requests: GPUs are often given as limits alone).
func requests(r corev1.ResourceRequirements) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range r.Limits {
		out[name] = q
	}
	for name, q := range r.Requests {
		out[name] = q
	}
	return out
}

// StatusOf is the status of a job Kueue manages, its operator's status
// being st: Suspended when its user deactivated its Workload (easyai
// suspend), Queued while Kueue holds it back (though its operator says
// Suspended: Kueue suspends every job it has not admitted), st otherwise.
func StatusOf(a jobmodel.Admission, st jobmodel.Status) jobmodel.Status {
	if st.State.Final() {
		return st
	}
	switch a.State {
	case jobmodel.AdmissionDeactivated:
		return jobmodel.Status{State: jobmodel.Suspended, Reason: "Kueue", Message: "its Workload is deactivated: out of its queue until resumed"}
	case jobmodel.AdmissionQueued, jobmodel.AdmissionEvicted, jobmodel.AdmissionReserved:
		return jobmodel.Status{State: jobmodel.Queued, Reason: "Kueue", Message: a.String()}
	}
	return st
}
