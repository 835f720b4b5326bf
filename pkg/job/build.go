package job

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// NewSummary fills what every kind reads the same way: name, namespace,
// creation time, and the labels and annotations of the contract.
func NewSummary(obj *unstructured.Unstructured) Summary {
	labels := obj.GetLabels()
	user := obj.GetAnnotations()[UserAnnotation]
	if user == "" {
		user = labels[UserLabel]
	}
	return Summary{
		Name:       obj.GetName(),
		Namespace:  obj.GetNamespace(),
		Kind:       obj.GetKind(),
		User:       user,
		Experiment: labels[ExperimentLabel],
		ManagedBy:  labels[ManagedByLabel],
		Created:    obj.GetCreationTimestamp().Time,
		Labels:     labels,
	}
}

// TaskName is a replica's name: its role and index ("worker-1").
func TaskName(role string, index int) string { return role + "-" + strconv.Itoa(index) }

// ReplicaFromPod reads one replica's state from its pod: the phase, node,
// restarts, and the exit code and reason of the first container that ended
// (or is waiting, e.g. ImagePullBackOff).
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
