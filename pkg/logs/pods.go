package logs

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// podPage is how many pods one LIST of a job's pods asks for. Each pod of a
// TensorFlow job carries every replica's address in TF_CONFIG (27 KB a pod
// at 512 replicas): read in one answer, the pods of such a job are 17 MB,
// held three times over while they are decoded.
const podPage = 100

// listPods lists a job's pods page by page and keeps of each only what logs
// reads of it (slimPod), so that the pods of a job of many replicas are never
// all held whole at once. The list's resourceVersion is the LIST's, to watch
// from. A continue token that expired (410) starts the list over in one
// request.
func listPods(ctx context.Context, kube kubernetes.Interface, namespace, selector string) (*corev1.PodList, error) {
	out := &corev1.PodList{}
	opts := metav1.ListOptions{LabelSelector: selector, Limit: podPage}
	for {
		page, err := kube.CoreV1().Pods(namespace).List(ctx, opts)
		if apierrors.IsResourceExpired(err) && opts.Continue != "" {
			out.Items = nil
			opts = metav1.ListOptions{LabelSelector: selector}
			continue
		}
		if err != nil {
			return nil, err
		}
		for i := range page.Items {
			slimPod(&page.Items[i])
		}
		out.Items = append(out.Items, page.Items...)
		out.ResourceVersion = page.ResourceVersion
		if opts.Continue = page.Continue; opts.Continue == "" {
			return out, nil
		}
	}
}

// slimPod drops what logs never reads of a pod and may be most of it: the
// containers' environment and mounts, the volumes, the managed fields.
// Names, labels, annotations, the node, the containers' names and the
// status stay.
func slimPod(p *corev1.Pod) {
	p.ManagedFields = nil
	p.Spec.Volumes = nil
	for _, containers := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range containers {
			containers[i].Env = nil
			containers[i].EnvFrom = nil
			containers[i].VolumeMounts = nil
		}
	}
	for i := range p.Spec.EphemeralContainers {
		c := &p.Spec.EphemeralContainers[i].EphemeralContainerCommon
		c.Env, c.EnvFrom, c.VolumeMounts = nil, nil, nil
	}
}
