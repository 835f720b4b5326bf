package trainjob

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// listed is what list reads of a TrainJob, decoded straight from JSON.
type listed struct {
	Kind     string              `json:"kind"`
	Metadata jobmodel.ObjectMeta `json:"metadata"`
	Spec     Spec                `json:"spec"`
	Status   Status              `json:"status"`
}

// Summarize reads list's view of a TrainJob.
func (k Kind) Summarize(obj *unstructured.Unstructured, gpu corev1.ResourceName) (jobmodel.Summary, error) {
	return kinds.SummarizeObject(k, obj, gpu)
}

// SummarizeJSON is Summarize of a job as the API server sent it. Its
// replicas are its nodes (spec.trainer.numNodes; 0 when the runtime's
// default is used, which the job does not hold), all counted ready once the
// trainer's Job is (the trainer counts Jobs, not pods). It started when it
// was created (a TrainJob records no start), and finished when Complete or
// Failed became true.
func (Kind) SummarizeJSON(data []byte, gpu corev1.ResourceName) (jobmodel.Summary, error) {
	var j listed
	if err := json.Unmarshal(data, &j); err != nil {
		return jobmodel.Summary{}, fmt.Errorf("TrainJob: %w", err)
	}
	tj := &TrainJob{Spec: j.Spec, Status: j.Status}
	s := jobmodel.NewSummary(j.Kind, j.Metadata)
	s.Status = State(tj)
	s.Status.Reason = jobmodel.OneLine(s.Status.Reason)
	s.Status.Message = jobmodel.OneLine(s.Status.Message)
	nodes := Nodes(tj)
	s.Workers.Total = nodes
	if s.Status.State == jobmodel.Running {
		s.Workers.Ready = nodes
	}
	if t := j.Spec.Trainer; t != nil && t.ResourcesPerNode != nil {
		s.GPUs = float64(int64(nodes) * jobmodel.GPUs(*t.ResourcesPerNode, gpu))
	}
	if s.Status.State != jobmodel.Pending && s.Status.State != jobmodel.Suspended {
		created := s.Created
		s.Started = &created
	}
	if s.Status.State.Final() {
		var last time.Time
		for _, c := range j.Status.Conditions {
			if (c.Type == ConditionComplete || c.Type == ConditionFailed) && c.Status == metav1.ConditionTrue && c.LastTransitionTime.After(last) {
				last = c.LastTransitionTime.Time
			}
		}
		if !last.IsZero() {
			s.Finished = &last
		}
	}
	return s, nil
}

// maxPending bounds the Pending replicas listed before a job has pods.
const maxPending = 4096

// Replicas lists the pods of the job's JobSet: the replicated job each
// belongs to is its role (node, launcher, dataset-initializer, ...), its
// Job's completion index its index (node-0, node-1, ...). The runtime
// decides how many pods each role has, which the job object does not say:
// before the job has any pod its nodes (numNodes, at least 1) are listed
// Pending, and once it has pods, only those.
func (Kind) Replicas(obj *unstructured.Unstructured, pods []corev1.Pod) ([]jobmodel.Replica, error) {
	set := jobmodel.NewReplicaSet()
	roles := map[string]bool{}
	for i := range pods {
		p := &pods[i]
		role, index, ok := ReplicaOf(p)
		if !ok || p.Labels[JobSetNameLabel] != obj.GetName() {
			continue
		}
		roles[role] = true
		set.Observe(jobmodel.ReplicaFromPod(role, index, p))
	}
	if len(roles) == 0 {
		nodes, _, err := unstructured.NestedInt64(obj.Object, "spec", "trainer", "numNodes")
		if err != nil {
			return nil, err
		}
		// numNodes is the cluster's word: a few thousand placeholders at most.
		nodes = min(max(nodes, 1), maxPending)
		if runtime, _, _ := unstructured.NestedString(obj.Object, "spec", "runtimeRef", "name"); isMPIRuntime(runtime) {
			// The default MPI runtimes run the launcher as one of the nodes.
			set.Expect("launcher", 0)
			roles["launcher"] = true
			nodes--
		}
		for i := 0; i < int(nodes); i++ {
			set.Expect(TrainerJob, i)
		}
		if nodes > 0 {
			roles[TrainerJob] = true
		}
	}
	return set.Sorted(roleOrder(roles)), nil
}

// ReplicaOf reads a pod's role and index from its labels: the replicated
// job and the completion index (plus the Job's index times nothing: the
// runtimes run one Job per replicated job).
func ReplicaOf(p *corev1.Pod) (string, int, bool) {
	role := p.Labels[ReplicatedJobLabel]
	if role == "" {
		return "", 0, false
	}
	idx := p.Annotations[CompletionIndexAnno]
	if idx == "" {
		idx = p.Labels[CompletionIndexAnno]
	}
	if idx == "" {
		idx = "0"
	}
	n, err := strconv.Atoi(idx)
	if err != nil || n < 0 {
		return "", 0, false
	}
	if j, err := strconv.Atoi(p.Labels[JobIndexLabel]); err == nil && j > 0 {
		// A replicated job of several Jobs: role-JOB-INDEX keeps them apart.
		role = role + "-" + strconv.Itoa(j)
	}
	return role, n, true
}

// roleOrder puts the launcher first, then the nodes, then the rest by name
// (the initializers among them): exec, attach and open without --task go to
// the first, which runs the training.
func roleOrder(roles map[string]bool) []string {
	first := []string{"launcher", TrainerJob}
	var out []string
	for _, r := range first {
		if roles[r] {
			out = append(out, r)
			delete(roles, r)
		}
	}
	var rest []string
	for r := range roles {
		rest = append(rest, r)
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// maxJobsShown bounds the Jobs of one replicated job whose events get reads.
const maxJobsShown = 16

// Intermediates implements kinds.Intermediary: the JobSet (named as the
// TrainJob) and its Jobs, JobSet's JOBSET-REPLICATEDJOB-INDEX, for each
// replicated job the status counts (the trainer's nodes until it says).
func (Kind) Intermediates(obj *unstructured.Unstructured) map[string]string {
	name := obj.GetName()
	out := map[string]string{"JobSet/" + name: "jobset"}
	var j TrainJob
	jobs := []JobStatus{{Name: TrainerJob}}
	if decodeLenient(obj, &j) == nil && len(j.Status.JobsStatus) > 0 {
		jobs = j.Status.JobsStatus
	}
	for _, js := range jobs {
		// The status is the cluster's word: only a name that can be a Job's
		// part, and a bounded count, make names to match events against.
		if len(validation.IsDNS1123Label(js.Name)) > 0 {
			continue
		}
		n := min(max(count(js.Active)+count(js.Ready)+count(js.Succeeded)+count(js.Failed)+count(js.Suspended), 1), maxJobsShown)
		for i := range n {
			job := fmt.Sprintf("%s-%s-%d", name, js.Name, i)
			out["Job/"+job] = "Job/" + job
		}
	}
	return out
}

// Details implements kinds.Detailer: the runtime, the Jobs of each
// replicated job, the trainer's progress and metrics when it reports them,
// and the conditions' reasons.
func (Kind) Details(obj *unstructured.Unstructured) ([]jobmodel.Detail, error) {
	var j TrainJob
	if err := decodeLenient(obj, &j); err != nil {
		return nil, err
	}
	var out []jobmodel.Detail
	add := func(name, value string) {
		if value != "" {
			out = append(out, jobmodel.Detail{Name: name, Value: jobmodel.OneLine(value)})
		}
	}
	kind := ClusterRuntimeKind
	if j.Spec.RuntimeRef.Kind != nil && *j.Spec.RuntimeRef.Kind != "" {
		kind = *j.Spec.RuntimeRef.Kind
	}
	add("Runtime", kind+" "+j.Spec.RuntimeRef.Name)
	add("Jobs", jobsDetail(j.Status.JobsStatus))
	if ts := j.Status.TrainerStatus; ts != nil {
		add("Progress", progressDetail(ts))
		add("Metrics", metricsDetail(ts.Metrics))
	}
	add("Conditions", conditionsDetail(j.Status.Conditions))
	return out, nil
}

// jobsDetail counts the Jobs of each replicated job by their state ("node:
// 2 active, 1 ready; launcher: none yet"); "" for none.
func jobsDetail(statuses []JobStatus) string {
	var jobs []string
	for _, js := range statuses {
		var parts []string
		for _, c := range []struct {
			what string
			n    *int32
		}{{"active", js.Active}, {"ready", js.Ready}, {"succeeded", js.Succeeded}, {"failed", js.Failed}, {"suspended", js.Suspended}} {
			if count(c.n) > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", count(c.n), c.what))
			}
		}
		if len(parts) == 0 {
			parts = []string{"none yet"}
		}
		jobs = append(jobs, js.Name+": "+strings.Join(parts, ", "))
	}
	return strings.Join(jobs, "; ")
}

// progressDetail is the trainer's progress and the time it estimates is
// left ("40%, about 2h left"); "" when it reports none.
func progressDetail(ts *TrainerStatus) string {
	if ts.ProgressPercentage == nil {
		return ""
	}
	progress := fmt.Sprintf("%d%%", *ts.ProgressPercentage)
	if ts.EstimatedRemainingSeconds != nil {
		progress += fmt.Sprintf(", about %s left", printers.HumanDuration(time.Duration(*ts.EstimatedRemainingSeconds)*time.Second))
	}
	return progress
}

// metricsDetail lists the trainer's metrics ("loss=0.3, accuracy=0.9").
func metricsDetail(metrics []Metric) string {
	ms := make([]string, len(metrics))
	for i, m := range metrics {
		ms[i] = m.Name + "=" + m.Value
	}
	return strings.Join(ms, ", ")
}

// conditionsDetail lists the job's conditions with their reasons
// ("Created=True (JobsCreationSucceeded), Complete=False").
func conditionsDetail(conds []metav1.Condition) string {
	texts := make([]string, len(conds))
	for i, c := range conds {
		texts[i] = fmt.Sprintf("%s=%s", c.Type, c.Status)
		if c.Reason != "" {
			texts[i] += " (" + c.Reason + ")"
		}
	}
	return strings.Join(texts, ", ")
}

// Runs implements kinds.Runner: spec.trainer's image and command (with its
// args), what the job overrides of its runtime.
func (Kind) Runs(obj *unstructured.Unstructured) (string, []string) {
	var j TrainJob
	if err := decodeLenient(obj, &j); err != nil || j.Spec.Trainer == nil {
		return "", nil
	}
	var image string
	if j.Spec.Trainer.Image != nil {
		image = *j.Spec.Trainer.Image
	}
	command := append(append([]string(nil), j.Spec.Trainer.Command...), j.Spec.Trainer.Args...)
	if len(command) == 0 {
		command = nil
	}
	return image, command
}

// decodeLenient decodes a TrainJob leniently (a newer trainer may add
// fields easyai does not know).
func decodeLenient(obj *unstructured.Unstructured, into *TrainJob) error {
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("TrainJob %s: %w", obj.GetName(), err)
	}
	return nil
}

// Suspend sets spec.suspend: the trainer suspends the JobSet, whose Jobs
// delete their pods; the job is kept.
func (k Kind) Suspend(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error {
	var j TrainJob
	if err := decodeLenient(obj, &j); err != nil {
		return err
	}
	if st := State(&j); st.State.Final() {
		return fmt.Errorf("trainjob/%s is %s: only a job that has not ended can be suspended", obj.GetName(), st.State)
	}
	return k.setSuspend(ctx, dyn, obj, true)
}

// ResumeWarning: none. A resumed TrainJob's pods start anew, as those of
// the training-operator's kinds do (docs/trainer.md).
func (Kind) ResumeWarning(*unstructured.Unstructured) string { return "" }

// Resume clears spec.suspend.
func (k Kind) Resume(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error {
	return k.setSuspend(ctx, dyn, obj, false)
}

func (k Kind) setSuspend(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured, suspend bool) error {
	return kinds.SetField(ctx, dyn, k, obj, suspend, "spec", "suspend")
}
