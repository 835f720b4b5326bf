// Package cron is "easyai cron": a training job submitted on a schedule by
// a Kubernetes CronJob whose pod runs easyai itself ("easyai cron launch"),
// under a ServiceAccount of the namespace, from a job file kept in a
// ConfigMap. No controller of easyai's runs: the CronJob controller starts
// the launcher, the launcher submits the job and ends.
package cron

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	robfig "github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Labels and annotations of a schedule's objects and jobs.
const (
	// Label is the schedule's name: on its CronJob and ConfigMap, and on
	// every training job it submits.
	Label = "easyai.io/cron"
	// ConcurrencyAnnotation and KeepAnnotation are --concurrency and
	// --keep, on the CronJob, read by the launcher.
	ConcurrencyAnnotation = "easyai.io/cron-concurrency"
	KeepAnnotation        = "easyai.io/cron-keep"
	// JobFileKey is the ConfigMap's key of the job file.
	JobFileKey = "job.yaml"
	// DefaultServiceAccount is the ServiceAccount the launcher runs as
	// (examples/rbac makes it, bound to the namespace's easyai rights).
	DefaultServiceAccount = "easyai-cron"
)

// Concurrency policies of the training jobs, which the launcher enforces.
const (
	Forbid  = "Forbid"
	Allow   = "Allow"
	Replace = "Replace"
)

// ConfigMapName is the ConfigMap of schedule name: NAME-cron.
func ConfigMapName(name string) string { return name + "-cron" }

// Spec is one schedule as the user asked for it.
type Spec struct {
	Name, Namespace string
	// Backend is BackendKubernetes ("": the same) or BackendVolcano.
	Backend     string
	Schedule    string
	TimeZone    string
	Concurrency string
	// Keep is how many finished jobs of the schedule are kept (0: all).
	Keep int
	// JobFile is the job file (submit -f) each run submits.
	JobFile []byte
	// Image is the launcher's image (easyai's); ServiceAccount what it runs as.
	Image          string
	ServiceAccount string
	// NodeSelector, Tolerations and Env place and configure the launcher's
	// pod (not the training job's: its job file does).
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
	Env          []corev1.EnvVar
	User         string
	CLIVersion   string
}

// ParseSchedule parses a schedule as the CronJob controller does (five
// fields, or a @daily-style descriptor).
func ParseSchedule(schedule string) (robfig.Schedule, error) {
	return robfig.ParseStandard(schedule)
}

// Validate checks the spec without the cluster: each error a usage error
// naming the flag.
func (s *Spec) Validate() error {
	if errs := validation.IsDNS1035Label(s.Name); len(errs) > 0 || len(s.Name) > 52 {
		return exit.UsageErrorf("schedule name %q: a DNS-1035 label of at most 52 characters (the CronJob's limit)", s.Name)
	}
	if _, err := ParseSchedule(s.Schedule); err != nil {
		return exit.UsageErrorf("--schedule %q: %v (five fields: minute hour day-of-month month day-of-week, e.g. \"0 2 * * *\")", s.Schedule, err)
	}
	if strings.Contains(s.Schedule, "TZ=") {
		return exit.UsageErrorf("--schedule %q: give the time zone with --timezone, not in the schedule", s.Schedule)
	}
	if s.TimeZone != "" {
		if _, err := time.LoadLocation(s.TimeZone); err != nil {
			return exit.UsageErrorf("--timezone %q: not a time zone of the Go time database (e.g. Asia/Shanghai, UTC)", s.TimeZone)
		}
	}
	switch s.Concurrency {
	case Forbid, Allow, Replace:
	default:
		return exit.UsageErrorf("--concurrency %q: Forbid, Allow or Replace", s.Concurrency)
	}
	if s.Keep < 0 {
		return exit.UsageErrorf("--keep %d: must not be negative (0 keeps every job)", s.Keep)
	}
	switch s.Backend {
	case "", BackendKubernetes:
	case BackendVolcano:
		return nil // no launcher
	default:
		return exit.UsageErrorf("--backend %q: kubernetes or volcano", s.Backend)
	}
	if s.Image == "" {
		return exit.UsageErrorf("no launcher image: give --image or set cron-image (easyai config set cron-image IMAGE)")
	}
	return nil
}

// Objects are what a schedule is made of.
type Objects struct {
	// CronJob and ConfigMap are a schedule of the kubernetes backend.
	CronJob   *batchv1.CronJob
	ConfigMap *corev1.ConfigMap
	// Volcano is a schedule of the volcano backend (RenderVolcano).
	Volcano *unstructured.Unstructured
}

// Items are the objects, as a List's items.
func (o *Objects) Items() []any {
	if o.Volcano != nil {
		return []any{o.Volcano.Object}
	}
	return []any{o.CronJob, o.ConfigMap}
}

// Render makes the schedule's objects: the ConfigMap of its job file, and
// the CronJob whose pod runs "easyai cron launch NAME -n NAMESPACE".
func Render(s *Spec) (*Objects, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	labels := map[string]string{jobmodel.ManagedByLabel: jobmodel.ManagedByValue, Label: s.Name}
	annotations := map[string]string{ConcurrencyAnnotation: s.Concurrency, KeepAnnotation: strconv.Itoa(s.Keep), jobmodel.VersionAnnotation: s.CLIVersion}
	if s.User != "" {
		labels[jobmodel.UserLabel] = jobmodel.LabelSafe(s.User)
		annotations[jobmodel.UserAnnotation] = s.User
	}
	cm := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName(s.Name), Namespace: s.Namespace, Labels: labels},
		Data:       map[string]string{JobFileKey: string(s.JobFile)},
	}
	sa := s.ServiceAccount
	if sa == "" {
		sa = DefaultServiceAccount
	}
	never, zero, one := corev1.RestartPolicyNever, int32(0), int32(1)
	history := int32(3)
	pod := corev1.PodSpec{
		ServiceAccountName: sa,
		RestartPolicy:      never,
		NodeSelector:       s.NodeSelector,
		Tolerations:        s.Tolerations,
		Containers: []corev1.Container{{
			Name: "launcher", Image: s.Image, ImagePullPolicy: corev1.PullIfNotPresent,
			Args: LauncherArgs(s.Name, s.Namespace), Env: s.Env,
		}},
	}
	cj := &batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: labels, Annotations: annotations},
		Spec: batchv1.CronJobSpec{
			Schedule: s.Schedule,
			// The launcher runs one at a time; the training jobs' policy is
			// --concurrency, which the launcher enforces.
			ConcurrencyPolicy:          batchv1.ForbidConcurrent,
			SuccessfulJobsHistoryLimit: &history, FailedJobsHistoryLimit: &history,
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: batchv1.JobSpec{BackoffLimit: &zero, Parallelism: &one, Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod,
				}},
			},
		},
	}
	if s.TimeZone != "" {
		tz := s.TimeZone
		cj.Spec.TimeZone = &tz
	}
	return &Objects{CronJob: cj, ConfigMap: cm}, nil
}

// LauncherArgs are the launcher's arguments: easyai's, in its pod.
func LauncherArgs(name, namespace string) []string {
	return []string{"cron", "launch", name, "-n", namespace}
}

// Client reads and changes the schedules of a cluster.
type Client struct {
	Kube kubernetes.Interface
	// Dynamic reads Volcano's CronJobs (nil: schedules of the kubernetes
	// backend only).
	Dynamic dynamic.Interface
	Now     func() time.Time
	// Warn, when not nil, is where a schedule that could not be read is said.
	Warn io.Writer
}

func createOptions(dryRun bool) metav1.CreateOptions {
	o := metav1.CreateOptions{FieldManager: "easyai"}
	if dryRun {
		o.DryRun = []string{metav1.DryRunAll}
	}
	return o
}

// Create makes the schedule: its CronJob (suspended while the rest is
// made), then its ConfigMap owned by it, then resumes it. When the
// ConfigMap cannot be made the CronJob is deleted again.
func (c *Client) Create(ctx context.Context, o *Objects, dryRun bool) error {
	if o.Volcano != nil {
		if err := c.nameFree(ctx, o.Volcano.GetNamespace(), o.Volcano.GetName()); err != nil {
			return err
		}
		return c.createVolcano(ctx, o.Volcano, dryRun)
	}
	ns, name := o.CronJob.Namespace, o.CronJob.Name
	if err := c.nameFree(ctx, ns, name); err != nil {
		return err
	}
	if _, err := c.Kube.CoreV1().ServiceAccounts(ns).Get(ctx, o.CronJob.Spec.JobTemplate.Spec.Template.Spec.ServiceAccountName, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return exit.UsageErrorf("the launcher's ServiceAccount %s does not exist in namespace %s: a namespace admin makes it (examples/rbac/easyai-user.yaml), or give --service-account", o.CronJob.Spec.JobTemplate.Spec.Template.Spec.ServiceAccountName, ns)
	}
	cj := o.CronJob.DeepCopy()
	suspended := cj.Spec.Suspend != nil && *cj.Spec.Suspend
	yes := true
	cj.Spec.Suspend = &yes
	made, err := c.Kube.BatchV1().CronJobs(ns).Create(ctx, cj, createOptions(dryRun))
	switch {
	case apierrors.IsAlreadyExists(err):
		return exit.UsageErrorf("schedule %s already exists in namespace %s (easyai cron delete %s, or choose another name)", name, ns, name)
	case err != nil:
		return fmt.Errorf("creating the CronJob of schedule %s: %w", name, err)
	}
	cm := o.ConfigMap.DeepCopy()
	if !dryRun {
		cm.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(made, batchv1.SchemeGroupVersion.WithKind("CronJob"))}
	}
	undo := func() {
		if !dryRun {
			_ = c.Kube.BatchV1().CronJobs(ns).Delete(context.WithoutCancel(ctx), name, metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground)})
		}
	}
	if _, err := c.Kube.CoreV1().ConfigMaps(ns).Create(ctx, cm, createOptions(dryRun)); err != nil {
		undo()
		return fmt.Errorf("creating the ConfigMap of schedule %s (nothing was left created): %w", name, err)
	}
	if dryRun || suspended {
		return nil
	}
	if err := c.SetSuspended(ctx, ns, name, false); err != nil {
		undo()
		return fmt.Errorf("resuming schedule %s once made (nothing was left created): %w", name, err)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// schedule is one schedule as the cluster holds it: a Kubernetes CronJob
// running easyai's launcher, or Volcano's CronJob.
type schedule struct {
	batch   *batchv1.CronJob
	volcano *unstructured.Unstructured
}

// find reads the schedule: its Kubernetes CronJob, else its Volcano
// CronJob. None of easyai's (no label) is a not-found error.
func (c *Client) find(ctx context.Context, namespace, name string) (*schedule, error) {
	cj, err := c.Kube.BatchV1().CronJobs(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil && cj.Labels[Label] == name:
		return &schedule{batch: cj}, nil
	case err != nil && !apierrors.IsNotFound(err):
		return nil, err
	}
	v, err := c.volcanoCronJob(ctx, namespace, name)
	switch {
	case apierrors.IsForbidden(err):
		return nil, exit.NotFoundErrorf("schedule %s not found in namespace %s among its CronJobs; Volcano's CronJobs could not be read (you may not get cronjobs.batch.volcano.sh there)", name, namespace)
	case err != nil:
		return nil, err
	case v != nil:
		return &schedule{volcano: v}, nil
	}
	return nil, exit.NotFoundErrorf("schedule %s not found in namespace %s (easyai cron list)", name, namespace)
}

// nameFree: no schedule of either backend, nor a CronJob not easyai's, has
// the name.
func (c *Client) nameFree(ctx context.Context, namespace, name string) error {
	_, err := c.find(ctx, namespace, name)
	switch {
	case err == nil:
		return exit.UsageErrorf("schedule %s already exists in namespace %s (easyai cron delete %s, or choose another name)", name, namespace, name)
	case exit.IsNotFound(err):
		return nil
	}
	return err
}

// cronJob reads the schedule's Kubernetes CronJob; one of the volcano
// backend is a usage error saying what does not apply.
func (c *Client) cronJob(ctx context.Context, namespace, name, what string) (*batchv1.CronJob, error) {
	s, err := c.find(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	if s.batch == nil {
		return nil, exit.UsageErrorf("schedule %s is Volcano's CronJob, which Volcano runs: %s", name, what)
	}
	return s.batch, nil
}

// SetSuspended suspends or resumes the schedule.
func (c *Client) SetSuspended(ctx context.Context, namespace, name string, suspend bool) error {
	s, err := c.find(ctx, namespace, name)
	if err != nil {
		return err
	}
	if s.volcano != nil {
		return c.setSuspendedVolcano(ctx, namespace, name, suspend)
	}
	patch := fmt.Sprintf(`{"spec":{"suspend":%t}}`, suspend)
	_, err = c.Kube.BatchV1().CronJobs(namespace).Patch(ctx, name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{FieldManager: "easyai"})
	return err
}

// Trigger starts one run now and says what it made: on Kubernetes' CronJob
// a launcher Job of its template, as the CronJob controller would make it
// (owned by the CronJob, marked manual); on Volcano's, the run's Volcano Job.
func (c *Client) Trigger(ctx context.Context, namespace, name string) (string, error) {
	s, err := c.find(ctx, namespace, name)
	if err != nil {
		return "", err
	}
	if s.volcano != nil {
		return c.triggerVolcano(ctx, s.volcano)
	}
	cj := s.batch
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: manualName(name, c.now()), Namespace: namespace,
			Labels:          copyMap(cj.Spec.JobTemplate.Labels),
			Annotations:     map[string]string{"cronjob.kubernetes.io/instantiate": "manual"},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, batchv1.SchemeGroupVersion.WithKind("CronJob"))},
		},
		Spec: *cj.Spec.JobTemplate.Spec.DeepCopy(),
	}
	made, err := c.Kube.BatchV1().Jobs(namespace).Create(ctx, job, metav1.CreateOptions{FieldManager: "easyai"})
	if err != nil {
		return "", err
	}
	return "launcher job " + made.Name, nil
}

// manualName is the name of a launcher Job trigger makes at t:
// NAME-manual-UNIXTIME, or NAME-mBASE36TIME where that would be longer
// than a Job's name may be (63).
func manualName(name string, t time.Time) string {
	if n := fmt.Sprintf("%s-manual-%d", name, t.Unix()); len(n) <= validation.DNS1035LabelMaxLength {
		return n
	}
	return name + "-m" + strconv.FormatInt(t.Unix(), 36)
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Summary is one schedule as list shows it.
type Summary struct {
	Name        string    `json:"name"`
	Namespace   string    `json:"namespace"`
	Backend     string    `json:"backend"`
	Schedule    string    `json:"schedule"`
	TimeZone    string    `json:"timeZone,omitempty"`
	Suspended   bool      `json:"suspended"`
	Concurrency string    `json:"concurrency"`
	Keep        int       `json:"keep"`
	LastRun     time.Time `json:"lastRun,omitzero"`
	NextRun     time.Time `json:"nextRun,omitzero"`
	User        string    `json:"user,omitempty"`
	Created     time.Time `json:"created"`
	// LastJob is the newest job of the schedule (KIND/NAME), when list
	// read the jobs, with when it was made and its state.
	LastJob        string    `json:"lastJob,omitempty"`
	LastJobCreated time.Time `json:"lastJobCreated,omitzero"`
	LastJobState   string    `json:"lastJobState,omitempty"`
}

// List lists the schedules of namespace ("": every namespace).
func (c *Client) List(ctx context.Context, namespace string) ([]Summary, error) {
	list, err := c.Kube.BatchV1().CronJobs(namespace).List(ctx, metav1.ListOptions{LabelSelector: Label})
	if err != nil {
		return nil, err
	}
	out := make([]Summary, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, c.summarize(&list.Items[i]))
	}
	volcano, err := c.listVolcano(ctx, namespace)
	if err != nil {
		return nil, err
	}
	out = append(out, volcano...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Namespace != out[j].Namespace {
			return out[i].Namespace < out[j].Namespace
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// Get reads one schedule.
func (c *Client) Get(ctx context.Context, namespace, name string) (*Summary, error) {
	found, err := c.find(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	if found.volcano != nil {
		s := c.summarizeVolcano(found.volcano)
		return &s, nil
	}
	s := c.summarize(found.batch)
	return &s, nil
}

func (c *Client) summarize(cj *batchv1.CronJob) Summary {
	a := cj.Annotations
	s := Summary{Name: cj.Name, Namespace: cj.Namespace, Backend: BackendKubernetes, Schedule: jobmodel.OneLine(cj.Spec.Schedule), Concurrency: jobmodel.OneLine(a[ConcurrencyAnnotation]),
		Suspended: cj.Spec.Suspend != nil && *cj.Spec.Suspend, User: jobmodel.OneLine(a[jobmodel.UserAnnotation]), Created: cj.CreationTimestamp.Time}
	s.Keep, _ = strconv.Atoi(a[KeepAnnotation])
	if cj.Spec.TimeZone != nil {
		s.TimeZone = jobmodel.OneLine(*cj.Spec.TimeZone)
	}
	if cj.Status.LastScheduleTime != nil {
		s.LastRun = cj.Status.LastScheduleTime.Time
	}
	if !s.Suspended {
		s.NextRun = nextRun(cj.Spec.Schedule, s.TimeZone, c.now())
	}
	return s
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// nextRun is when schedule runs next after now (zero: it cannot be read).
func nextRun(schedule, zone string, now time.Time) time.Time {
	sched, err := ParseSchedule(schedule)
	if err != nil {
		return time.Time{}
	}
	loc := time.UTC
	if zone != "" {
		if l, err := time.LoadLocation(zone); err == nil {
			loc = l
		}
	}
	return sched.Next(now.In(loc))
}

// Delete deletes the schedule: its CronJob, and with it its ConfigMap and
// launcher Jobs (owned by it); or Volcano's CronJob. The training jobs it
// submitted stay.
func (c *Client) Delete(ctx context.Context, namespace, name string) error {
	s, err := c.find(ctx, namespace, name)
	if err != nil {
		return err
	}
	if s.volcano != nil {
		return c.deleteVolcano(ctx, namespace, name)
	}
	bg := metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground)}
	if err := c.Kube.BatchV1().CronJobs(namespace).Delete(ctx, name, bg); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err := c.Kube.CoreV1().ConfigMaps(namespace).Delete(ctx, ConfigMapName(name), bg); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// Settings are what the launcher reads of its schedule: the job file, the
// concurrency policy and how many finished jobs to keep.
type Settings struct {
	JobFile     []byte
	Concurrency string
	Keep        int
}

// Settings reads the schedule's settings (the launcher's first step).
func (c *Client) Settings(ctx context.Context, namespace, name string) (*Settings, error) {
	cj, err := c.cronJob(ctx, namespace, name, "no launcher runs for it")
	if err != nil {
		return nil, err
	}
	cm, err := c.Kube.CoreV1().ConfigMaps(namespace).Get(ctx, ConfigMapName(name), metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("the job file of schedule %s (ConfigMap %s): %w", name, ConfigMapName(name), err)
	}
	s := &Settings{JobFile: []byte(cm.Data[JobFileKey]), Concurrency: cj.Annotations[ConcurrencyAnnotation]}
	s.Keep, _ = strconv.Atoi(cj.Annotations[KeepAnnotation])
	if s.Concurrency == "" {
		s.Concurrency = Forbid
	}
	var head map[string]any
	if err := yaml.Unmarshal(s.JobFile, &head); err != nil || head["kind"] == nil {
		return nil, exit.UsageErrorf("schedule %s: ConfigMap %s holds no job file (key %s)", name, ConfigMapName(name), JobFileKey)
	}
	return s, nil
}
