package pipeline

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// VolcanoJobs are the jobs a JobFlow makes.
var VolcanoJobs = schema.GroupVersionResource{Group: "batch.volcano.sh", Version: "v1alpha1", Resource: "jobs"}

// Client reads and changes the pipelines of a cluster.
type Client struct {
	Dynamic dynamic.Interface
	Now     func() time.Time
}

func createOptions(dryRun bool) metav1.CreateOptions {
	o := metav1.CreateOptions{FieldManager: "easyai"}
	if dryRun {
		o.DryRun = []string{metav1.DryRunAll}
	}
	return o
}

// Create makes the pipeline: its JobTemplates, then its JobFlow (whose
// controller starts the first steps), then hands the templates to the
// JobFlow, so that deleting it deletes them. When any of it fails what was
// made is deleted again. dryRun has the API server check every object
// without storing it.
func (c *Client) Create(ctx context.Context, p *Plan, dryRun bool) error {
	flows := c.Dynamic.Resource(JobFlows).Namespace(p.Namespace)
	templates := c.Dynamic.Resource(JobTemplates).Namespace(p.Namespace)
	if _, err := flows.Get(ctx, p.Name, metav1.GetOptions{}); err == nil {
		return exit.UsageErrorf("pipeline %s already exists in namespace %s (easyai pipeline delete %s, or --name another)", p.Name, p.Namespace, p.Name)
	} else if !apierrors.IsNotFound(err) {
		return notServed(err)
	}
	var made []string
	undo := func() {
		if dryRun {
			return
		}
		bg := context.WithoutCancel(ctx)
		_ = flows.Delete(bg, p.Name, metav1.DeleteOptions{})
		for _, name := range made {
			_ = templates.Delete(bg, name, metav1.DeleteOptions{})
		}
	}
	for _, t := range p.Templates {
		if _, err := templates.Create(ctx, t, createOptions(dryRun)); err != nil {
			undo()
			if apierrors.IsAlreadyExists(err) {
				return exit.UsageErrorf("a JobTemplate %s already exists in namespace %s: the pipeline's step needs that name (nothing was created)", t.GetName(), p.Namespace)
			}
			return fmt.Errorf("creating the JobTemplate of step %s (nothing was left created): %w", t.GetLabels()[StepLabel], notServed(err))
		}
		made = append(made, t.GetName())
	}
	flow, err := flows.Create(ctx, p.Flow, createOptions(dryRun))
	if err != nil {
		undo()
		return fmt.Errorf("creating the JobFlow of pipeline %s (nothing was left created): %w", p.Name, notServed(err))
	}
	if dryRun {
		return nil
	}
	for _, name := range made {
		// Volcano's JobTemplate controller writes the templates too: again
		// on a conflict.
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			t, err := templates.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			ownedBy(t, flow)
			_, err = templates.Update(ctx, t, metav1.UpdateOptions{FieldManager: "easyai"})
			return err
		})
		if err != nil {
			undo()
			return fmt.Errorf("handing JobTemplate %s to the JobFlow (nothing was left created): %w", name, err)
		}
	}
	return nil
}

// notServed says that a cluster without the flow API lacks Volcano's
// JobFlow, rather than a bare "not found".
func notServed(err error) error {
	if apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource") {
		return exit.UsageErrorf("the cluster serves no Volcano JobFlows (flow.volcano.sh/v1alpha1): pipelines need Volcano's JobFlow")
	}
	return err
}

// Step states, beside the job's.
const (
	Waiting   = "Waiting"
	Blocked   = "NotCreated"
	Succeeded = "Succeeded"
	Failed    = "Failed"
	Running   = "Running"
	Pending   = "Pending"
)

// StepStatus is one step of a pipeline as get shows it.
type StepStatus struct {
	Name  string   `json:"name"`
	After []string `json:"after,omitempty"`
	Kind  string   `json:"kind"`
	// Job is the step's job (vcjob/NAME with every job command), made by
	// Volcano once the steps before it have completed.
	Job   string `json:"job"`
	State string `json:"state"`
	// Reason says why a step has no job: waiting for which steps, or never
	// to run because which failed.
	Reason   string    `json:"reason,omitempty"`
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
}

// Status is get's document of a pipeline (docs/pipelines.md).
type Status struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Name       string       `json:"name"`
	Namespace  string       `json:"namespace"`
	User       string       `json:"user,omitempty"`
	Created    time.Time    `json:"created"`
	State      string       `json:"state"`
	Reason     string       `json:"reason,omitempty"`
	Steps      []StepStatus `json:"steps"`
}

// Get reads the pipeline: its JobFlow, its templates and the jobs made of
// them. A pipeline that does not exist is a not-found error (exit 3).
func (c *Client) Get(ctx context.Context, namespace, name string) (*Status, error) {
	flow, err := c.Dynamic.Resource(JobFlows).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if served := notServed(err); served != err {
			return nil, served
		}
		return nil, exit.NotFoundErrorf("pipeline %s not found in namespace %s (easyai pipeline list)", name, namespace)
	}
	if err != nil {
		return nil, err
	}
	if flow.GetLabels()[Label] != name {
		return nil, exit.NotFoundErrorf("JobFlow %s in namespace %s is not a pipeline of easyai (no label %s)", name, namespace, Label)
	}
	// Volcano labels the jobs NAMESPACE.NAME: longer than a label value may
	// be, it could make none (see Build).
	var items []unstructured.Unstructured
	if value := namespace + "." + name; len(value) <= 63 {
		jobs, err := c.Dynamic.Resource(VolcanoJobs).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: createdByJobFlow + "=" + value})
		if err != nil {
			return nil, err
		}
		items = jobs.Items
	}
	return statusOf(flow, items), nil
}

// statusOf is the status of the pipeline flow, whose jobs are jobs.
func statusOf(flow *unstructured.Unstructured, jobs []unstructured.Unstructured) *Status {
	name := flow.GetName()
	st := &Status{APIVersion: "easyai.io/v1", Kind: "Pipeline", Name: name, Namespace: flow.GetNamespace(),
		User: jobmodel.OneLine(flow.GetAnnotations()[jobmodel.UserAnnotation]), Created: flow.GetCreationTimestamp().Time, Steps: []StepStatus{}}
	byStep := map[string]*unstructured.Unstructured{}
	for i := range jobs {
		if s := stepOf(name, &jobs[i]); s != "" {
			byStep[s] = &jobs[i]
		}
	}
	flows, _, _ := unstructured.NestedSlice(flow.Object, "spec", "flows")
	state := map[string]string{}
	for _, f := range flows {
		m, _ := f.(map[string]any)
		tmpl, _ := m["name"].(string)
		step := strings.TrimPrefix(tmpl, name+"-")
		targets, _, _ := unstructured.NestedStringSlice(m, "dependsOn", "targets")
		s := StepStatus{Name: jobmodel.OneLine(step), Kind: "volcano", Job: "vcjob/" + jobmodel.OneLine(JobName(name, step))}
		for _, t := range targets {
			s.After = append(s.After, jobmodel.OneLine(strings.TrimPrefix(t, name+"-")))
		}
		if job := byStep[step]; job != nil {
			s.State, s.Started, s.Finished = jobState(job)
		} else {
			s.State, s.Reason = notCreated(s.After, state)
		}
		state[step] = s.State
		st.Steps = append(st.Steps, s)
	}
	st.State, st.Reason = overall(st.Steps)
	return st
}

// jobState is a Volcano Job's phase as a step's state, and when it
// started and finished.
func jobState(job *unstructured.Unstructured) (state string, started, finished time.Time) {
	phase, _, _ := unstructured.NestedString(job.Object, "status", "state", "phase")
	started = job.GetCreationTimestamp().Time
	switch phase {
	case "Completed":
		state = Succeeded
	case "Failed", "Aborted", "Terminated":
		state = Failed
	case "":
		state = Pending
	default:
		state = phase
	}
	if state == Succeeded || state == Failed {
		if t, _, _ := unstructured.NestedString(job.Object, "status", "state", "lastTransitionTime"); t != "" {
			if parsed, err := time.Parse(time.RFC3339, t); err == nil {
				finished = parsed
			}
		}
	}
	return jobmodel.OneLine(state), started, finished
}

// notCreated is the state of a step whose job does not exist, from the
// states of the steps it runs after (state, of the steps before it).
// Volcano's JobFlow (1.10) creates a step's job only once every step it
// depends on has Completed: after a failed step, it creates none of the
// steps that depend on it, ever.
func notCreated(after []string, state map[string]string) (string, string) {
	var failed, waiting []string
	for _, a := range after {
		switch state[a] {
		case Failed, Blocked:
			failed = append(failed, a)
		case Succeeded:
		default:
			waiting = append(waiting, a)
		}
	}
	if len(failed) > 0 {
		return Blocked, "never created: " + strings.Join(failed, ", ") + " did not complete, and Volcano's JobFlow creates no step after one that failed"
	}
	if len(waiting) > 0 {
		return Waiting, "waiting for " + strings.Join(waiting, ", ")
	}
	return Waiting, "Volcano's JobFlow controller has not created its job yet"
}

// overall is the pipeline's state: Failed naming the first failed step
// and the steps never created, Succeeded once every step has, else
// Running (or Pending before any step runs).
func overall(steps []StepStatus) (string, string) {
	var failed, blocked []string
	done, started := 0, 0
	for _, s := range steps {
		switch s.State {
		case Failed:
			failed = append(failed, s.Name)
		case Blocked:
			blocked = append(blocked, s.Name)
		case Succeeded:
			done++
		}
		if s.State != Waiting && s.State != Blocked {
			started++
		}
	}
	switch {
	case len(failed) > 0:
		why := "step " + failed[0] + " failed"
		if len(blocked) > 0 {
			why += "; " + strings.Join(blocked, ", ") + " will never run"
		}
		return Failed, why
	case done == len(steps):
		return Succeeded, ""
	case started == 0:
		return Pending, ""
	}
	return Running, ""
}

// Summary is one pipeline as list shows it.
type Summary struct {
	Name      string    `json:"name"`
	Namespace string    `json:"namespace"`
	State     string    `json:"state"`
	Steps     int       `json:"steps"`
	Succeeded int       `json:"succeeded"`
	Failed    int       `json:"failed"`
	User      string    `json:"user,omitempty"`
	Created   time.Time `json:"created"`
}

// List lists the pipelines of namespace ("": every namespace): two
// requests, the JobFlows and the jobs made of them.
func (c *Client) List(ctx context.Context, namespace string) ([]Summary, error) {
	flows, err := c.Dynamic.Resource(JobFlows).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: Label})
	if err != nil {
		return nil, notServed(err)
	}
	jobs, err := c.Dynamic.Resource(VolcanoJobs).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: createdByJobFlow})
	if err != nil {
		return nil, err
	}
	byFlow := map[string][]unstructured.Unstructured{}
	for _, j := range jobs.Items {
		key := j.GetLabels()[createdByJobFlow]
		byFlow[key] = append(byFlow[key], j)
	}
	out := []Summary{}
	for i := range flows.Items {
		f := &flows.Items[i]
		st := statusOf(f, byFlow[f.GetNamespace()+"."+f.GetName()])
		s := Summary{Name: st.Name, Namespace: st.Namespace, State: st.State, Steps: len(st.Steps), User: st.User, Created: st.Created}
		for _, step := range st.Steps {
			switch step.State {
			case Succeeded:
				s.Succeeded++
			case Failed:
				s.Failed++
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// Delete deletes the pipeline: its JobFlow, whose jobs and templates go
// with it (they are owned by it), and its templates again in case they
// were not yet handed to it.
func (c *Client) Delete(ctx context.Context, namespace, name string) error {
	st, err := c.Get(ctx, namespace, name)
	if err != nil {
		return err
	}
	bg := metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground)}
	if err := c.Dynamic.Resource(JobFlows).Namespace(namespace).Delete(ctx, name, bg); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	for _, s := range st.Steps {
		if err := c.Dynamic.Resource(JobTemplates).Namespace(namespace).Delete(ctx, TemplateName(name, s.Name), bg); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// hasJob: a step in this state has a job ("": not seen yet).
func hasJob(state string) bool {
	return state != "" && state != Waiting && state != Blocked
}

// Wait waits until the pipeline has succeeded (nil) or failed (exit 4,
// naming the first failed step and the steps never to run), or timeout
// has passed (exit 5). Each check reads the pipeline afresh; a step that
// changes state is said on notes, and onJob (when not nil) is called once
// for each step when Volcano has created its job.
func (c *Client) Wait(ctx context.Context, namespace, name string, timeout time.Duration, notes io.Writer, onJob func(StepStatus)) (*Status, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	said := map[string]string{}
	var last *Status
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		st, err := c.Get(ctx, namespace, name)
		switch {
		case err == nil:
			last = st
			for _, s := range st.Steps {
				if said[s.Name] != s.State && s.State != Waiting && notes != nil {
					fmt.Fprintf(notes, "step %s: %s\n", s.Name, s.State)
				}
				if onJob != nil && !hasJob(said[s.Name]) && hasJob(s.State) {
					onJob(s)
				}
				said[s.Name] = s.State
			}
			switch st.State {
			case Succeeded:
				return st, nil
			case Failed:
				return st, exit.JobFailedErrorf("pipeline %s failed: %s", name, st.Reason)
			}
		case exit.IsNotFound(err) || exit.Code(err) == exit.Usage:
			return nil, err
		}
		select {
		case <-ctx.Done():
			why := "no answer from the cluster"
			if last != nil {
				var open []string
				for _, s := range last.Steps {
					if s.State != Succeeded {
						open = append(open, s.Name+" "+s.State)
					}
				}
				why = strings.Join(open, ", ")
			}
			return last, exit.TimeoutErrorf("pipeline %s has not finished after %s: %s", name, timeout, why)
		case <-tick.C:
		}
	}
}
