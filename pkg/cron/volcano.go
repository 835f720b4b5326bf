package cron

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// The two backends of a schedule.
const (
	// BackendKubernetes is a batch/v1 CronJob whose pod runs easyai's
	// launcher: every kind, a new job name and directory at every run,
	// --concurrency and --keep applied to the training jobs themselves.
	BackendKubernetes = "kubernetes"
	// BackendVolcano is Volcano's own CronJob (Volcano 1.13+): Volcano
	// creates a Volcano Job of a template at every run; no launcher image.
	BackendVolcano = "volcano"
)

// VolcanoCronJobs is Volcano's CronJob API (batch.volcano.sh, Volcano 1.13+).
var VolcanoCronJobs = schema.GroupVersionResource{Group: "batch.volcano.sh", Version: "v1alpha1", Resource: "cronjobs"}

// volcanoJobs is Volcano's Job API, the jobs a Volcano CronJob creates.
var volcanoJobs = schema.GroupVersionResource{Group: "batch.volcano.sh", Version: "v1alpha1", Resource: "jobs"}

// RenderVolcano makes the Volcano CronJob of a schedule (s.Backend
// volcano) whose job rendered as job: a Volcano Job named as the schedule,
// whose labels, annotations and spec become the CronJob's job template.
// Volcano names each run's job NAME-MINUTES and copies the template's
// labels onto it, so every run carries the schedule's label and experiment;
// easyai's job-name label is left out (Volcano's own names each run).
func RenderVolcano(s *Spec, job *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if job.GetAPIVersion() != "batch.volcano.sh/v1alpha1" || job.GetKind() != "Job" {
		return nil, exit.UsageErrorf("--backend volcano: the job rendered as a %s %s, not a Volcano Job", job.GetAPIVersion(), job.GetKind())
	}
	jobLabels := copyMap(job.GetLabels())
	delete(jobLabels, jobmodel.NameLabel)
	jobLabels[Label] = s.Name
	spec, _, _ := unstructured.NestedMap(job.Object, "spec")
	tasks, _, _ := unstructured.NestedSlice(spec, "tasks")
	for _, t := range tasks {
		if task, ok := t.(map[string]any); ok {
			unstructured.RemoveNestedField(task, "template", "metadata", "labels", jobmodel.NameLabel)
		}
	}
	if tasks != nil {
		spec["tasks"] = tasks
	}
	template := map[string]any{"spec": spec}
	_ = unstructured.SetNestedStringMap(template, jobLabels, "metadata", "labels")
	_ = unstructured.SetNestedStringMap(template, job.GetAnnotations(), "metadata", "annotations")
	keep := int64(s.Keep)
	if keep == 0 {
		keep = math.MaxInt32 // 0 keeps every job, as on the other backend
	}
	cronSpec := map[string]any{
		"schedule": s.Schedule, "concurrencyPolicy": s.Concurrency, "suspend": false,
		"successfulJobsHistoryLimit": keep, "failedJobsHistoryLimit": keep,
		"jobTemplate": template,
	}
	if s.TimeZone != "" {
		cronSpec["timeZone"] = s.TimeZone
	}
	labels := map[string]string{jobmodel.ManagedByLabel: jobmodel.ManagedByValue, Label: s.Name}
	annotations := map[string]string{jobmodel.VersionAnnotation: s.CLIVersion}
	if s.User != "" {
		labels[jobmodel.UserLabel] = jobmodel.LabelSafe(s.User)
		annotations[jobmodel.UserAnnotation] = s.User
	}
	cj := &unstructured.Unstructured{Object: map[string]any{"spec": cronSpec}}
	cj.SetAPIVersion(VolcanoCronJobs.GroupVersion().String())
	cj.SetKind("CronJob")
	cj.SetName(s.Name)
	cj.SetNamespace(s.Namespace)
	cj.SetLabels(labels)
	cj.SetAnnotations(annotations)
	return cj, nil
}

// createVolcano creates a Volcano CronJob.
func (c *Client) createVolcano(ctx context.Context, cj *unstructured.Unstructured, dryRun bool) error {
	ns, name := cj.GetNamespace(), cj.GetName()
	_, err := c.Dynamic.Resource(VolcanoCronJobs).Namespace(ns).Create(ctx, cj, createOptions(dryRun))
	switch {
	case apierrors.IsAlreadyExists(err):
		return exit.UsageErrorf("schedule %s already exists in namespace %s (easyai cron delete %s, or choose another name)", name, ns, name)
	case err != nil:
		return fmt.Errorf("creating Volcano's CronJob of schedule %s: %w", name, err)
	}
	return nil
}

// volcanoCronJob reads Volcano's CronJob name: nil when there is none of
// easyai's, or Volcano's CronJob API is not served; an error when it could
// not be read.
func (c *Client) volcanoCronJob(ctx context.Context, namespace, name string) (*unstructured.Unstructured, error) {
	if c.Dynamic == nil {
		return nil, nil
	}
	cj, err := c.Dynamic.Resource(VolcanoCronJobs).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, err
	case cj.GetLabels()[Label] != name:
		return nil, nil
	}
	return cj, nil
}

// listVolcano lists the Volcano CronJobs of easyai's schedules: none when
// the API is not served; a user who may not list them gets one warning and
// the other schedules.
func (c *Client) listVolcano(ctx context.Context, namespace string) ([]Summary, error) {
	if c.Dynamic == nil {
		return nil, nil
	}
	list, err := c.Dynamic.Resource(VolcanoCronJobs).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: Label})
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case apierrors.IsForbidden(err):
		if c.Warn != nil {
			fmt.Fprintf(c.Warn, "Warning: schedules on Volcano's CronJob not listed: you may not list cronjobs.batch.volcano.sh here\n")
		}
		return nil, nil
	case err != nil:
		return nil, err
	}
	out := make([]Summary, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, c.summarizeVolcano(&list.Items[i]))
	}
	return out, nil
}

// summarizeVolcano is a Volcano CronJob as list shows it. Its fields are
// whoever wrote the object's: read, never trusted to be well-formed.
func (c *Client) summarizeVolcano(cj *unstructured.Unstructured) Summary {
	str := func(fields ...string) string {
		v, _, _ := unstructured.NestedString(cj.Object, fields...)
		return jobmodel.OneLine(v)
	}
	a := cj.GetAnnotations()
	s := Summary{Name: cj.GetName(), Namespace: cj.GetNamespace(), Backend: BackendVolcano,
		Schedule: str("spec", "schedule"), TimeZone: str("spec", "timeZone"), Concurrency: str("spec", "concurrencyPolicy"),
		User: jobmodel.OneLine(a[jobmodel.UserAnnotation]), Created: cj.GetCreationTimestamp().Time}
	if s.Concurrency == "" {
		s.Concurrency = Allow // Volcano's default
	}
	s.Suspended, _, _ = unstructured.NestedBool(cj.Object, "spec", "suspend")
	if keep, ok, _ := unstructured.NestedInt64(cj.Object, "spec", "successfulJobsHistoryLimit"); ok && keep > 0 && keep < math.MaxInt32 {
		s.Keep = int(keep)
	}
	if t, err := time.Parse(time.RFC3339, str("status", "lastScheduleTime")); err == nil {
		s.LastRun = t
	}
	if !s.Suspended {
		s.NextRun = nextRun(s.Schedule, s.TimeZone, c.now())
	}
	return s
}

// triggerVolcano starts one run of a Volcano CronJob now: a Volcano Job of
// its template, named as the launcher names a run's job
// (NAME-YYYYMMDD-HHMMSS), owned by the CronJob and marked manual, as
// Volcano's controller would make it.
func (c *Client) triggerVolcano(ctx context.Context, cj *unstructured.Unstructured) (string, error) {
	ns, name := cj.GetNamespace(), cj.GetName()
	template, _, _ := unstructured.NestedMap(cj.Object, "spec", "jobTemplate")
	labels, _, _ := unstructured.NestedStringMap(template, "metadata", "labels")
	annotations, _, _ := unstructured.NestedStringMap(template, "metadata", "annotations")
	job := &unstructured.Unstructured{Object: map[string]any{"spec": template["spec"]}}
	job.SetAPIVersion(volcanoJobs.GroupVersion().String())
	job.SetKind("Job")
	job.SetName(RunName(name, c.now()))
	job.SetNamespace(ns)
	job.SetLabels(labels)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations["cronjob.kubernetes.io/instantiate"] = "manual"
	job.SetAnnotations(annotations)
	controller := true
	job.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: cj.GetAPIVersion(), Kind: "CronJob", Name: name, UID: types.UID(cj.GetUID()), Controller: &controller}})
	made, err := c.Dynamic.Resource(volcanoJobs).Namespace(ns).Create(ctx, job, metav1.CreateOptions{FieldManager: "easyai"})
	if err != nil {
		return "", fmt.Errorf("creating a run of schedule %s: %w", name, err)
	}
	return "job vcjob/" + made.GetName(), nil
}

// setSuspendedVolcano suspends or resumes a Volcano CronJob.
func (c *Client) setSuspendedVolcano(ctx context.Context, namespace, name string, suspend bool) error {
	patch := []byte(`{"spec":{"suspend":` + strconv.FormatBool(suspend) + `}}`)
	_, err := c.Dynamic.Resource(VolcanoCronJobs).Namespace(namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "easyai"})
	return err
}

// deleteVolcano deletes a Volcano CronJob, orphaning the jobs it made (its
// controller owns them): as on the other backend, the training jobs stay.
func (c *Client) deleteVolcano(ctx context.Context, namespace, name string) error {
	orphan := metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationOrphan)}
	if err := c.Dynamic.Resource(VolcanoCronJobs).Namespace(namespace).Delete(ctx, name, orphan); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}
