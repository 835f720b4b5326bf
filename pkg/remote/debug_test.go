package remote

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

func debugPod(name string, env ...corev1.EnvVar) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Env: env}}}}
}

func TestWaitingReadsTheCommandOfTheChosenReplicas(t *testing.T) {
	cmd := corev1.EnvVar{Name: CommandEnv, Value: "'python' 'train.py'"}
	only1 := corev1.EnvVar{Name: "EASYAI_DEBUG_TASKS", Value: "worker-1"}
	j := &Job{
		Replicas: []jobmodel.Replica{{Task: "ps-0", Pod: "p0"}, {Task: "worker-0", Pod: "w0"}, {Task: "worker-1", Pod: "w1"}, {Task: "worker-2"}},
		Pods:     []corev1.Pod{debugPod("p0"), debugPod("w0", cmd, only1), debugPod("w1", cmd, only1)},
	}
	got := Waiting(j)
	if len(got) != 1 || got["worker-1"] != cmd.Value {
		t.Errorf("Waiting = %v, want only worker-1 with its command", got)
	}
	j.Pods[1], j.Pods[2] = debugPod("w0", cmd), debugPod("w1", cmd)
	if got := Waiting(j); len(got) != 2 || got["worker-0"] != cmd.Value {
		t.Errorf("Waiting = %v, want worker-0 and worker-1 (no EASYAI_DEBUG_TASKS: every replica)", got)
	}
}
