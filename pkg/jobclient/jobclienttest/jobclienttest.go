// Package jobclienttest builds what the unit tests of the engines and the
// commands share: training-operator job objects as the operator leaves them,
// their pods and events, fake clients that serve them, and a factory on test
// streams.
package jobclienttest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
)

// Now is the tests' frozen clock: an hour after T0.
var (
	T0  = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	Now = T0.Add(time.Hour)
)

// Role is one replica type of a job.
type Role struct {
	Type     kubeflowv1.ReplicaType
	Replicas int32
	GPUs     int64
	// Active is how many of its pods the operator counts as running.
	Active int32
	// Image and Command of its container.
	Image   string
	Command []string
}

// Job describes a training-operator job; Object builds it.
type Job struct {
	APIKind   string // "TFJob" (default) or "PyTorchJob"
	Namespace string // default "team-a"
	Name      string
	Created   time.Time
	// External jobs carry none of easyai's labels or annotations.
	External   bool
	User       string
	Experiment string
	Labels     map[string]string
	// Request is the easyai.io/request annotation, when set.
	Request string
	Roles   []Role
	// Conditions are the operator's, each True, in order (e.g. Created,
	// Running); a Failed or Succeeded one sets Running False as the operator does.
	Conditions []kubeflowv1.JobConditionType
	Reason     string
	Message    string
	Started    *time.Time
	Finished   *time.Time
	Gang       bool
}

// Object is the job as the API server returns it.
func (j Job) Object() *unstructured.Unstructured {
	if j.APIKind == "" {
		j.APIKind = kubeflowv1.TFJobKind
	}
	if j.Namespace == "" {
		j.Namespace = "team-a"
	}
	specs, status := j.replicas()
	j.conditions(&status)
	policy := kubeflowv1.RunPolicy{}
	if j.Gang {
		policy.SchedulingPolicy = &kubeflowv1.SchedulingPolicy{MinAvailable: ptr.To(int32(len(j.Roles)))}
	}
	return asFromTheAPIServer(j.typed(j.meta(), policy, specs, status))
}

// meta is the job's metadata: easyai's labels and annotations unless the
// job is External.
func (j Job) meta() metav1.ObjectMeta {
	meta := metav1.ObjectMeta{
		Name: j.Name, Namespace: j.Namespace, CreationTimestamp: metav1.NewTime(j.Created),
		UID: types.UID("uid-" + j.Name), ResourceVersion: "1",
		Labels: map[string]string{}, Annotations: map[string]string{},
	}
	for k, v := range j.Labels {
		meta.Labels[k] = v
	}
	if !j.External {
		meta.Labels[jobmodel.ManagedByLabel] = jobmodel.ManagedByValue
		meta.Labels[jobmodel.NameLabel] = j.Name
		meta.Labels[jobmodel.KindLabel] = map[string]string{kubeflowv1.TFJobKind: "tf", kubeflowv1.PyTorchJobKind: "pytorch"}[j.APIKind]
		if j.User != "" {
			// The label form of the user, as submit writes it (docs/labels.md).
			meta.Labels[jobmodel.UserLabel] = strings.Trim(regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(j.User, "_"), "._-")
			meta.Annotations[jobmodel.UserAnnotation] = j.User
		}
		if j.Experiment != "" {
			meta.Labels[jobmodel.ExperimentLabel] = j.Experiment
		}
		meta.Annotations[jobmodel.VersionAnnotation] = "v0.1.0"
	}
	if j.Request != "" {
		meta.Annotations[jobmodel.RequestAnnotation] = j.Request
	}
	return meta
}

// replicas are the replica specs of the roles and their statuses.
func (j Job) replicas() (map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec, kubeflowv1.JobStatus) {
	specs := map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{}
	status := kubeflowv1.JobStatus{ReplicaStatuses: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaStatus{}}
	for _, r := range j.Roles {
		image := r.Image
		if image == "" {
			image = "example.com/train:1"
		}
		c := corev1.Container{Name: "train", Image: image, Command: r.Command}
		if r.GPUs > 0 {
			c.Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(r.GPUs, resource.DecimalSI)}
		}
		specs[r.Type] = &kubeflowv1.ReplicaSpec{
			Replicas: ptr.To(r.Replicas), RestartPolicy: kubeflowv1.RestartPolicyNever,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{c}}},
		}
		status.ReplicaStatuses[r.Type] = &kubeflowv1.ReplicaStatus{Active: r.Active}
	}
	return specs, status
}

// conditions adds the job's conditions, start and completion times to status.
func (j Job) conditions(status *kubeflowv1.JobStatus) {
	for _, t := range j.Conditions {
		reason, message := j.APIKind+string(t), j.APIKind+" "+j.Name+" is "+string(t)+"."
		if j.Reason != "" {
			reason, message = j.Reason, j.Message
		}
		if t == kubeflowv1.JobFailed || t == kubeflowv1.JobSucceeded {
			for i := range status.Conditions {
				if status.Conditions[i].Type == kubeflowv1.JobRunning {
					status.Conditions[i].Status = corev1.ConditionFalse
				}
			}
		}
		at := j.Created
		if j.Finished != nil {
			at = *j.Finished
		}
		status.Conditions = append(status.Conditions, kubeflowv1.JobCondition{
			Type: t, Status: corev1.ConditionTrue, Reason: reason, Message: message,
			LastUpdateTime: metav1.NewTime(at), LastTransitionTime: metav1.NewTime(at),
		})
	}
	if j.Started != nil {
		status.StartTime = ptr.To(metav1.NewTime(*j.Started))
	}
	if j.Finished != nil {
		status.CompletionTime = ptr.To(metav1.NewTime(*j.Finished))
	}
}

// typed is the job as the training-operator's type of its APIKind.
func (j Job) typed(meta metav1.ObjectMeta, policy kubeflowv1.RunPolicy, specs map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec, status kubeflowv1.JobStatus) runtime.Object {
	typeMeta := metav1.TypeMeta{APIVersion: kubeflowv1.SchemeGroupVersion.String(), Kind: j.APIKind}
	if j.APIKind == kubeflowv1.PyTorchJobKind {
		return &kubeflowv1.PyTorchJob{TypeMeta: typeMeta, ObjectMeta: meta, Status: status,
			Spec: kubeflowv1.PyTorchJobSpec{RunPolicy: policy, PyTorchReplicaSpecs: specs}}
	}
	return &kubeflowv1.TFJob{TypeMeta: typeMeta, ObjectMeta: meta, Status: status,
		Spec: kubeflowv1.TFJobSpec{RunPolicy: policy, TFReplicaSpecs: specs}}
}

// asFromTheAPIServer is obj through JSON, as from the API server (numbers
// as int64, times as strings).
func asFromTheAPIServer(obj runtime.Object) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		panic(err)
	}
	data, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		panic(err)
	}
	return u
}

func at(d time.Duration) *time.Time { t := T0.Add(d); return &t }

// Fixtures are jobs of both kinds in namespaces team-a and team-b:
//
//	team-a tf/mnist       Running    alice@corp, experiment lr-sweep; 1 PS and 2 workers of 1 GPU, all running
//	team-a tf/old         Succeeded  bob, a day old, ran for an hour
//	team-a pytorch/resnet Queued     made without easyai; a gang of 1 master and 3 workers of 8 GPUs
//	team-b tf/bert        Failed     alice@corp; 4 workers of 1 GPU
func Fixtures() []runtime.Object {
	worker := func(n int32, gpus int64, active int32) Role {
		return Role{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: n, GPUs: gpus, Active: active}
	}
	return []runtime.Object{
		Job{Name: "mnist", Created: T0, User: "alice@corp", Experiment: "lr-sweep",
			Request:    `{"image":"example.com/train:2","command":["python","train.py","--lr","0.1"]}`,
			Roles:      []Role{{Type: kubeflowv1.TFJobReplicaTypePS, Replicas: 1, Active: 1}, worker(2, 1, 2)},
			Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning}, Started: at(time.Minute)}.Object(),
		Job{Name: "old", Created: T0.Add(-24 * time.Hour), User: "bob", Roles: []Role{worker(1, 0, 0)},
			Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobSucceeded},
			Started:    at(-24 * time.Hour), Finished: at(-23 * time.Hour)}.Object(),
		Job{APIKind: kubeflowv1.PyTorchJobKind, Name: "resnet", Created: T0.Add(10 * time.Minute), External: true,
			Roles: []Role{{Type: "Master", Replicas: 1, GPUs: 8}, {Type: "Worker", Replicas: 3, GPUs: 8}}, Gang: true,
			Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated}}.Object(),
		Job{Namespace: "team-b", Name: "bert", Created: T0.Add(30 * time.Minute), User: "alice@corp",
			Roles: []Role{worker(4, 1, 0)}, Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobFailed},
			Started: at(31 * time.Minute), Finished: at(40 * time.Minute)}.Object(),
	}
}

// Pod is a pod of a job's replica, as the operator names and labels it.
func Pod(namespace, jobName, role string, index int, phase corev1.PodPhase, created time.Time) *corev1.Pod {
	idx := strconv.Itoa(index)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: jobName + "-" + role + "-" + idx, Namespace: namespace, CreationTimestamp: metav1.NewTime(created),
			Labels: map[string]string{
				kubeflowv1.JobNameLabel: jobName, kubeflowv1.ReplicaTypeLabel: role, kubeflowv1.ReplicaIndexLabel: idx,
			},
		},
		Spec:   corev1.PodSpec{NodeName: "node-" + idx},
		Status: corev1.PodStatus{Phase: phase},
	}
}

// Warning is a Warning event about an object.
func Warning(namespace, name, kind, object, reason, message string, count int32, last time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: namespace},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: object, Namespace: namespace},
		Type:           corev1.EventTypeWarning, Reason: reason, Message: message, Count: count,
		FirstTimestamp: metav1.NewTime(last.Add(-time.Minute)), LastTimestamp: metav1.NewTime(last),
	}
}

// Registry is the kinds easyai ships.
func Registry() *kinds.Registry { return registry.Default() }

// Dynamic is a fake dynamic client that serves the registry's kinds.
func Dynamic(objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	listKinds := map[schema.GroupVersionResource]string{}
	for _, k := range Registry().All() {
		listKinds[k.Resource()] = k.GroupVersionKind().Kind + "List"
	}
	// The metrics API's pod metrics (top job); empty unless a test adds some.
	listKinds[schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}] = "PodMetricsList"
	// Volcano's JobTemplates, whose jobs a JobFlow makes (a pipeline's steps).
	listKinds[schema.GroupVersionResource{Group: "flow.volcano.sh", Version: "v1alpha1", Resource: "jobtemplates"}] = "JobTemplateList"
	// Kueue's queues and Workloads (list, get, top job); empty unless a test
	// adds some.
	for resource, kind := range map[string]string{"localqueues": "LocalQueueList", "clusterqueues": "ClusterQueueList", "workloads": "WorkloadList"} {
		listKinds[schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: resource}] = kind
	}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, objs...)
}

// NotInstalled makes the fake client answer every request for resource
// ("pytorchjobs") as an API server without its CRD does: a bare 404.
func NotInstalled(c *dynamicfake.FakeDynamicClient, resource string) {
	c.PrependReactor("*", resource, func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewGenericServerResponse(404, "GET", schema.GroupResource{}, "", "404 page not found", 0, true)
	})
}

// Actions lists the fake client's requests as "verb resource" strings.
func Actions(actions []clienttesting.Action) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
	}
	return out
}

// Refuse makes the fake client answer verb ("list", "get", or "*") on
// resource ("tfjobs", or "*" for every one) as an API server answers a user
// without that permission: 403 Forbidden.
func Refuse(c *dynamicfake.FakeDynamicClient, verb, resource string) {
	c.PrependReactor(verb, resource, func(a clienttesting.Action) (bool, runtime.Object, error) {
		gvr := a.GetResource()
		reason := fmt.Errorf("User %q cannot %s resource %q in API group %q in the namespace %q", "alice", a.GetVerb(), gvr.Resource, gvr.Group, a.GetNamespace())
		return true, nil, apierrors.NewForbidden(gvr.GroupResource(), "", reason)
	})
}
