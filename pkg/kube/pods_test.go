package kube_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/easyai-dev/easyai/pkg/kube"
)

func TestPendingReason(t *testing.T) {
	waiting := func(reason, message string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: "train", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}}
	}
	unscheduled := func(status corev1.ConditionStatus, reason, message string) []corev1.PodCondition {
		return []corev1.PodCondition{{Type: corev1.PodScheduled, Status: status, Reason: reason, Message: message}}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"never seen", nil, "the pod was never seen"},
		{"new", &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending}}, "not scheduled yet"},
		{"unschedulable", &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: unscheduled(corev1.ConditionFalse, "Unschedulable", "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.")}},
			"Unschedulable: 0/3 nodes are available: 3 Insufficient nvidia.com/gpu."},
		{"scheduling unknown, nothing said", &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodPending,
			Conditions: unscheduled(corev1.ConditionUnknown, "", "")}}, "not scheduled yet"},
		{"scheduled, being created", &corev1.Pod{Spec: corev1.PodSpec{NodeName: "gpu-1"}, Status: corev1.PodStatus{Phase: corev1.PodPending,
			Conditions:        unscheduled(corev1.ConditionTrue, "", ""),
			ContainerStatuses: []corev1.ContainerStatus{waiting("ContainerCreating", "")}}}, "ContainerCreating"},
		{"image not pulled", &corev1.Pod{Spec: corev1.PodSpec{NodeName: "gpu-1"}, Status: corev1.PodStatus{Phase: corev1.PodPending,
			ContainerStatuses: []corev1.ContainerStatus{waiting("ImagePullBackOff", `Back-off pulling image "trian:1"`)}}},
			`ImagePullBackOff: Back-off pulling image "trian:1"`},
		{"init container waiting first", &corev1.Pod{Spec: corev1.PodSpec{NodeName: "gpu-1"}, Status: corev1.PodStatus{Phase: corev1.PodPending,
			InitContainerStatuses: []corev1.ContainerStatus{waiting("ErrImagePull", "no such image")},
			ContainerStatuses:     []corev1.ContainerStatus{waiting("PodInitializing", "")}}}, "ErrImagePull: no such image"},
		{"ended before it ran", &corev1.Pod{Spec: corev1.PodSpec{NodeName: "gpu-1"}, Status: corev1.PodStatus{Phase: corev1.PodFailed,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "fetch", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 126, Reason: "Error"}}}}}},
			"container fetch ended with exit code 126: Error"},
		{"evicted", &corev1.Pod{Spec: corev1.PodSpec{NodeName: "gpu-1"}, Status: corev1.PodStatus{Phase: corev1.PodFailed,
			Reason: "Evicted", Message: "The node was low on resource: memory."}}, "Evicted: The node was low on resource: memory."},
		{"failed, nothing said", &corev1.Pod{Spec: corev1.PodSpec{NodeName: "gpu-1"}, Status: corev1.PodStatus{Phase: corev1.PodFailed}}, "Failed"},
		{"scheduled, no status yet", &corev1.Pod{Spec: corev1.PodSpec{NodeName: "gpu-1"}, Status: corev1.PodStatus{Phase: corev1.PodPending}}, "starting on gpu-1"},
	} {
		if got := kube.PendingReason(tc.pod); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
