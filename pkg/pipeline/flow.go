package pipeline

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// Volcano's flow API.
var (
	JobFlows     = schema.GroupVersionResource{Group: "flow.volcano.sh", Version: "v1alpha1", Resource: "jobflows"}
	JobTemplates = schema.GroupVersionResource{Group: "flow.volcano.sh", Version: "v1alpha1", Resource: "jobtemplates"}
)

// Labels of a pipeline's objects.
const (
	// Label is the pipeline's name, on its JobFlow and JobTemplates.
	Label = "easyai.io/pipeline"
	// StepLabel is the step a JobTemplate is.
	StepLabel = "easyai.io/step"
	// createdByJobFlow is the label Volcano's JobFlow controller puts on
	// the jobs it creates: NAMESPACE.JOBFLOW.
	createdByJobFlow = "volcano.sh/createdByJobFlow"
	// createdByJobTemplate: NAMESPACE.JOBTEMPLATE.
	createdByJobTemplate = "volcano.sh/createdByJobTemplate"
)

// TemplateName is the name of a step's JobTemplate: PIPELINE-STEP.
func TemplateName(pipeline, step string) string { return pipeline + "-" + step }

// JobName is the name Volcano's JobFlow controller gives a step's job:
// the JobFlow's name, "-", the JobTemplate's (PIPELINE-PIPELINE-STEP).
func JobName(pipeline, step string) string { return pipeline + "-" + TemplateName(pipeline, step) }

// MaxJobName is the longest job name a step may have: Volcano names its
// pods JOB-TASK-INDEX and a Service JOB, DNS labels of at most 63.
const MaxJobName = 47

// asVolcano is a step's job file as a Volcano Job file: a volcano job as
// it is; a job of a kind that can run as a Volcano Job with a framework's
// plugin (kinds.VolcanoFramework: tf, pytorch, mpi) as one, its roles as
// tasks. Any other kind cannot be a Volcano Job, which is all a JobFlow
// runs.
func asVolcano(reg *kinds.Registry, source, step string, kind kinds.Kind, data []byte) ([]byte, error) {
	out, ok, err := reg.AsVolcanoJobFile(kind, data)
	switch {
	case !ok:
		return nil, exit.UsageErrorf("%s: step %s is a %s job: a pipeline's steps run as Volcano Jobs (Volcano's JobFlow creates nothing else), and a %s job cannot be one", source, step, kind.Name(), kind.Name())
	case err != nil:
		return nil, exit.UsageErrorf("%s: %v", source, err)
	}
	return out, nil
}

// RenderStep renders the job of step (a Volcano Job file) named name, with
// set (--set KEY=VALUE) over the file's values: the cmd layer's submit, as
// a dry run.
type RenderStep func(ctx context.Context, step, name string, file []byte, fileName string, set []string) (*unstructured.Unstructured, error)

// Plan is a pipeline as it is created: its JobFlow, a JobTemplate per
// step, and each step's job as rendered.
type Plan struct {
	Name, Namespace string
	Flow            *unstructured.Unstructured
	// Templates and Jobs are in the order the steps run.
	Templates []*unstructured.Unstructured
	Jobs      []*unstructured.Unstructured
}

// Steps is how Build reads and renders the steps' jobs.
type Steps struct {
	// Kinds are the kinds a step may be; KindOf the kind a job file names.
	Kinds  *kinds.Registry
	KindOf func(data []byte) (kinds.Kind, error)
	// JobFile reads a step's job file.
	JobFile func(*Step) (string, []byte, error)
	Render  RenderStep
}

// Build renders every step of f through steps (each step's kind named by
// KindOf, its file read by JobFile, rendered by Render) and makes the
// pipeline's objects. A step with pretrainedFrom mounts that step's
// model_dir: the upstream's job directory, known once it is rendered, on
// the same storage.
func Build(ctx context.Context, f *File, source, namespace string, steps Steps, meta Meta) (*Plan, error) {
	p := &Plan{Name: f.Name, Namespace: namespace}
	rendered := map[string]storage.Values{}
	for _, name := range f.Order() {
		s := f.Step(name)
		if label := namespace + "." + TemplateName(f.Name, s.Name); len(label) > 63 {
			return nil, exit.UsageErrorf("%s: step %s: Volcano's JobFlow labels the step's job %s=%s, %d characters, and a label value has at most 63: it would never create the job; shorten the pipeline's or the step's name (or run it in a namespace of a shorter name)", source, s.Name, createdByJobTemplate, label, len(label))
		}
		fileName, data, err := steps.JobFile(s)
		if err != nil {
			return nil, err
		}
		kind, err := steps.KindOf(data)
		if err != nil {
			return nil, err
		}
		if data, err = asVolcano(steps.Kinds, fileName, s.Name, kind, data); err != nil {
			return nil, err
		}
		jobName := JobName(f.Name, s.Name)
		if len(jobName) > MaxJobName {
			return nil, exit.UsageErrorf("%s: step %s: Volcano would name its job %s, %d characters; at most %d leave room for its pods' names (JOB-TASK-INDEX, DNS labels): shorten the pipeline's or the step's name", source, s.Name, jobName, len(jobName), MaxJobName)
		}
		var set []string
		if s.PretrainedFrom != "" {
			up, ok := rendered[s.PretrainedFrom]
			if !ok {
				return nil, exit.UsageErrorf("%s: step %s: pretrainedFrom: step %s has no storage: it leaves no model_dir", source, s.Name, s.PretrainedFrom)
			}
			set = append(set, "storage.preJobDir="+up.JobDir)
		}
		job, err := steps.Render(ctx, s.Name, jobName, data, fileName, set)
		if err != nil {
			if !strings.Contains(err.Error(), "step "+s.Name) {
				err = fmt.Errorf("%s: step %s: %w", source, s.Name, err)
			}
			return nil, err
		}
		if v, err := storage.Of(job); err == nil {
			rendered[s.Name] = v
			if s.PretrainedFrom != "" && v.Spec.String() != rendered[s.PretrainedFrom].Spec.String() {
				return nil, exit.UsageErrorf("%s: step %s: pretrainedFrom %s: its storage is %s, this step's %s: a job reads a model only from its own storage", source, s.Name, s.PretrainedFrom, rendered[s.PretrainedFrom].Spec.String(), v.Spec.String())
			}
		} else if s.PretrainedFrom != "" {
			return nil, exit.UsageErrorf("%s: step %s: pretrainedFrom: the step has no storage to mount %s's model_dir from: give it one (storage: in its job, or easyai config set storage)", source, s.Name, s.PretrainedFrom)
		}
		p.Jobs = append(p.Jobs, job)
		p.Templates = append(p.Templates, template(f.Name, s.Name, namespace, job, meta))
	}
	p.Flow = flow(f, namespace, meta)
	return p, nil
}

// Meta is what a pipeline's objects record of who made it.
type Meta struct {
	User       string
	CLIVersion string
}

func (m Meta) labels(pipeline string) map[string]string {
	l := map[string]string{jobmodel.ManagedByLabel: jobmodel.ManagedByValue, Label: pipeline}
	if m.User != "" {
		l[jobmodel.UserLabel] = jobmodel.LabelSafe(m.User)
	}
	return l
}

// template is a step's JobTemplate: its job's spec, and the job's labels
// and annotations (Volcano's controller copies only the spec onto the job
// it makes; easyai reads the rest back from here).
func template(pipeline, step, namespace string, job *unstructured.Unstructured, meta Meta) *unstructured.Unstructured {
	labels := job.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range meta.labels(pipeline) {
		labels[k] = v
	}
	labels[StepLabel] = step
	u := &unstructured.Unstructured{Object: map[string]any{"spec": job.Object["spec"]}}
	u.SetAPIVersion(JobTemplates.GroupVersion().String())
	u.SetKind("JobTemplate")
	u.SetName(TemplateName(pipeline, step))
	u.SetNamespace(namespace)
	u.SetLabels(labels)
	u.SetAnnotations(job.GetAnnotations())
	return u
}

// flow is the pipeline's JobFlow: each step a flow of its JobTemplate,
// depending on the steps it runs after; jobs are kept after it succeeds.
func flow(f *File, namespace string, meta Meta) *unstructured.Unstructured {
	var flows []any
	for _, name := range f.Order() {
		s := f.Step(name)
		fl := map[string]any{"name": TemplateName(f.Name, s.Name)}
		if len(s.After) > 0 {
			var targets []any
			for _, a := range s.After {
				targets = append(targets, TemplateName(f.Name, a))
			}
			fl["dependsOn"] = map[string]any{"targets": targets}
		}
		flows = append(flows, fl)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"flows": flows, "jobRetainPolicy": "retain"}}}
	u.SetAPIVersion(JobFlows.GroupVersion().String())
	u.SetKind("JobFlow")
	u.SetName(f.Name)
	u.SetNamespace(namespace)
	u.SetLabels(meta.labels(f.Name))
	a := map[string]string{jobmodel.VersionAnnotation: meta.CLIVersion}
	if meta.User != "" {
		a[jobmodel.UserAnnotation] = meta.User
	}
	u.SetAnnotations(a)
	return u
}

// ownedBy makes obj owned by the JobFlow owner, so that deleting the
// pipeline deletes it.
func ownedBy(obj, owner *unstructured.Unstructured) {
	yes := true
	obj.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: owner.GetAPIVersion(), Kind: owner.GetKind(), Name: owner.GetName(), UID: owner.GetUID(), BlockOwnerDeletion: &yes}})
}

// stepOf is the step of a job the JobFlow of pipeline made ("": not one).
func stepOf(pipeline string, job *unstructured.Unstructured) string {
	t := job.GetLabels()[createdByJobTemplate]
	_, name, ok := strings.Cut(t, ".")
	if !ok || !strings.HasPrefix(name, pipeline+"-") {
		return ""
	}
	return strings.TrimPrefix(name, pipeline+"-")
}
