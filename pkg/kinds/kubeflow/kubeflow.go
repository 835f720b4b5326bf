// Package kubeflow holds what the Kubeflow training-operator's kinds (TFJob,
// PyTorchJob, MPIJob, XGBoostJob, PaddleJob, JAXJob) share: one status shape,
// replica specs keyed by role, and pods labelled with role and index. A kind
// folder describes its differences in a Shape and embeds Base.
package kubeflow

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/charts"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// Operator is what serves these kinds.
const Operator = "the Kubeflow training-operator (v1)"

// Shape is how one training-operator kind differs from the others.
type Shape struct {
	// Name is easyai's name of the kind ("tf"), Aliases the other names
	// accepted for it, Chart its chart's folder under charts/.
	Name    string
	Aliases []string
	Chart   string
	// New returns an empty typed API object, for strict decoding.
	New func() runtime.Object

	APIKind string // "TFJob"
	// Plural is the resource name ("tfjobs").
	Plural string
	// ReplicaSpecsField is the spec field of the replica map ("tfReplicaSpecs").
	ReplicaSpecsField string
	// Roles are the replica types in the order replicas are shown, as the
	// API spells them ("Chief", "PS", "Worker").
	Roles []string
	// NoKueue: Kueue has no integration of the kind (its kubeflow.org/mpijob
	// is mpi-operator's v2beta1, not the training-operator's v1 MPIJob).
	NoKueue bool
}

// Base implements the parts of kinds.Kind every training-operator kind shares.
type Base struct {
	Shape Shape
}

// KueueIntegration is Kueue's integration of the kind: kubeflow.org/ and
// its resource in the singular ("kubeflow.org/tfjob"), "" without one
// (kinds.KueueIntegration).
func (b Base) KueueIntegration() string {
	if b.Shape.NoKueue {
		return ""
	}
	return kubeflowv1.GroupVersion.Group + "/" + strings.ToLower(b.Shape.APIKind)
}

// GroupVersionKind of the kind.
func (b Base) GroupVersionKind() schema.GroupVersionKind {
	return kubeflowv1.SchemeGroupVersion.WithKind(b.Shape.APIKind)
}

// Resource of the kind.
func (b Base) Resource() schema.GroupVersionResource {
	return kubeflowv1.SchemeGroupVersion.WithResource(b.Shape.Plural)
}

// Operator names the training-operator.
func (Base) Operator() string { return Operator }

// Name is easyai's name of the kind.
func (b Base) Name() string { return b.Shape.Name }

// Aliases are the other names of the kind.
func (b Base) Aliases() []string { return b.Shape.Aliases }

// Chart is the kind's embedded chart.
func (b Base) Chart() fs.FS { return charts.Get(b.Shape.Chart) }

// Decode strictly decodes a rendered job into the kind's typed API object.
func (b Base) Decode(obj *unstructured.Unstructured) (runtime.Object, error) {
	return kinds.StrictDecode(obj, b.Shape.New())
}

// PodSelector selects the pods the operator created for the job.
func (Base) PodSelector(jobName string) string {
	return kubeflowv1.JobNameLabel + "=" + jobName
}

// listed is the part of a training-operator job that list reads, decoded
// straight from JSON: no generic maps, no managedFields, and of each role
// only its replica count and the resources of its containers. Its replica
// map is under a field of each kind's own (Shape.ReplicaSpecsField): a job is
// decoded into a listed through listedAs, the same struct with that field's
// name as the map's tag, so that it is read in one pass and a new kind needs
// nothing here.
type listed struct {
	Kind     string              `json:"kind"`
	Metadata jobmodel.ObjectMeta `json:"metadata"`
	// Spec is an unnamed struct so that listedAs's copy of it, retagged,
	// converts to it.
	Spec struct {
		RunPolicy kubeflowv1.RunPolicy `json:"runPolicy"`
		// Replicas is the kind's replica map, spec.REPLICASPECSFIELD.
		Replicas map[string]listedReplica `json:"-"`
	} `json:"spec"`
	Status kubeflowv1.JobStatus `json:"status"`
}

// listedTypes caches listedAs's types by replica-map field.
var listedTypes sync.Map

// listedAs is the type of a pointer to listed whose Spec.Replicas is the
// JSON field field: a *listed converts to it (Go ignores tags when
// converting), and decoding into the converted pointer fills the listed.
func listedAs(field string) reflect.Type {
	if t, ok := listedTypes.Load(field); ok {
		return t.(reflect.Type)
	}
	tag := reflect.StructTag("json:" + strconv.Quote(field))
	t := reflect.PointerTo(retag(reflect.TypeFor[listed](), tag, "Spec", "Replicas"))
	listedTypes.Store(field, t)
	return t
}

// retag returns the struct type t with the tag of the field at path (its
// name in t, then in the field's own struct type, ...) set to tag.
func retag(t reflect.Type, tag reflect.StructTag, path ...string) reflect.Type {
	fields := make([]reflect.StructField, t.NumField())
	for i := range fields {
		fields[i] = t.Field(i)
		switch {
		case fields[i].Name != path[0]:
		case len(path) == 1:
			fields[i].Tag = tag
		default:
			fields[i].Type = retag(fields[i].Type, tag, path[1:]...)
		}
	}
	return reflect.StructOf(fields)
}

// decodeInto is what to decode the JSON of a job of the kind into to fill j.
func (b Base) decodeInto(j *listed) any {
	return reflect.ValueOf(j).Convert(listedAs(b.Shape.ReplicaSpecsField)).Interface()
}

// listedReplica is what list reads of one role.
type listedReplica struct {
	Replicas *int32               `json:"replicas"`
	Template kinds.ListedTemplate `json:"template"`
}

func (b Base) replicaSpecs(obj *unstructured.Unstructured) (map[string]*kubeflowv1.ReplicaSpec, error) {
	raw, found, err := unstructured.NestedMap(obj.Object, "spec", b.Shape.ReplicaSpecsField)
	if err != nil || !found {
		return nil, err
	}
	specs := map[string]*kubeflowv1.ReplicaSpec{}
	for role, v := range raw {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		var spec kubeflowv1.ReplicaSpec
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &spec); err != nil {
			return nil, fmt.Errorf("spec.%s.%s: %w", b.Shape.ReplicaSpecsField, role, err)
		}
		specs[role] = &spec
	}
	return specs, nil
}

func replicasOf(spec *kubeflowv1.ReplicaSpec) int32 {
	if spec == nil || spec.Replicas == nil {
		return 1
	}
	return *spec.Replicas
}

// Summarize reads list's view of a training-operator job.
func (b Base) Summarize(obj *unstructured.Unstructured, gpu corev1.ResourceName) (jobmodel.Summary, error) {
	return kinds.SummarizeObject(b, obj, gpu)
}

// SummarizeJSON is Summarize of a job as the API server sent it.
func (b Base) SummarizeJSON(data []byte, gpu corev1.ResourceName) (jobmodel.Summary, error) {
	var j listed
	if err := json.Unmarshal(data, b.decodeInto(&j)); err != nil {
		return jobmodel.Summary{}, b.unreadable(&j, err)
	}
	return b.summarizeListed(&j, gpu), nil
}

// SummarizeNext reads the next job of a LIST's items from dec, in one pass
// (kinds.StreamSummarizer). On a value of the wrong type its error wraps the
// jsonv2.SemanticError, and the summary names the job as far as it was read.
func (b Base) SummarizeNext(dec *jsontext.Decoder, gpu corev1.ResourceName) (jobmodel.Summary, error) {
	var j listed
	if err := jsonv2.UnmarshalDecode(dec, b.decodeInto(&j)); err != nil {
		return jobmodel.NewSummary(j.Kind, j.Metadata), b.unreadable(&j, err)
	}
	return b.summarizeListed(&j, gpu), nil
}

// unreadable says which job could not be read, when its name was.
func (b Base) unreadable(j *listed, err error) error {
	if j.Metadata.Name != "" {
		return fmt.Errorf("%s %s/%s: %w", b.Shape.APIKind, j.Metadata.Namespace, j.Metadata.Name, err)
	}
	return fmt.Errorf("%s: %w", b.Shape.APIKind, err)
}

// summarizeListed is list's view of the job j.
func (b Base) summarizeListed(j *listed, gpu corev1.ResourceName) jobmodel.Summary {
	s := jobmodel.NewSummary(j.Kind, j.Metadata)
	s.Status = Status(j.Status, j.Spec.RunPolicy)
	for role, spec := range j.Spec.Replicas {
		n := int32(1)
		if spec.Replicas != nil {
			n = *spec.Replicas
		}
		s.Workers.Total += n
		kinds.AddGPUs(&s, n, spec.Template, gpu)
		if rs := replicaStatus(j.Status.ReplicaStatuses, role); rs != nil {
			s.Workers.Ready += rs.Active
		}
	}
	if t := j.Status.StartTime; t != nil {
		s.Started = ptrTime(t.Time)
	}
	if t := j.Status.CompletionTime; t != nil {
		s.Finished = ptrTime(t.Time)
	} else if s.Status.State.Final() {
		if cond := lastTrue(j.Status.Conditions); cond != nil {
			s.Finished = ptrTime(cond.LastTransitionTime.Time)
		}
	}
	return s
}

// replicaStatus finds a role's status. The operator keys statuses by the
// role's canonical spelling ("Worker", "PS") even when the spec spells it
// otherwise ("worker"), which the API accepts.
func replicaStatus(statuses map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaStatus, role string) *kubeflowv1.ReplicaStatus {
	if rs, ok := statuses[kubeflowv1.ReplicaType(role)]; ok {
		return rs
	}
	for t, rs := range statuses {
		if strings.EqualFold(string(t), role) {
			return rs
		}
	}
	return nil
}

func ptrTime(t time.Time) *time.Time { return &t }

func lastTrue(conds []kubeflowv1.JobCondition) *kubeflowv1.JobCondition {
	for i := len(conds) - 1; i >= 0; i-- {
		if conds[i].Status == corev1.ConditionTrue {
			return &conds[i]
		}
	}
	return nil
}

// Status maps the operator's job conditions to easyai's state. The operator
// keeps old conditions (Created, Running set False), so the strongest true
// condition wins: a final state over Suspended over Restarting over Running.
func Status(st kubeflowv1.JobStatus, policy kubeflowv1.RunPolicy) jobmodel.Status {
	find := func(t kubeflowv1.JobConditionType) *kubeflowv1.JobCondition {
		for i := range st.Conditions {
			if st.Conditions[i].Type == t && st.Conditions[i].Status == corev1.ConditionTrue {
				return &st.Conditions[i]
			}
		}
		return nil
	}
	from := func(state jobmodel.State, c *kubeflowv1.JobCondition) jobmodel.Status {
		return jobmodel.Status{State: state, Reason: c.Reason, Message: c.Message}
	}
	switch {
	case find(kubeflowv1.JobFailed) != nil:
		return from(jobmodel.Failed, find(kubeflowv1.JobFailed))
	case find(kubeflowv1.JobSucceeded) != nil:
		return from(jobmodel.Succeeded, find(kubeflowv1.JobSucceeded))
	case find(kubeflowv1.JobSuspended) != nil:
		return from(jobmodel.Suspended, find(kubeflowv1.JobSuspended))
	case find(kubeflowv1.JobRestarting) != nil:
		return from(jobmodel.Running, find(kubeflowv1.JobRestarting))
	case find(kubeflowv1.JobRunning) != nil:
		return from(jobmodel.Running, find(kubeflowv1.JobRunning))
	case policy.Suspend != nil && *policy.Suspend:
		return jobmodel.Status{State: jobmodel.Suspended, Reason: "Suspended", Message: "runPolicy.suspend is set"}
	case find(kubeflowv1.JobCreated) != nil:
		// Created but not running: waiting for its pods to be scheduled and to
		// start, or (gang) for its PodGroup to fit.
		c := find(kubeflowv1.JobCreated)
		if policy.SchedulingPolicy != nil {
			return jobmodel.Status{State: jobmodel.Queued, Reason: c.Reason, Message: "waiting for its gang of pods to be scheduled together"}
		}
		return from(jobmodel.Pending, c)
	case len(st.Conditions) == 0:
		return jobmodel.Status{State: jobmodel.Pending, Reason: "NotReconciled", Message: "the operator has not handled the job yet"}
	}
	return jobmodel.Status{State: jobmodel.Unknown}
}

// Replicas lists the job's replicas by role and index from its pods; replicas
// the spec asks for without a pod are Pending.
func (b Base) Replicas(obj *unstructured.Unstructured, pods []corev1.Pod) ([]jobmodel.Replica, error) {
	specs, err := b.replicaSpecs(obj)
	if err != nil {
		return nil, err
	}
	set := jobmodel.NewReplicaSet()
	for i := range pods {
		p := &pods[i]
		role := p.Labels[kubeflowv1.ReplicaTypeLabel]
		if role == "" {
			continue
		}
		// Labels are anyone's to write: a pod is the replica only under the
		// name the operator gives it, JOB-ROLE-INDEX, which the replica's
		// own pod holds while it exists. A teammate's pod with a replica's
		// labels is not taken for it. An MPIJob's pods carry no index label:
		// its launcher is JOB-launcher, its workers JOB-worker-INDEX.
		prefix := obj.GetName() + "-" + strings.ToLower(role)
		index := 0
		if label, ok := p.Labels[kubeflowv1.ReplicaIndexLabel]; ok {
			var err error
			if index, err = strconv.Atoi(label); err != nil || p.Name != prefix+"-"+label {
				continue
			}
		} else if p.Name != prefix {
			rest, ok := strings.CutPrefix(p.Name, prefix+"-")
			n, err := strconv.Atoi(rest)
			if !ok || err != nil || n < 0 || strconv.Itoa(n) != rest {
				continue
			}
			index = n
		}
		set.Observe(jobmodel.ReplicaFromPod(strings.ToLower(role), index, p))
	}
	for role, spec := range specs {
		for i := 0; i < int(replicasOf(spec)); i++ {
			set.Expect(strings.ToLower(role), i)
		}
	}
	roles := make([]string, len(b.Shape.Roles))
	for i, role := range b.Shape.Roles {
		roles[i] = strings.ToLower(role)
	}
	return set.Sorted(roles), nil
}
