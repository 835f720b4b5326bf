package remote_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/remote"
)

const uid = types.UID("uid-mnist")

func service(owner types.UID) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "mnist-tensorboard", Namespace: "team-a", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "kubeflow.org/v1", Kind: "TFJob", Name: "mnist", UID: owner,
		}}},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"easyai.io/job-name": "mnist", "easyai.io/role": "tensorboard"}},
	}
}

func tbPod(name string, age time.Duration, phase corev1.PodPhase, ready bool) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a", CreationTimestamp: metav1.NewTime(time.Now().Add(-age)),
			Labels: map[string]string{"easyai.io/job-name": "mnist", "easyai.io/role": "tensorboard", "pod-template-hash": "x"}},
		Spec:   corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: phase},
	}
	if ready {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	return p
}

func TestServicePodPicksTheReadyNewestPod(t *testing.T) {
	other := tbPod("other", time.Second, corev1.PodRunning, true)
	other.Labels = map[string]string{"easyai.io/job-name": "other", "easyai.io/role": "tensorboard"}
	kube := kubefake.NewClientset(service(uid),
		tbPod("old-ready", time.Hour, corev1.PodRunning, true),
		tbPod("new-ready", time.Minute, corev1.PodRunning, true),
		tbPod("newest-unready", time.Second, corev1.PodRunning, false),
		tbPod("pending", 0, corev1.PodPending, false),
		other)
	r, err := remote.ServicePod(context.Background(), kube, "team-a", "mnist-tensorboard", uid)
	if err != nil || r.Pod != "new-ready" || r.Phase != "Running" || r.Task != "service/mnist-tensorboard" {
		t.Errorf("got %+v, %v; want pod new-ready", r, err)
	}
	if err := remote.Runnable(r); err != nil {
		t.Error(err)
	}
}

func TestServicePodWithoutPodsIsNotRunnable(t *testing.T) {
	kube := kubefake.NewClientset(service(uid))
	r, err := remote.ServicePod(context.Background(), kube, "team-a", "mnist-tensorboard", uid)
	if err != nil || remote.Runnable(r) == nil {
		t.Errorf("got %+v, %v; want a replica that cannot be reached yet", r, err)
	}
}

func TestAServiceTheJobDoesNotOwnIsRefused(t *testing.T) {
	kube := kubefake.NewClientset(service("uid-other"), tbPod("p", time.Minute, corev1.PodRunning, true))
	_, err := remote.ServicePod(context.Background(), kube, "team-a", "mnist-tensorboard", uid)
	if err == nil || !strings.Contains(err.Error(), "is not owned by the job") {
		t.Errorf("a Service of another owner: %v", err)
	}
	_, err = remote.ServicePod(context.Background(), kube, "team-a", "missing", uid)
	if err == nil || !strings.Contains(err.Error(), "reading Service missing") {
		t.Errorf("a missing Service: %v", err)
	}
}
