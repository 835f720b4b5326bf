package jobmodel

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ObjectMeta is the part of a job's metadata easyai reads. Decoding only it
// (not managedFields) keeps list fast on thousands of jobs.
type ObjectMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	UID               string            `json:"uid"`
	CreationTimestamp metav1.Time       `json:"creationTimestamp"`
	Labels            map[string]string `json:"labels"`
	Annotations       map[string]string `json:"annotations"`
}

// MetaOf reads the ObjectMeta of an object.
func MetaOf(obj *unstructured.Unstructured) ObjectMeta {
	return ObjectMeta{
		Name: obj.GetName(), Namespace: obj.GetNamespace(), UID: string(obj.GetUID()), CreationTimestamp: obj.GetCreationTimestamp(),
		Labels: obj.GetLabels(), Annotations: obj.GetAnnotations(),
	}
}

// NewSummary fills what every kind reads the same way: name, namespace,
// creation time, and the labels and annotations of the contract.
func NewSummary(kind string, m ObjectMeta) Summary {
	user := m.Annotations[UserAnnotation]
	if user == "" {
		user = m.Labels[UserLabel]
	}
	return Summary{
		Name:         m.Name,
		Namespace:    m.Namespace,
		UID:          m.UID,
		APIKind:      kind,
		User:         user,
		Experiment:   m.Labels[ExperimentLabel],
		Debug:        m.Labels[DebugLabel] == "true",
		ManagedBy:    m.Labels[ManagedByLabel],
		Created:      m.CreationTimestamp.Time,
		Labels:       m.Labels,
		RecordedUser: m.Annotations[UserAnnotation],
	}
}

// ShownState is the state list and get show: DEBUG for a running job in
// debug mode (its replicas wait for "easyai run"), else the state.
func (s *Summary) ShownState() string {
	if s.Debug && s.Status.State == Running {
		return "DEBUG"
	}
	if s.Admission != nil && s.Status.State == Queued {
		// Kueue's: where in line, waiting for what.
		return s.Admission.String()
	}
	return string(s.Status.State)
}

// TaskName is a replica's name: its role and index ("worker-1").
func TaskName(role string, index int) string { return role + "-" + strconv.Itoa(index) }

// ReplicaFromPod reads one replica's state from its pod: the phase, node,
// restarts, and the exit code and reason of the first container that ended
// (or is waiting, e.g. ImagePullBackOff; one waiting to restart,
// CrashLoopBackOff, with the exit code it ended with last).
func ReplicaFromPod(role string, index int, p *corev1.Pod) Replica {
	created := p.CreationTimestamp.Time
	r := Replica{
		Task: TaskName(role, index), Role: role, Index: index,
		Pod: p.Name, Phase: string(p.Status.Phase), Node: p.Spec.NodeName,
		Reason: p.Status.Reason, Message: p.Status.Message, Created: &created,
	}
	if p.DeletionTimestamp != nil {
		r.Phase = "Terminating"
	}
	for _, cs := range p.Status.ContainerStatuses {
		r.Restarts += cs.RestartCount
		switch {
		case cs.State.Terminated != nil && r.ExitCode == nil:
			code := cs.State.Terminated.ExitCode
			r.ExitCode = &code
			if r.Reason == "" {
				r.Reason, r.Message = cs.State.Terminated.Reason, cs.State.Terminated.Message
			}
		case cs.State.Waiting != nil && r.Reason == "" && cs.State.Waiting.Reason != "ContainerCreating":
			r.Reason, r.Message = cs.State.Waiting.Reason, cs.State.Waiting.Message
			// A container waiting to restart (CrashLoopBackOff) ended last
			// time with the exit code worth showing.
			if last := cs.LastTerminationState.Terminated; last != nil && r.ExitCode == nil {
				code := last.ExitCode
				r.ExitCode = &code
			}
		}
	}
	if r.Reason == "" && p.Status.Phase == corev1.PodPending {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				r.Reason, r.Message = c.Reason, c.Message
			}
		}
	}
	return r
}
