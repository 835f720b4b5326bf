package remote_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/pytorchjob"
	"github.com/easyai-dev/easyai/pkg/remote"
)

func podWithPorts(name string, ports ...corev1.ContainerPort) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Ports: ports}}},
	}
}

func jobWithEndpoints(endpoints string) *remote.Job {
	obj := &unstructured.Unstructured{}
	obj.SetName("mnist")
	if endpoints != "" {
		obj.SetAnnotations(map[string]string{jobmodel.EndpointsAnnotation: endpoints})
	}
	return &remote.Job{
		Kind:     pytorchjob.New(),
		Object:   obj,
		Replicas: replicas("master-0", "worker-0", "worker-1"),
		Pods: []corev1.Pod{
			podWithPorts("mnist-master-0", corev1.ContainerPort{Name: "master", ContainerPort: 23456}),
			podWithPorts("mnist-worker-0"),
			podWithPorts("mnist-worker-1", corev1.ContainerPort{Name: "metrics", ContainerPort: 9090}, corev1.ContainerPort{ContainerPort: 22}),
		},
	}
}

func TestTarget(t *testing.T) {
	j := jobWithEndpoints(`{"jupyter":{"task":"worker-0","port":8888,"path":"/lab","tokenSecret":"mnist-jupyter"},"tensorboard":{"port":6006}}`)
	tests := []struct {
		name, task string
		want       remote.Target
	}{
		{"jupyter", "", remote.Target{Task: "worker-0", Port: 8888, Path: "/lab", TokenSecret: "mnist-jupyter"}},
		{"jupyter", "worker-1", remote.Target{Task: "worker-1", Port: 8888, Path: "/lab", TokenSecret: "mnist-jupyter"}},
		{"tensorboard", "", remote.Target{Task: "master-0", Port: 6006}},
		{"metrics", "", remote.Target{Task: "worker-1", Port: 9090}},
		{"master", "", remote.Target{Task: "master-0", Port: 23456}},
		{"8080", "worker-1", remote.Target{Task: "worker-1", Port: 8080}},
	}
	for _, tt := range tests {
		got, err := j.Target(tt.name, tt.task)
		if err != nil {
			t.Errorf("%s --task %q: %v", tt.name, tt.task, err)
			continue
		}
		got.From = ""
		if got != tt.want {
			t.Errorf("%s --task %q = %+v, want %+v", tt.name, tt.task, got, tt.want)
		}
	}
}

func TestTargetNotFoundListsWhatThereIs(t *testing.T) {
	j := jobWithEndpoints(`{"tensorboard":{"port":6006}}`)
	_, err := j.Target("jupyter", "")
	if exit.Code(err) != exit.NotFound || !strings.HasSuffix(err.Error(), "it has master, metrics, tensorboard") {
		t.Errorf("jupyter: %v (code %d)", err, exit.Code(err))
	}
	_, err = j.Target("metrics", "worker-0")
	if exit.Code(err) != exit.NotFound || !strings.Contains(err.Error(), "worker-0 has no endpoint") {
		t.Errorf("metrics in worker-0: %v", err)
	}
	if _, err = j.Target("tensorboard", "worker-7"); exit.Code(err) != exit.NotFound {
		t.Errorf("a replica that does not exist: %v", err)
	}
	if _, err = jobWithEndpoints(`{"tb":"6006"}`).Target("tb", ""); err == nil || !strings.Contains(err.Error(), jobmodel.EndpointsAnnotation) {
		t.Errorf("a malformed annotation: %v", err)
	}
	bare := jobWithEndpoints("")
	bare.Pods = nil
	if _, err = bare.Target("tensorboard", ""); exit.Code(err) != exit.NotFound || !strings.Contains(err.Error(), "give a port number") {
		t.Errorf("nothing named at all: %v", err)
	}
}

func TestRunnableReplica(t *testing.T) {
	j := jobWithEndpoints("")
	var notes strings.Builder
	r, err := j.RunnableReplica("", &notes)
	if err != nil || r.Task != "master-0" || !strings.Contains(notes.String(), "Running in master-0 of pytorch/mnist") {
		t.Errorf("default replica: %+v, %v, notes %q", r, err, notes.String())
	}
	notes.Reset()
	j.Replicas[2].Phase = "Pending"
	if _, err := j.RunnableReplica("worker-1", &notes); err == nil || notes.Len() != 0 {
		t.Errorf("a pending replica asked for: %v, notes %q", err, notes.String())
	}
}

func TestTargetOfAService(t *testing.T) {
	j := jobWithEndpoints(`{"tensorboard":{"service":"mnist-tensorboard","port":6006}}`)
	got, err := j.Target("tensorboard", "")
	if err != nil || got.Service != "mnist-tensorboard" || got.Task != "" || got.Port != 6006 || got.Where() != "service mnist-tensorboard" {
		t.Errorf("tensorboard: %+v, %v", got, err)
	}
	if _, err := j.Target("tensorboard", "worker-1"); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "served by Service mnist-tensorboard") {
		t.Errorf("tensorboard --task worker-1: %v, want exit 2", err)
	}
}
