package serving

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
)

// A workload is what easyai changes to change one version of a serving:
// the Deployment it made (the deployment backend), or the
// InferenceService KServe turns into a Deployment (the kserve backend).
// Reads go to the Deployments either way; changes go to their workload.
type workload interface {
	// name is the object's name (NAME-vN).
	name() string
	labels() map[string]string
	annotations() map[string]string
	// setAnnotation sets an annotation; "" removes it.
	setAnnotation(key, value string)
	replicas() int32
	setReplicas(int32)
	// apply changes the server container's image and variables.
	apply(Change)
	// controllerRef makes an object owned by this one.
	controllerRef() metav1.OwnerReference
	// newVersion is a copy of this workload as version, with replicas,
	// not yet created.
	newVersion(version string, replicas int32) workload
	// object is the workload as the API server takes it.
	object() (*unstructured.Unstructured, error)
}

// A backend reads and writes a kind of workload.
type backend interface {
	// kind is the workload's kind, for messages and -o name.
	kind() string
	get(ctx context.Context, namespace, name string) (workload, error)
	create(ctx context.Context, w workload, dryRun bool) (workload, error)
	update(ctx context.Context, w workload) error
	delete(ctx context.Context, namespace, name string) error
	// fromObject is the workload of a rendered object.
	fromObject(obj *unstructured.Unstructured) (workload, error)
}

// workloadOf is the backend and the name of what makes the Deployment d:
// the InferenceService that controls it, else d itself.
func (c *Client) workloadOf(d *appsv1.Deployment) (backend, string) {
	if ref := metav1.GetControllerOf(d); ref != nil && ref.Kind == InferenceServiceKind && strings.HasPrefix(ref.APIVersion, KServeGroup+"/") {
		return c.inferenceServices(), ref.Name
	}
	return c.deployments(), d.Name
}

// load reads the workload of the Deployment d, and checks that it is the
// serving's (its label): a Deployment's owner reference is anyone's with
// edit rights to write.
func (c *Client) load(ctx context.Context, d *appsv1.Deployment) (backend, workload, error) {
	b, name := c.workloadOf(d)
	w, err := b.get(ctx, d.Namespace, name)
	if err != nil {
		return nil, nil, fmt.Errorf("the %s of serving %s's %s: %w", b.kind(), d.Labels[Label], d.Labels[VersionLabel], err)
	}
	if w.labels()[Label] != d.Labels[Label] {
		return nil, nil, fmt.Errorf("the %s %s is not serving %s's (label %s)", b.kind(), name, d.Labels[Label], Label)
	}
	return b, w, nil
}

// modify reads the workload of d, changes it and writes it back, again
// when someone else changed it in between.
func (c *Client) modify(ctx context.Context, d *appsv1.Deployment, change func(workload)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		b, w, err := c.load(ctx, d)
		if err != nil {
			return err
		}
		change(w)
		return b.update(ctx, w)
	})
}

// applyToContainers changes the container named container of cs: its
// image and variables.
func applyToContainers(cs []corev1.Container, container string, ch Change) {
	for i := range cs {
		if cs[i].Name != container {
			continue
		}
		if ch.Image != "" {
			cs[i].Image = ch.Image
		}
		for _, e := range ch.Env {
			name, value, _ := strings.Cut(e, "=")
			set := false
			for j := range cs[i].Env {
				if cs[i].Env[j].Name == name {
					cs[i].Env[j] = corev1.EnvVar{Name: name, Value: value}
					set = true
				}
			}
			if !set {
				cs[i].Env = append(cs[i].Env, corev1.EnvVar{Name: name, Value: value})
			}
		}
	}
}

// setOrDelete sets m[key] to value, or removes key when value is "".
func setOrDelete(m map[string]string, key, value string) {
	if value == "" {
		delete(m, key)
		return
	}
	m[key] = value
}

// versionMeta is the metadata of a new version of a serving: the old
// version's labels and annotations, less what belongs to the old one.
func versionMeta(old workload, version string) metav1.ObjectMeta {
	labels, annotations := copyMap(old.labels()), copyMap(old.annotations())
	labels[VersionLabel] = version
	delete(annotations, ReplicasBeforeAnnotation)
	delete(annotations, "deployment.kubernetes.io/revision")
	delete(annotations, "kubectl.kubernetes.io/last-applied-configuration")
	return metav1.ObjectMeta{Name: DeploymentName(labels[Label], version), Labels: labels, Annotations: annotations}
}

func toObject(obj runtime.Object, apiVersion, kind string) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	return u, nil
}
