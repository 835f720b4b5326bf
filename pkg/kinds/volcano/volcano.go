// Package volcano is the Volcano Job kind (batch.volcano.sh/v1alpha1): named
// tasks of pods that Volcano schedules as one gang, with lifecycle policies
// (what to do when a pod fails, a task completes, ...) and job plugins that
// inject a framework's environment.
package volcano

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	vcbatch "volcano.sh/apis/pkg/apis/batch/v1alpha1"
	vcbus "volcano.sh/apis/pkg/apis/bus/v1alpha1"

	"github.com/easyai-dev/easyai/charts"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// Kind is the Volcano Job kind; use New.
type Kind struct{}

// New returns the kind.
func New() Kind { return Kind{} }

func (Kind) Name() string      { return "volcano" }
func (Kind) Aliases() []string { return []string{"vcjob", "vj"} }
func (Kind) Chart() fs.FS      { return charts.Get("volcano") }
func (Kind) Operator() string  { return "Volcano (its controller-manager and scheduler)" }

// GroupVersionKind of Volcano Jobs.
func (Kind) GroupVersionKind() schema.GroupVersionKind {
	return vcbatch.SchemeGroupVersion.WithKind("Job")
}

// Resource of Volcano Jobs.
func (Kind) Resource() schema.GroupVersionResource {
	return vcbatch.SchemeGroupVersion.WithResource("jobs")
}

// PodSelector selects the pods Volcano created for the job.
func (Kind) PodSelector(jobName string) string { return vcbatch.JobNameKey + "=" + jobName }

// Decode strictly decodes a rendered Volcano Job.
func (Kind) Decode(obj *unstructured.Unstructured) (runtime.Object, error) {
	return kinds.StrictDecode(obj, &vcbatch.Job{})
}

// Events and Actions a lifecycle policy may name.
var (
	Events = []string{
		string(vcbus.AnyEvent), string(vcbus.PodFailedEvent), string(vcbus.PodEvictedEvent),
		string(vcbus.TaskCompletedEvent), string(vcbus.TaskFailedEvent), string(vcbus.JobUnknownEvent),
	}
	Actions = []string{
		string(vcbus.AbortJobAction), string(vcbus.RestartJobAction), string(vcbus.RestartTaskAction),
		string(vcbus.TerminateJobAction), string(vcbus.CompleteJobAction),
	}
	// Frameworks are --framework's presets.
	Frameworks = []string{"none", "pytorch", "tensorflow", "mpi"}
)

var taskName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// SubmitLong implements kinds.SubmitDoc.
func (Kind) SubmitLong() string {
	return `Submit a Volcano Job (batch.volcano.sh/v1alpha1), scheduled by Volcano as
one gang: none of its pods start until --min-available of them (default: all)
fit.

A job is made of tasks: --task NAME=REPLICAS, repeatable (default: one task
"worker" of --workers pods). Every task runs the command after "--" unless a
values file or --set gives a task its own (tasks.NAME.image, .command, .env,
.resources.gpus, ...). Pods are named and addressed TASK-INDEX (worker-0).

--framework makes Volcano's job plugins inject a framework's environment:
pytorch (MASTER_ADDR, WORLD_SIZE, RANK; tasks master and worker), tensorflow
(TF_CONFIG; tasks ps, worker, chief, evaluator), mpi (ssh between the pods,
MPI_HOST; tasks master and worker) or none (hostnames and VK_TASK_INDEX only).

Lifecycle policies say what Volcano does on an event: --policy EVENT=ACTION
for the whole job, --task-policy TASK:EVENT=ACTION for one task (it wins over
the job's).
  events:  ` + strings.Join(Events, ", ") + `
  actions: ` + strings.Join(Actions, ", ") + `
           (RestartTask only as a task's policy)
Volcano counts every restart of the job, and every resume after a suspend,
as a retry, and fails the job at retry --max-retry (default 3).`
}

// SubmitExample implements kinds.SubmitDoc.
func (Kind) SubmitExample() string {
	return `  # 4 GPU workers, restarted together when one fails
  easyai submit volcano --workers 4 --gpus 1 --policy PodFailed=RestartJob --image pt:2 -- python train.py
  # PyTorch through Volcano's plugin: 1 master + 3 workers
  easyai submit volcano --framework pytorch --task master=1 --task worker=3 --gpus 8 --image pt:2 -- torchrun train.py
  # the job is done when the master is
  easyai submit volcano --task master=1 --task worker=2 --task-policy master:TaskCompleted=CompleteJob --image x:1 -- ./run.sh`
}

// submitFlags are a Volcano Job's own submit flags.
type submitFlags struct {
	tasks, policies, taskPolicies []string
	minAvailable, maxRetry        int
	framework                     string
}

// SubmitFlags adds Volcano's own flags: tasks, gang size, retries, framework
// and lifecycle policies.
func (Kind) SubmitFlags(fs *pflag.FlagSet) kinds.KindValues {
	f := &submitFlags{}
	fs.StringArrayVar(&f.tasks, "task", nil, "a task and its pods: NAME=REPLICAS (repeatable; default: worker=--workers)")
	fs.IntVar(&f.minAvailable, "min-available", 0, "pods that must fit before any starts (default: all; gang)")
	fs.IntVar(&f.maxRetry, "max-retry", 0, "Volcano fails the job at its Nth restart or resume (spec.maxRetry; default 3)")
	fs.StringVar(&f.framework, "framework", "", "plugins injecting a framework's environment: "+strings.Join(Frameworks, ", ")+" (default none)")
	fs.StringArrayVar(&f.policies, "policy", nil, "job lifecycle policy EVENT=ACTION, e.g. PodFailed=RestartJob (repeatable)")
	fs.StringArrayVar(&f.taskPolicies, "task-policy", nil, "task lifecycle policy TASK:EVENT=ACTION, e.g. master:TaskCompleted=CompleteJob (repeatable)")
	kinds.DescribeWorkers(fs, `pods of the default task "worker" (without --task)`)
	return f.values
}

// values turns the flags the user set into the chart's values.
func (f *submitFlags) values(common kinds.SubmitCommon) (map[string]any, error) {
	taskValues, order, err := f.taskValues(common)
	if err != nil {
		return nil, err
	}
	if err := f.addTaskPolicies(taskValues, order); err != nil {
		return nil, err
	}
	values := map[string]any{}
	jobPolicies := map[string]any{}
	for _, raw := range f.policies {
		p, err := parsePolicy("--policy", raw, raw, true)
		if err != nil {
			return nil, err
		}
		if err := addPolicy(jobPolicies, p, "--policy", raw); err != nil {
			return nil, err
		}
	}
	if ps, ok := jobPolicies["policies"]; ok {
		values["policies"] = ps
	}
	if len(taskValues) > 0 {
		values["tasks"] = taskValues
	}
	runPolicy, err := f.runPolicy(common, taskValues)
	if err != nil {
		return nil, err
	}
	if len(runPolicy) > 0 {
		values["runPolicy"] = runPolicy
	}
	if f.framework != "" {
		if !contains(Frameworks, f.framework) {
			return nil, exit.UsageErrorf("--framework %q: must be one of %s", f.framework, strings.Join(Frameworks, ", "))
		}
		values["framework"] = f.framework
	}
	return values, nil
}

// taskValues are the tasks of --task, in their order, or the default task
// of --workers: each task's value, its replicas.
func (f *submitFlags) taskValues(common kinds.SubmitCommon) (taskValues map[string]any, order []string, err error) {
	taskValues = map[string]any{}
	for _, t := range f.tasks {
		name, replicas, err := parseTask(t)
		if err != nil {
			return nil, nil, err
		}
		if _, dup := taskValues[name]; dup {
			return nil, nil, exit.UsageErrorf("--task %s: task %s is given twice", t, name)
		}
		taskValues[name] = kinds.Replicas(replicas)
		order = append(order, name)
	}
	switch {
	case len(f.tasks) > 0 && common.Changed("workers"):
		return nil, nil, exit.UsageErrorf("--workers counts the pods of the default task: with --task, give each task's count (--task worker=%d)", common.Workers)
	case common.Changed("workers"):
		if common.Workers < 1 {
			return nil, nil, exit.UsageErrorf("--workers %d: must be 1 or more", common.Workers)
		}
		taskValues["worker"] = kinds.Replicas(common.Workers)
	}
	return taskValues, order, nil
}

// addTaskPolicies adds the policies of --task-policy to the values of their
// tasks (order, those of --task); without --task, to the default task.
func (f *submitFlags) addTaskPolicies(taskValues map[string]any, order []string) error {
	for _, tp := range f.taskPolicies {
		task, rest, ok := strings.Cut(tp, ":")
		if !ok || task == "" {
			return exit.UsageErrorf("--task-policy %q: want TASK:EVENT=ACTION", tp)
		}
		p, err := parsePolicy("--task-policy", tp, rest, false)
		if err != nil {
			return err
		}
		tv, ok := taskValues[task].(map[string]any)
		if !ok {
			if len(f.tasks) > 0 || task != "worker" {
				return exit.UsageErrorf("--task-policy %q: no task %s (tasks: %s)", tp, task, strings.Join(taskNames(order), ", "))
			}
			tv = map[string]any{}
			taskValues[task] = tv
		}
		if err := addPolicy(tv, p, "--task-policy", tp); err != nil {
			return err
		}
	}
	return nil
}

// runPolicy is the runPolicy value of --min-available, checked against the
// pods of the tasks the flags gave, and of --max-retry.
func (f *submitFlags) runPolicy(common kinds.SubmitCommon, taskValues map[string]any) (map[string]any, error) {
	runPolicy := map[string]any{}
	if common.Changed("min-available") {
		if err := kinds.CheckCount("--min-available", f.minAvailable, 1); err != nil {
			return nil, err
		}
		if pods, known := flagPods(taskValues); known && f.minAvailable > pods {
			return nil, exit.UsageErrorf("--min-available %d: more than the job's %d pods, it would never start", f.minAvailable, pods)
		}
		runPolicy["minAvailable"] = f.minAvailable
	}
	if common.Changed("max-retry") {
		if common.Changed("retry") {
			return nil, exit.UsageErrorf("--max-retry and --retry both set a Volcano Job's maxRetry: give one")
		}
		if err := kinds.CheckCount("--max-retry", f.maxRetry, 0); err != nil {
			return nil, err
		}
		runPolicy["backoffLimit"] = f.maxRetry
	}
	return runPolicy, nil
}

// flagPods counts the pods of the tasks the flags gave (--task, --workers);
// known is false when they gave none (a job file's tasks are checked once
// the values are merged).
func flagPods(taskValues map[string]any) (pods int, known bool) {
	for _, t := range taskValues {
		n, ok := t.(map[string]any)["replicas"].(int)
		if !ok {
			return 0, false
		}
		pods += n
	}
	return pods, len(taskValues) > 0
}

func taskNames(order []string) []string {
	if len(order) == 0 {
		return []string{"worker"}
	}
	return order
}

func parseTask(arg string) (string, int, error) {
	name, count, ok := strings.Cut(arg, "=")
	if !ok {
		return "", 0, exit.UsageErrorf("--task %q: want NAME=REPLICAS, e.g. worker=4", arg)
	}
	if !taskName.MatchString(name) || len(name) > 63 {
		return "", 0, exit.UsageErrorf("--task %q: the task's name must be a DNS label (lower-case letters, digits and -)", arg)
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 || n > kinds.MaxCount {
		return "", 0, exit.UsageErrorf("--task %q: REPLICAS must be a whole number between 0 and %d", arg, kinds.MaxCount)
	}
	return name, n, nil
}

type policy struct{ event, action string }

// parsePolicy parses "EVENT=ACTION" (spec) of a --policy or --task-policy
// argument (arg, for messages).
func parsePolicy(flag, arg, spec string, jobLevel bool) (policy, error) {
	event, action, ok := strings.Cut(spec, "=")
	if !ok {
		return policy{}, exit.UsageErrorf("%s %q: want EVENT=ACTION, e.g. PodFailed=RestartJob", flag, arg)
	}
	e, ok := canonical(Events, event)
	if !ok {
		return policy{}, exit.UsageErrorf("%s %q: unknown event %q (events: %s)", flag, arg, event, strings.Join(Events, ", "))
	}
	a, ok := canonical(Actions, action)
	if !ok {
		return policy{}, exit.UsageErrorf("%s %q: unknown action %q (actions: %s)", flag, arg, action, strings.Join(Actions, ", "))
	}
	if jobLevel && a == string(vcbus.RestartTaskAction) {
		return policy{}, exit.UsageErrorf("%s %q: RestartTask restarts one task: give it with --task-policy TASK:%s=RestartTask", flag, arg, e)
	}
	return policy{e, a}, nil
}

// addPolicy appends p to the "policies" list of m; an event given twice, or
// "*" with other events, is a usage error.
func addPolicy(m map[string]any, p policy, flag, arg string) error {
	list, _ := m["policies"].([]any)
	for _, x := range list {
		e := x.(map[string]any)["event"].(string)
		switch {
		case e == p.event:
			return exit.UsageErrorf("%s %q: the event %s already has a policy", flag, arg, p.event)
		case e == string(vcbus.AnyEvent) || p.event == string(vcbus.AnyEvent):
			return exit.UsageErrorf("%s %q: the event \"*\" stands for every event: it cannot be given with others", flag, arg)
		}
	}
	m["policies"] = append(list, map[string]any{"event": p.event, "action": p.action})
	return nil
}

func canonical(list []string, s string) (string, bool) {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return x, true
		}
	}
	return "", false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// listed is what list reads of a Volcano Job, decoded straight from JSON.
type listed struct {
	Kind     string              `json:"kind"`
	Metadata jobmodel.ObjectMeta `json:"metadata"`
	Spec     struct {
		MinAvailable int32 `json:"minAvailable"`
		MaxRetry     int32 `json:"maxRetry"`
		Tasks        []struct {
			Name     string               `json:"name"`
			Replicas int32                `json:"replicas"`
			Template kinds.ListedTemplate `json:"template"`
		} `json:"tasks"`
	} `json:"spec"`
	Status vcbatch.JobStatus `json:"status"`
}

// Summarize reads list's view of a Volcano Job.
func (k Kind) Summarize(obj *unstructured.Unstructured, gpu corev1.ResourceName) (jobmodel.Summary, error) {
	return kinds.SummarizeObject(k, obj, gpu)
}

// SummarizeJSON is Summarize of a job as the API server sent it.
func (Kind) SummarizeJSON(data []byte, gpu corev1.ResourceName) (jobmodel.Summary, error) {
	var j listed
	if err := json.Unmarshal(data, &j); err != nil {
		return jobmodel.Summary{}, fmt.Errorf("volcano Job: %w", err)
	}
	s := jobmodel.NewSummary(j.Kind, j.Metadata)
	s.Status = Status(j.Status, maxRetryOf(j.Spec.MaxRetry))
	for _, t := range j.Spec.Tasks {
		s.Workers.Total += t.Replicas
		kinds.AddGPUs(&s, t.Replicas, t.Template, gpu)
	}
	s.Workers.Ready = j.Status.Running
	for _, c := range j.Status.Conditions {
		if c.Status == vcbatch.Running && c.LastTransitionTime != nil && s.Started == nil {
			t := c.LastTransitionTime.Time
			s.Started = &t
		}
	}
	if s.Status.State.Final() {
		t := j.Status.State.LastTransitionTime.Time
		if t.IsZero() {
			t = lastCondition(j.Status.Conditions)
		}
		if !t.IsZero() {
			s.Finished = &t
		}
	}
	return s, nil
}

func lastCondition(conds []vcbatch.JobCondition) time.Time {
	var last time.Time
	for _, c := range conds {
		if c.LastTransitionTime != nil && c.LastTransitionTime.After(last) {
			last = c.LastTransitionTime.Time
		}
	}
	return last
}

// Status maps a Volcano Job's phase to easyai's state. Aborted (a job
// stopped by the user, resumable) is Suspended; Restarting and Completing
// still run; Terminated (by a policy or the user, not resumable) is Failed.
// A job that was restarted says how many retries it used: Volcano fails it
// when its retry count (restarts, resumes included) reaches maxRetry; a
// suspended one that did, or whose resume would be its last retry, says which
// retry resuming uses.
func Status(st vcbatch.JobStatus, maxRetry int32) jobmodel.Status {
	s := jobmodel.Status{Reason: st.State.Reason, Message: st.State.Message}
	switch st.State.Phase {
	case "":
		return jobmodel.Status{State: jobmodel.Pending, Reason: "NotReconciled", Message: "Volcano's controller has not handled the job yet"}
	case vcbatch.Pending:
		s.State = jobmodel.Pending
		if s.Message == "" {
			s.Message = fmt.Sprintf("waiting for %d pods to be scheduled together", st.MinAvailable)
		}
	case vcbatch.Running, vcbatch.Restarting, vcbatch.Completing:
		s.State = jobmodel.Running
	case vcbatch.Completed:
		s.State = jobmodel.Succeeded
	case vcbatch.Failed, vcbatch.Terminating, vcbatch.Terminated:
		s.State = jobmodel.Failed
	case vcbatch.Aborting, vcbatch.Aborted:
		s.State = jobmodel.Suspended
	default:
		s.State = jobmodel.Unknown
	}
	if s.Reason == "" {
		s.Reason = string(st.State.Phase)
	}
	var retries string
	switch {
	case s.State == jobmodel.Suspended && st.RetryCount+1 >= maxRetry:
		// What matters of a suspended job's retries is what resuming costs.
		retries = fmt.Sprintf("resuming uses retry %d of %d, at which Volcano fails the job", st.RetryCount+1, maxRetry)
	case s.State == jobmodel.Suspended && st.RetryCount > 0:
		retries = fmt.Sprintf("resuming uses retry %d of %d", st.RetryCount+1, maxRetry)
	case st.RetryCount > 0:
		retries = fmt.Sprintf("retry %d/%d: Volcano fails the job at retry %d", st.RetryCount, maxRetry, maxRetry)
	}
	switch {
	case retries == "":
	case s.Message == "":
		s.Message = retries
	default:
		s.Message += " (" + retries + ")"
	}
	return s
}

// Replicas lists the job's replicas, TASK-INDEX, from its pods; replicas the
// spec asks for without a pod are Pending.
func (Kind) Replicas(obj *unstructured.Unstructured, pods []corev1.Pod) ([]jobmodel.Replica, error) {
	tasks, _, err := unstructured.NestedSlice(obj.Object, "spec", "tasks")
	if err != nil {
		return nil, err
	}
	var roles []string
	set := jobmodel.NewReplicaSet()
	for _, t := range tasks {
		m, _ := t.(map[string]any)
		name, _ := m["name"].(string)
		roles = append(roles, name)
		n, _, _ := unstructured.NestedInt64(m, "replicas")
		for idx := 0; idx < int(n); idx++ {
			set.Expect(name, idx)
		}
	}
	for i := range pods {
		p := &pods[i]
		name := p.Annotations[vcbatch.TaskSpecKey]
		if name == "" {
			name = p.Labels[vcbatch.TaskSpecKey]
		}
		index, ok := taskIndex(p, obj.GetName(), name)
		if name == "" || !ok {
			continue
		}
		// Labels and annotations are anyone's to write: a pod is the
		// replica only under the name Volcano gives it (JOB-TASK-INDEX),
		// which the replica's own pod holds while it exists.
		if p.Name != obj.GetName()+"-"+name+"-"+strconv.Itoa(index) {
			continue
		}
		set.Observe(jobmodel.ReplicaFromPod(name, index, p))
	}
	return set.Sorted(roles), nil
}

// taskIndex is a pod's index in its task: Volcano's task-index label or
// annotation, else the end of the pod's name (JOB-TASK-INDEX).
func taskIndex(p *corev1.Pod, jobName, task string) (int, bool) {
	for _, m := range []map[string]string{p.Labels, p.Annotations} {
		if v, ok := m[vcbatch.TaskIndex]; ok {
			n, err := strconv.Atoi(v)
			return n, err == nil
		}
	}
	rest, ok := strings.CutPrefix(p.Name, jobName+"-"+task+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

// VolcanoFramework: a Volcano Job is one as it is (kinds.VolcanoFramework).
func (Kind) VolcanoFramework() (string, map[string]string) { return "", nil }

// createdByJobTemplate is the label Volcano's JobFlow controller puts on a
// job it makes: NAMESPACE.JOBTEMPLATE.
const createdByJobTemplate = "volcano.sh/createdByJobTemplate"

// JobTemplates are Volcano's (flow.volcano.sh), which a JobFlow makes jobs of.
var JobTemplates = schema.GroupVersionResource{Group: "flow.volcano.sh", Version: "v1alpha1", Resource: "jobtemplates"}

// Template is the JobTemplate a JobFlow made the job of these labels from
// (kinds.Templated): its spec only is copied onto the job, and a pipeline's
// step keeps its labels and annotations there.
func (Kind) Template(labels map[string]string, namespace string) (schema.GroupVersionResource, string) {
	ns, name, ok := strings.Cut(labels[createdByJobTemplate], ".")
	if !ok || ns != namespace || name == "" {
		return JobTemplates, ""
	}
	return JobTemplates, name
}

// MadeFrom selects the jobs a JobFlow made from the JobTemplates names of
// namespace (kinds.Templated).
func (Kind) MadeFrom(namespace string, names []string) string {
	values := make([]string, len(names))
	for i, n := range names {
		values[i] = namespace + "." + n
	}
	return createdByJobTemplate + " in (" + strings.Join(values, ",") + ")"
}
