package serving

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// deploymentBackend keeps each version of a serving in a Deployment easyai
// makes (NAME-vN).
type deploymentBackend struct{ kube kubernetes.Interface }

func (c *Client) deployments() backend { return deploymentBackend{kube: c.Kube} }

func (deploymentBackend) kind() string { return "Deployment" }

func (b deploymentBackend) get(ctx context.Context, namespace, name string) (workload, error) {
	d, err := b.kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return deploymentWorkload{d}, nil
}

func (b deploymentBackend) create(ctx context.Context, w workload, dryRun bool) (workload, error) {
	d := w.(deploymentWorkload).d
	made, err := b.kube.AppsV1().Deployments(d.Namespace).Create(ctx, d, createOptions(dryRun))
	if err != nil {
		return nil, err
	}
	return deploymentWorkload{made}, nil
}

func (b deploymentBackend) update(ctx context.Context, w workload) error {
	d := w.(deploymentWorkload).d
	_, err := b.kube.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{FieldManager: "easyai"})
	return err
}

func (b deploymentBackend) delete(ctx context.Context, namespace, name string) error {
	return b.kube.AppsV1().Deployments(namespace).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground)})
}

func (deploymentBackend) fromObject(obj *unstructured.Unstructured) (workload, error) {
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, d); err != nil {
		return nil, err
	}
	return deploymentWorkload{d}, nil
}

// deploymentWorkload is a version's Deployment.
type deploymentWorkload struct{ d *appsv1.Deployment }

func (w deploymentWorkload) name() string                   { return w.d.Name }
func (w deploymentWorkload) labels() map[string]string      { return w.d.Labels }
func (w deploymentWorkload) annotations() map[string]string { return w.d.Annotations }
func (w deploymentWorkload) setAnnotation(key, value string) {
	if w.d.Annotations == nil {
		w.d.Annotations = map[string]string{}
	}
	setOrDelete(w.d.Annotations, key, value)
}
func (w deploymentWorkload) replicas() int32     { return replicasOf(w.d) }
func (w deploymentWorkload) setReplicas(n int32) { w.d.Spec.Replicas = &n }
func (w deploymentWorkload) apply(ch Change) {
	applyToContainers(w.d.Spec.Template.Spec.Containers, Container, ch)
}
func (w deploymentWorkload) controllerRef() metav1.OwnerReference {
	return *metav1.NewControllerRef(w.d, appsv1.SchemeGroupVersion.WithKind("Deployment"))
}
func (w deploymentWorkload) object() (*unstructured.Unstructured, error) {
	return toObject(w.d, "apps/v1", "Deployment")
}

// newVersion: the Deployment's spec, selecting the new version's pods.
func (w deploymentWorkload) newVersion(version string, replicas int32) workload {
	d := &appsv1.Deployment{ObjectMeta: versionMeta(w, version), Spec: *w.d.Spec.DeepCopy()}
	d.Namespace = w.d.Namespace
	d.Spec.Replicas = &replicas
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{Label: w.d.Labels[Label], VersionLabel: version}}
	d.Spec.Template.Labels = copyMap(d.Spec.Template.Labels)
	d.Spec.Template.Labels[VersionLabel] = version
	return deploymentWorkload{d}
}
