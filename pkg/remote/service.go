package remote

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// ServicePod finds the pod serving Service name beside a job (TensorBoard's):
// the Service must be owned by the job (an ownerReference with jobUID), so
// that whoever may edit the job's endpoints annotation cannot send its user
// to another Service; its pod is the newest running one its selector
// matches, a ready one first. The replica returned is named
// "service/NAME".
func ServicePod(ctx context.Context, kube kubernetes.Interface, namespace, name string, jobUID types.UID) (jobmodel.Replica, error) {
	r := jobmodel.Replica{Task: "service/" + name}
	svc, err := kube.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return r, fmt.Errorf("reading Service %s: %w", name, err)
	}
	if !ownedBy(svc.OwnerReferences, jobUID) {
		return r, exit.WithHint(fmt.Errorf("Service %s, named by the job's %s annotation, is not owned by the job: refusing to forward to it", name, jobmodel.EndpointsAnnotation),
			fmt.Sprintf("a tool's Service needs an ownerReference to the job (uid %s); check who changed the annotation", jobUID))
	}
	if len(svc.Spec.Selector) == 0 {
		return r, fmt.Errorf("Service %s selects no pods (it has no selector)", name)
	}
	pods, err := kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String()})
	if err != nil {
		return r, fmt.Errorf("listing the pods of Service %s: %w", name, err)
	}
	p := bestPod(pods.Items)
	if p == nil {
		r.Phase = "without a pod"
		return r, nil
	}
	r.Pod, r.Phase, r.Node = p.Name, string(p.Status.Phase), p.Spec.NodeName
	return r, nil
}

func ownedBy(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, ref := range refs {
		if uid != "" && ref.UID == uid {
			return true
		}
	}
	return false
}

// bestPod is the pod to forward to: running and ready first, then running,
// then any; the newest among equals; nil for none. Pods being deleted are
// skipped.
func bestPod(pods []corev1.Pod) *corev1.Pod {
	var live []corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		return nil
	}
	rank := func(p corev1.Pod) int {
		if p.Status.Phase != corev1.PodRunning {
			return 0
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				return 2
			}
		}
		return 1
	}
	sort.SliceStable(live, func(i, j int) bool {
		if ri, rj := rank(live[i]), rank(live[j]); ri != rj {
			return ri > rj
		}
		return live[j].CreationTimestamp.Before(&live[i].CreationTimestamp)
	})
	return &live[0]
}
