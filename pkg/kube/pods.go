package kube

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// PendingReason says why a pod does not run, as its status tells, for a
// line the user reads ("worker-1 is Pending: ..."): not scheduled (the
// scheduler's reason and message), a container waiting (ImagePullBackOff:
// ...) or ended, the pod's own reason (Evicted), its phase when it has ended,
// else that it is being scheduled or started on its node.
func PendingReason(p *corev1.Pod) string {
	if p == nil {
		return "the pod was never seen"
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue {
			if why := reasonAndMessage(c.Reason, c.Message); why != "" {
				return why
			}
			return "not scheduled yet"
		}
	}
	statuses := append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...)
	for _, cs := range statuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return reasonAndMessage(w.Reason, w.Message)
		}
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return fmt.Sprintf("container %s ended with exit code %d", cs.Name, t.ExitCode) + prefixed(reasonAndMessage(t.Reason, t.Message))
		}
	}
	if why := reasonAndMessage(p.Status.Reason, p.Status.Message); why != "" {
		return why
	}
	switch {
	case p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded:
		return string(p.Status.Phase)
	case p.Spec.NodeName == "":
		return "not scheduled yet"
	}
	return "starting on " + p.Spec.NodeName
}

// Starting is true of a pod on a node whose containers are only being made
// (ContainerCreating, PodInitializing, or no state yet): what holds it up,
// if anything, is said by events (FailedMount), not by its status.
func Starting(p *corev1.Pod) bool {
	if p.Spec.NodeName == "" || p.Status.Phase != corev1.PodPending {
		return false
	}
	for _, statuses := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range statuses {
			if w := cs.State.Waiting; w != nil && w.Reason != "ContainerCreating" && w.Reason != "PodInitializing" {
				return false
			}
			if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
				return false
			}
		}
	}
	return true
}

// reasonAndMessage joins a status's reason and message: "Reason: message".
func reasonAndMessage(reason, message string) string {
	switch {
	case reason == "":
		return message
	case message == "":
		return reason
	}
	return reason + ": " + message
}

func prefixed(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}
