package serving

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// KServe's InferenceService, as the kserve backend makes it.
const (
	// KServeGroup is the API group of KServe's InferenceService.
	KServeGroup = "serving.kserve.io"
	// KServeVersion is the version of it easyai writes.
	KServeVersion = "v1beta1"
	// InferenceServiceKind is its kind.
	InferenceServiceKind = "InferenceService"
	// KServeContainer is the name KServe requires of a custom predictor's
	// container.
	KServeContainer = "kserve-container"
)

// Annotations of an InferenceService that KServe reads.
const (
	// deploymentModeAnnotation: RawDeployment, a Deployment and a
	// Service, with neither Knative nor Istio.
	deploymentModeAnnotation = KServeGroup + "/deploymentMode"
	// autoscalerClassAnnotation: none, so that the predictor's replicas
	// are minReplicas, not a HorizontalPodAutoscaler's choice.
	autoscalerClassAnnotation = KServeGroup + "/autoscalerClass"
)

// InferenceServices is the resource of KServe's InferenceServices.
var InferenceServices = schema.GroupVersionResource{Group: KServeGroup, Version: KServeVersion, Resource: "inferenceservices"}

// Backends of "serve create --backend".
const (
	BackendDeployment = "deployment"
	BackendKServe     = "kserve"
)

// inferenceService is the InferenceService of the rendered Deployment d:
// its pod template becomes the predictor (the server container named as
// KServe requires), its replicas the predictor's fixed replicas, its
// labels and annotations the InferenceService's (KServe copies them onto
// the Deployment and pods it makes, where every read of easyai finds them).
func inferenceService(d *appsv1.Deployment) (*unstructured.Unstructured, error) {
	pod := d.Spec.Template.Spec.DeepCopy()
	for i := range pod.Containers {
		if pod.Containers[i].Name == Container {
			pod.Containers[i].Name = KServeContainer
		}
	}
	predictor, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
	if err != nil {
		return nil, err
	}
	replicas := int64(replicasOf(d))
	predictor["minReplicas"], predictor["maxReplicas"] = replicas, replicas
	predictor["labels"] = stringMap(d.Spec.Template.Labels)
	if len(d.Spec.Template.Annotations) > 0 {
		predictor["annotations"] = stringMap(d.Spec.Template.Annotations)
	}
	annotations := copyMap(d.Annotations)
	annotations[deploymentModeAnnotation] = "RawDeployment"
	annotations[autoscalerClassAnnotation] = "none"
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"predictor": predictor}}}
	u.SetAPIVersion(KServeGroup + "/" + KServeVersion)
	u.SetKind(InferenceServiceKind)
	u.SetName(d.Name)
	u.SetNamespace(d.Namespace)
	u.SetLabels(copyMap(d.Labels))
	u.SetAnnotations(annotations)
	return u, nil
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// kserveBackend keeps each version of a serving in an InferenceService
// (NAME-vN), which KServe makes a Deployment NAME-vN-predictor of.
type kserveBackend struct{ dyn dynamic.Interface }

func (c *Client) inferenceServices() backend { return kserveBackend{dyn: c.Dynamic} }

func (kserveBackend) kind() string { return InferenceServiceKind }

func (b kserveBackend) client(namespace string) (dynamic.ResourceInterface, error) {
	if b.dyn == nil {
		return nil, fmt.Errorf("no client for KServe's InferenceServices")
	}
	return b.dyn.Resource(InferenceServices).Namespace(namespace), nil
}

func (b kserveBackend) get(ctx context.Context, namespace, name string) (workload, error) {
	rc, err := b.client(namespace)
	if err != nil {
		return nil, err
	}
	u, err := rc.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return isvcWorkload{u}, nil
}

func (b kserveBackend) create(ctx context.Context, w workload, dryRun bool) (workload, error) {
	u := w.(isvcWorkload).u
	rc, err := b.client(u.GetNamespace())
	if err != nil {
		return nil, err
	}
	made, err := rc.Create(ctx, u, createOptions(dryRun))
	if err != nil {
		return nil, err
	}
	return isvcWorkload{made}, nil
}

func (b kserveBackend) update(ctx context.Context, w workload) error {
	u := w.(isvcWorkload).u
	rc, err := b.client(u.GetNamespace())
	if err != nil {
		return err
	}
	_, err = rc.Update(ctx, u, metav1.UpdateOptions{FieldManager: "easyai"})
	return err
}

func (b kserveBackend) delete(ctx context.Context, namespace, name string) error {
	rc, err := b.client(namespace)
	if err != nil {
		return err
	}
	return rc.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground)})
}

func (kserveBackend) fromObject(obj *unstructured.Unstructured) (workload, error) {
	return isvcWorkload{obj.DeepCopy()}, nil
}

// list is the InferenceServices of serving name.
func (b kserveBackend) list(ctx context.Context, namespace, name string) ([]unstructured.Unstructured, error) {
	rc, err := b.client(namespace)
	if err != nil {
		return nil, err
	}
	l, err := rc.List(ctx, metav1.ListOptions{LabelSelector: Label + "=" + name})
	if err != nil {
		return nil, err
	}
	return l.Items, nil
}

// isvcWorkload is a version's InferenceService.
type isvcWorkload struct{ u *unstructured.Unstructured }

func (w isvcWorkload) name() string              { return w.u.GetName() }
func (w isvcWorkload) labels() map[string]string { return w.u.GetLabels() }

func (w isvcWorkload) annotations() map[string]string { return w.u.GetAnnotations() }

func (w isvcWorkload) setAnnotation(key, value string) {
	a := w.u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	setOrDelete(a, key, value)
	w.u.SetAnnotations(a)
}

func (w isvcWorkload) replicas() int32 {
	n, found, err := unstructured.NestedInt64(w.u.Object, "spec", "predictor", "minReplicas")
	if !found || err != nil || n < 1 {
		return 1
	}
	return int32(n)
}

func (w isvcWorkload) setReplicas(n int32) {
	_ = unstructured.SetNestedField(w.u.Object, int64(n), "spec", "predictor", "minReplicas")
	_ = unstructured.SetNestedField(w.u.Object, int64(n), "spec", "predictor", "maxReplicas")
}

func (w isvcWorkload) apply(ch Change) {
	raw, found, err := unstructured.NestedSlice(w.u.Object, "spec", "predictor", "containers")
	if !found || err != nil {
		return
	}
	cs := make([]corev1.Container, len(raw))
	for i, c := range raw {
		m, ok := c.(map[string]any)
		if !ok || runtime.DefaultUnstructuredConverter.FromUnstructured(m, &cs[i]) != nil {
			return
		}
	}
	applyToContainers(cs, KServeContainer, ch)
	for i := range cs {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&cs[i])
		if err != nil {
			return
		}
		raw[i] = m
	}
	_ = unstructured.SetNestedSlice(w.u.Object, raw, "spec", "predictor", "containers")
}

func (w isvcWorkload) controllerRef() metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: w.u.GetAPIVersion(), Kind: InferenceServiceKind, Name: w.u.GetName(), UID: w.u.GetUID(), Controller: &yes, BlockOwnerDeletion: &yes}
}

func (w isvcWorkload) object() (*unstructured.Unstructured, error) { return w.u, nil }

// newVersion: the InferenceService's spec, its pods labelled with the new
// version.
func (w isvcWorkload) newVersion(version string, replicas int32) workload {
	meta := versionMeta(w, version)
	u := &unstructured.Unstructured{Object: map[string]any{"spec": runtime.DeepCopyJSONValue(w.u.Object["spec"])}}
	u.SetAPIVersion(w.u.GetAPIVersion())
	u.SetKind(InferenceServiceKind)
	u.SetName(meta.Name)
	u.SetNamespace(w.u.GetNamespace())
	u.SetLabels(meta.Labels)
	u.SetAnnotations(meta.Annotations)
	_ = unstructured.SetNestedField(u.Object, version, "spec", "predictor", "labels", VersionLabel)
	out := isvcWorkload{u}
	out.setReplicas(replicas)
	return out
}
