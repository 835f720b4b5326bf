// Package kinds defines what easyai needs to know about one kind of training
// job, and the registry of the kinds it supports. Everything that differs
// between TFJob, PyTorchJob, ... lives behind Kind, one folder per kind; the
// commands and engines only ever talk to this interface.
package kinds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Kind is one kind of training job.
type Kind interface {
	// Name is easyai's name of the kind, as in "easyai submit tf" and "tf/NAME".
	Name() string
	// Aliases are other names accepted for it ("tfjob").
	Aliases() []string
	// GroupVersionKind and Resource locate the kind's objects in the API.
	GroupVersionKind() schema.GroupVersionKind
	Resource() schema.GroupVersionResource
	// Operator names what serves the kind, for "not installed" hints.
	Operator() string

	// Chart is the kind's Helm chart (its root holds Chart.yaml).
	Chart() fs.FS
	// SubmitFlags adds the kind's own submit flags (e.g. --ps) to fs and
	// returns what turns them, with the common ones, into chart values
	// (its replicas by role included).
	SubmitFlags(fs *pflag.FlagSet) KindValues
	// Decode strictly decodes one rendered object into the kind's typed API
	// object: an unknown or misspelt field is an error naming its path.
	Decode(obj *unstructured.Unstructured) (runtime.Object, error)

	// Summarize reads a job's state, replica counts, GPUs and times from the
	// job object alone (no pod lookups), for list and get alike.
	Summarize(obj *unstructured.Unstructured, gpu corev1.ResourceName) (jobmodel.Summary, error)
	// SummarizeJSON is Summarize of the object as the API server sent it
	// (list decodes pages of thousands of jobs this way, without generic maps).
	SummarizeJSON(data []byte, gpu corev1.ResourceName) (jobmodel.Summary, error)
	// Replicas names a job's replicas (ROLE-INDEX) from its pods; replicas
	// the spec asks for that have no pod yet are listed as Pending.
	Replicas(obj *unstructured.Unstructured, pods []corev1.Pod) ([]jobmodel.Replica, error)
	// PodSelector is the label selector of the job's pods.
	PodSelector(jobName string) string
}

// Suspender is a Kind whose jobs can be suspended (their pods deleted, the
// job kept with its spec) and resumed (its pods made anew). A kind opts in by
// implementing it; "easyai suspend" refuses the jobs of other kinds.
type Suspender interface {
	// Suspend asks the kind's operator to suspend the job obj, as last read.
	// An error says why the job cannot be suspended in its present state.
	Suspend(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error
	// ResumeWarning is why resuming obj may harm it beyond restarting its
	// pods ("" when it cannot): the command asks before resuming it.
	ResumeWarning(obj *unstructured.Unstructured) string
	// Resume asks the kind's operator to resume the suspended job obj.
	Resume(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error
}

// Detailer is a Kind with more to say of a job in "easyai get" than the
// common fields: a TrainJob's runtime, its jobs and its trainer's progress.
type Detailer interface {
	// Details reads them from the job object alone, in the order shown.
	Details(obj *unstructured.Unstructured) ([]jobmodel.Detail, error)
}

// Intermediary is a Kind whose operator makes objects between the job and
// its pods (a TrainJob: a JobSet and its Jobs). A Job that cannot create
// its pods (a missing ServiceAccount, a quota) says so only in Warning events
// on itself: get shows those events as the job's.
type Intermediary interface {
	// Intermediates names the objects of the job obj, as last read: each
	// event's involved object ("Kind/name") and what get calls it.
	Intermediates(obj *unstructured.Unstructured) map[string]string
}

// Runner is a Kind whose jobs say what they run elsewhere than in a pod
// template (a TrainJob: in spec.trainer, over its runtime's). get shows it
// for a job easyai did not submit.
type Runner interface {
	// Runs is the image and the command the job's object names ("" and
	// nil where it leaves them to something else).
	Runs(obj *unstructured.Unstructured) (image string, command []string)
}

// RuntimeLister is a Kind whose jobs run on runtimes the cluster defines (a
// TrainJob: the training runtimes of Kubeflow Trainer v2): "easyai
// runtimes" lists them, and submit completes --runtime with them.
type RuntimeLister interface {
	// ListRuntimes lists the cluster's runtimes and namespace's, with a note
	// for each list left out (one the user may not read). Its error is an
	// ErrNoRuntimes (errors.Is) when the cluster serves no runtimes at all.
	ListRuntimes(ctx context.Context, dyn dynamic.Interface, namespace string) (runtimes []Runtime, notes []string, err error)
}

// ErrNoRuntimes is what a RuntimeLister's error is when the cluster serves
// no runtimes at all: what defines them is not installed.
var ErrNoRuntimes = errors.New("the cluster serves no runtimes")

// VolcanoFramework is a Kind whose jobs can run as Volcano Jobs, with one
// of Volcano's framework plugins (a TFJob: its tensorflow plugin): a
// pipeline's step of the kind runs so, Volcano's JobFlow making Volcano Jobs
// only. The volcano kind itself is one, of no plugin.
type VolcanoFramework interface {
	// VolcanoFramework is the plugin ("" for the volcano kind) and, for
	// the kind's roles whose task has another name, that name (an MPIJob's
	// launcher is the mpi plugin's master).
	VolcanoFramework() (framework string, tasks map[string]string)
}

// KueueIntegration is a Kind whose jobs Kueue can admit: the name of its
// integration in Kueue's configuration ("kubeflow.org/tfjob"), "" for none.
// A job of it with a LocalQueue waits for Kueue's admission, suspended.
type KueueIntegration interface {
	KueueIntegration() string
}

// Templated is a Kind whose jobs a controller may make from a template of
// easyai's (a Volcano Job made by a JobFlow from a pipeline step's
// JobTemplate), copying its spec but not its labels and annotations: easyai
// reads those from the template.
type Templated interface {
	// Template is the resource of such templates and the name of the one
	// the job of these labels, in namespace, was made from ("": none).
	Template(labels map[string]string, namespace string) (schema.GroupVersionResource, string)
	// MadeFrom is a label selector of the jobs of namespace made from the
	// templates names.
	MadeFrom(namespace string, names []string) string
}

// NoPriorityClass is a kind whose API cannot set its pods' PriorityClass
// (a TrainJob: its runtime decides): submit leaves the configuration's
// priority-class out of its values rather than fail.
type NoPriorityClass interface {
	NoPriorityClass()
}

// Registry holds the supported kinds, and the kinds that are only submitted:
// rendered as the API kind of a registered one and read back as that one
// (deepspeed and mlx are TrainJobs).
type Registry struct {
	kinds      []Kind
	submitOnly []Kind
}

// NewRegistry returns a registry of the given kinds.
func NewRegistry(ks ...Kind) *Registry {
	r := &Registry{kinds: append([]Kind(nil), ks...)}
	sort.Slice(r.kinds, func(i, j int) bool { return r.kinds[i].Name() < r.kinds[j].Name() })
	return r
}

// WithSubmitOnly adds kinds that are only submitted: "easyai submit KIND"
// and job files naming them know them, every other command reads their jobs
// as the registered kind of their GroupVersionKind.
func (r *Registry) WithSubmitOnly(ks ...Kind) *Registry {
	r.submitOnly = append(r.submitOnly, ks...)
	sort.Slice(r.submitOnly, func(i, j int) bool { return r.submitOnly[i].Name() < r.submitOnly[j].Name() })
	return r
}

// Submittable returns every kind "easyai submit" takes, sorted by name.
func (r *Registry) Submittable() []Kind {
	all := append(r.All(), r.submitOnly...)
	sort.Slice(all, func(i, j int) bool { return all[i].Name() < all[j].Name() })
	return all
}

// SubmittableNames returns their names.
func (r *Registry) SubmittableNames() []string {
	var names []string
	for _, k := range r.Submittable() {
		names = append(names, k.Name())
	}
	return names
}

// LookupSubmittable finds a kind "easyai submit" takes by name or alias,
// else as Lookup does.
func (r *Registry) LookupSubmittable(name string) (Kind, bool) {
	lower := strings.ToLower(name)
	for _, k := range r.submitOnly {
		if k.Name() == lower || slices.Contains(k.Aliases(), lower) {
			return k, true
		}
	}
	return r.Lookup(name)
}

// All returns every kind, sorted by name.
func (r *Registry) All() []Kind { return append([]Kind(nil), r.kinds...) }

// Names returns the kinds' names.
func (r *Registry) Names() []string {
	names := make([]string, len(r.kinds))
	for i, k := range r.kinds {
		names[i] = k.Name()
	}
	return names
}

// RuntimeLister is the first registered kind that lists runtimes.
func (r *Registry) RuntimeLister() (RuntimeLister, bool) {
	for _, k := range r.kinds {
		if l, ok := k.(RuntimeLister); ok {
			return l, true
		}
	}
	return nil, false
}

// Lookup finds a kind by name, alias or Kubernetes kind (case-insensitive).
func (r *Registry) Lookup(name string) (Kind, bool) {
	name = strings.ToLower(name)
	for _, k := range r.kinds {
		if k.Name() == name || strings.ToLower(k.GroupVersionKind().Kind) == name {
			return k, true
		}
		for _, a := range k.Aliases() {
			if a == name {
				return k, true
			}
		}
	}
	return nil, false
}

// ForGVK finds the kind of an API object.
func (r *Registry) ForGVK(gvk schema.GroupVersionKind) (Kind, bool) {
	for _, k := range r.kinds {
		if k.GroupVersionKind() == gvk {
			return k, true
		}
	}
	return nil, false
}

// DeepCopyJSON copies a typed API object through its JSON form, for the
// hand-written subsets of APIs that publish no Go types easyai can use
// (ColossalAIJob, TrainJob): their DeepCopyObject. It panics only when the
// type cannot round-trip JSON, which a test of the type would show.
func DeepCopyJSON[T any](in *T) *T {
	data, err := json.Marshal(in)
	if err != nil {
		panic(err)
	}
	out := new(T)
	if err := json.Unmarshal(data, out); err != nil {
		panic(err)
	}
	return out
}

// JSONSummarizer is what SummarizeObject needs of a kind.
type JSONSummarizer interface {
	SummarizeJSON(data []byte, gpu corev1.ResourceName) (jobmodel.Summary, error)
}

// StreamSummarizer is a kind that reads list's view of a job straight from
// a LIST's stream of items, in one pass (no copy of the job's JSON first,
// no second scan of it). On a value that does not fit (an error wrapping a
// *json.SemanticError of github.com/go-json-experiment/json) the summary
// names the job as far as it was read, and the caller reads the rest of the
// job; any other error (its syntax, a failed read) ends the stream.
type StreamSummarizer interface {
	SummarizeNext(dec *jsontext.Decoder, gpu corev1.ResourceName) (jobmodel.Summary, error)
}

// SummarizeObject is a kind's Summarize through its SummarizeJSON: the
// object as the API server would send it.
func SummarizeObject(k JSONSummarizer, obj *unstructured.Unstructured, gpu corev1.ResourceName) (jobmodel.Summary, error) {
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return jobmodel.Summary{}, err
	}
	return k.SummarizeJSON(data, gpu)
}

// SetField sets one field of a job with a JSON merge patch (suspend,
// resume): path is the field's, as in "spec", "suspend". Only that field is
// written, never the whole job as it was read.
func SetField(ctx context.Context, dyn dynamic.Interface, k Kind, obj *unstructured.Unstructured, value any, path ...string) error {
	var patch any = value
	for i := len(path) - 1; i >= 0; i-- {
		patch = map[string]any{path[i]: patch}
	}
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = dyn.Resource(k.Resource()).Namespace(obj.GetNamespace()).Patch(ctx, obj.GetName(), types.MergePatchType, data, metav1.PatchOptions{FieldManager: "easyai"})
	if err != nil {
		return fmt.Errorf("%s/%s: setting %s to %v: %w", k.Name(), obj.GetName(), strings.Join(path, "."), value, err)
	}
	return nil
}

// JobName is a job's name as easyai writes it, KIND/NAME ("tf/mnist"), of
// its object's apiVersion, kind and name; the API kind in lower case where
// it is no kind of reg's.
func (r *Registry) JobName(apiVersion, kind, name string) string {
	if k, ok := r.ForGVK(schema.FromAPIVersionAndKind(apiVersion, kind)); ok {
		return k.Name() + "/" + name
	}
	return strings.ToLower(kind) + "/" + name
}
