package jobmodel

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What a replica row says for the states a real kubelet reports.
func TestReplicaFromPod(t *testing.T) {
	pod := func(status corev1.PodStatus) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "job-worker-0"}, Spec: corev1.PodSpec{NodeName: "n1"}, Status: status}
	}
	running := corev1.PodStatus{Phase: corev1.PodRunning}
	tests := []struct {
		name       string
		pod        *corev1.Pod
		reason     string
		exitCode   int32 // -1: none
		restarts   int32
		wantPhase  string
		wantPrefix string
	}{
		{"crash loop keeps the last exit code", pod(corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
			RestartCount:         3,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s restarting failed container"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error"}},
		}}}), "CrashLoopBackOff", 3, 3, "Running", "back-off 40s"},
		{"out of memory", pod(corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}},
		}}}), "OOMKilled", 137, 0, "Failed", ""},
		{"image never pulled", pod(corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImageNeverPull", Message: `Container image "x:1" is not present with pull policy of Never`}},
		}}}), "ErrImageNeverPull", -1, 0, "Pending", "Container image"},
		{"creating is no reason", pod(corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}},
		}}}), "", -1, 0, "Pending", ""},
		{"running", pod(running), "", -1, 0, "Running", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ReplicaFromPod("worker", 0, tt.pod)
			code := int32(-1)
			if r.ExitCode != nil {
				code = *r.ExitCode
			}
			if r.Task != "worker-0" || r.Reason != tt.reason || code != tt.exitCode || r.Restarts != tt.restarts || r.Phase != tt.wantPhase || r.Node != "n1" ||
				len(r.Message) < len(tt.wantPrefix) || r.Message[:len(tt.wantPrefix)] != tt.wantPrefix {
				t.Errorf("got task %s phase %s reason %q message %q exit %d restarts %d", r.Task, r.Phase, r.Reason, r.Message, code, r.Restarts)
			}
		})
	}
}
