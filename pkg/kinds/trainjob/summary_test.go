package trainjob_test

import (
	"context"
	"encoding/json"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
	"github.com/easyai-dev/easyai/pkg/kinds/trainjob"
)

var (
	t0  = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	gpu = corev1.ResourceName("nvidia.com/gpu")
)

// job is a TrainJob "tj" of team-a created at t0, on 3 nodes with 4 GPUs
// each, its spec and status extended by the YAML given (merged over them).
func job(t *testing.T, extra string) *unstructured.Unstructured {
	t.Helper()
	obj := object(t, `
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: team-a, creationTimestamp: "2025-03-01T12:00:00Z"}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    numNodes: 3
    image: example.com/train:1
    resourcesPerNode: {limits: {nvidia.com/gpu: 4, cpu: "8"}}
`)
	more := object(t, "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"+extra)
	for _, field := range []string{"spec", "status"} {
		m, _, _ := unstructured.NestedMap(more.Object, field)
		for key, v := range m {
			if err := unstructured.SetNestedField(obj.Object, v, field, key); err != nil {
				t.Fatal(err)
			}
		}
	}
	return obj
}

// object decodes YAML the way the dynamic client decodes the API server's
// JSON (whole numbers as int64).
func object(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return obj
}

func summarize(t *testing.T, obj *unstructured.Unstructured, gpu corev1.ResourceName) jobmodel.Summary {
	t.Helper()
	data, err := json.Marshal(obj.Object)
	if err != nil {
		t.Fatal(err)
	}
	s, err := trainjob.New().SummarizeJSON(data, gpu)
	if err != nil {
		t.Fatal(err)
	}
	// Summarize reads the object as SummarizeJSON reads its JSON.
	if fromObj, err := trainjob.New().Summarize(obj, gpu); err != nil || !reflect.DeepEqual(fromObj, s) {
		t.Errorf("Summarize = %+v, %v; SummarizeJSON = %+v", fromObj, err, s)
	}
	return s
}

func TestSummarize(t *testing.T) {
	t1 := t0.Add(time.Hour)
	for _, tc := range []struct {
		name     string
		extra    string
		gpu      corev1.ResourceName
		state    jobmodel.State
		reason   string
		ready    int32
		total    int32
		gpus     float64
		started  bool
		finished *time.Time
	}{
		{name: "pending", state: jobmodel.Pending, reason: "Pending", total: 3, gpus: 12},
		{name: "an initializer ready is still pending", extra: "status: {jobsStatus: [{name: dataset-initializer, ready: 1}, {name: node, active: 1}]}",
			state: jobmodel.Pending, reason: "Pending", total: 3, gpus: 12},
		{name: "running", extra: "status: {jobsStatus: [{name: node, active: 1, ready: 1}]}",
			state: jobmodel.Running, reason: "Running", ready: 3, total: 3, gpus: 12, started: true},
		{name: "complete", extra: `status:
  jobsStatus: [{name: node, succeeded: 1}]
  conditions:
  - {type: Suspended, status: "False", reason: Resumed, lastTransitionTime: "2025-03-01T12:30:00Z"}
  - {type: Failed, status: "False", reason: X, lastTransitionTime: "2025-03-01T14:00:00Z"}
  - {type: Complete, status: "True", reason: JobsCompleted, message: "all done", lastTransitionTime: "2025-03-01T13:00:00Z"}`,
			state: jobmodel.Succeeded, reason: "JobsCompleted", total: 3, gpus: 12, started: true, finished: &t1},
		{name: "failed past its deadline", extra: `status:
  conditions:
  - {type: Failed, status: "True", reason: DeadlineExceeded, message: "past its deadline", lastTransitionTime: "2025-03-01T13:00:00Z"}`,
			state: jobmodel.Failed, reason: "DeadlineExceeded", total: 3, gpus: 12, started: true, finished: &t1},
		{name: "failed and complete: it finished when the later became true", extra: `status:
  conditions:
  - {type: Failed, status: "True", reason: DeadlineExceeded, lastTransitionTime: "2025-03-01T13:00:00Z"}
  - {type: Complete, status: "True", reason: JobsCompleted, lastTransitionTime: "2025-03-01T12:45:00Z"}`,
			state: jobmodel.Failed, reason: "DeadlineExceeded", total: 3, gpus: 12, started: true, finished: &t1},
		{name: "suspended by its spec", extra: "spec: {suspend: true}", state: jobmodel.Suspended, reason: "Suspended", total: 3, gpus: 12},
		{name: "suspended by the trainer", extra: `status: {conditions: [{type: Suspended, status: "True", reason: Suspended, lastTransitionTime: "2025-03-01T13:00:00Z"}]}`,
			state: jobmodel.Suspended, reason: "Suspended", total: 3, gpus: 12},
		{name: "another GPU resource", gpu: "amd.com/gpu", state: jobmodel.Pending, reason: "Pending", total: 3},
		{name: "GPUs requested only", extra: `spec: {trainer: {numNodes: 2, resourcesPerNode: {requests: {nvidia.com/gpu: 1}}}}`,
			state: jobmodel.Pending, reason: "Pending", total: 2, gpus: 2},
		{name: "the runtime's nodes", extra: `spec: {trainer: {image: x}}`, state: jobmodel.Pending, reason: "Pending"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.gpu == "" {
				tc.gpu = gpu
			}
			s := summarize(t, job(t, tc.extra), tc.gpu)
			if s.Name != "tj" || s.Namespace != "team-a" || s.APIKind != "TrainJob" || !s.Created.Equal(t0) {
				t.Errorf("summary of %s/%s (%s) created %v", s.Namespace, s.Name, s.APIKind, s.Created)
			}
			if s.Status.State != tc.state || s.Status.Reason != tc.reason {
				t.Errorf("status %+v, want %s (%s)", s.Status, tc.state, tc.reason)
			}
			if s.Workers != (jobmodel.ReplicaCount{Ready: tc.ready, Total: tc.total}) || s.GPUs != tc.gpus {
				t.Errorf("workers %+v, GPUs %v; want %d/%d, %v", s.Workers, s.GPUs, tc.ready, tc.total, tc.gpus)
			}
			if started := s.Started != nil && s.Started.Equal(t0); started != tc.started || (!tc.started && s.Started != nil) {
				t.Errorf("started %v, want started at creation: %t", s.Started, tc.started)
			}
			if (s.Finished == nil) != (tc.finished == nil) || (tc.finished != nil && !s.Finished.Equal(*tc.finished)) {
				t.Errorf("finished %v, want %v", s.Finished, tc.finished)
			}
		})
	}
}

// The reason and message of a condition are one line of plain text.
func TestSummarizeKeepsTheStatusOnOneLine(t *testing.T) {
	s := summarize(t, job(t, `status:
  conditions:
  - {type: Failed, status: "True", reason: "Dead\nline", message: "line 1\nline 2\r\u001b[31mred\u009b2J", lastTransitionTime: "2025-03-01T13:00:00Z"}`), gpu)
	if s.Status.Reason != "Dead line" || s.Status.Message != "line 1 line 2  [31mred 2J" {
		t.Errorf("status %q, %q", s.Status.Reason, s.Status.Message)
	}
}

func TestSummarizeJSONRejectsWhatIsNoTrainJob(t *testing.T) {
	for _, data := range []string{`{`, `{"spec":{"trainer":{"numNodes":"3"}}}`, `[]`} {
		if _, err := trainjob.New().SummarizeJSON([]byte(data), gpu); err == nil || !strings.Contains(err.Error(), "TrainJob") {
			t.Errorf("%s: %v, want an error naming the TrainJob", data, err)
		}
	}
}

// pod is a pod of the JobSet named jobset, of its replicated job at index
// (as the Job controller annotates it; "" for none).
func pod(name, jobset, replicatedJob, index string, phase corev1.PodPhase) corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a", CreationTimestamp: metav1.NewTime(t0),
			Labels: map[string]string{trainjob.JobSetNameLabel: jobset, trainjob.ReplicatedJobLabel: replicatedJob, trainjob.JobIndexLabel: "0"}},
		Spec:   corev1.PodSpec{NodeName: "gpu-1"},
		Status: corev1.PodStatus{Phase: phase},
	}
	if index != "" {
		p.Annotations = map[string]string{trainjob.CompletionIndexAnno: index}
	}
	return p
}

func TestReplicas(t *testing.T) {
	labelled := pod("tj-node-0-2-x", "tj", "node", "", corev1.PodPending)
	labelled.Labels[trainjob.CompletionIndexAnno] = "2"
	pods := []corev1.Pod{
		pod("tj-node-0-1-b", "tj", "node", "1", corev1.PodRunning),
		pod("tj-launcher-0-0-c", "tj", "launcher", "0", corev1.PodRunning),
		pod("tj-node-0-0-a", "tj", "node", "0", corev1.PodRunning),
		labelled,
		pod("tj-dataset-initializer-0-0-d", "tj", "dataset-initializer", "0", corev1.PodSucceeded),
		pod("tj-evaluator-0-0-e", "tj", "evaluator", "", corev1.PodRunning),
		// Not the job's: another JobSet's, one of no replicated job, one of
		// an index that is no index.
		pod("other-node-0-7-f", "other", "node", "7", corev1.PodRunning),
		pod("tj-x", "tj", "", "0", corev1.PodRunning),
		pod("tj-node-0-x-g", "tj", "node", "x", corev1.PodRunning),
		pod("tj-node-0-m-h", "tj", "node", "-1", corev1.PodRunning),
	}
	got, err := trainjob.New().Replicas(job(t, ""), pods)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"launcher-0", "node-0", "node-1", "node-2", "dataset-initializer-0", "evaluator-0"}
	if !reflect.DeepEqual(kindstest.Tasks(got), want) {
		t.Fatalf("tasks %v, want %v", kindstest.Tasks(got), want)
	}
	for _, r := range got {
		if r.Pod == "" || !strings.HasPrefix(r.Pod, "tj-"+r.Role+"-") || r.Node != "gpu-1" || r.Created == nil {
			t.Errorf("replica %+v is not read from its pod", r)
		}
	}
	if got[4].Phase != "Succeeded" || got[1].Phase != "Running" || got[3].Phase != "Pending" {
		t.Errorf("phases %+v", got)
	}
}

// Before the job has pods, its nodes are listed Pending: numNodes of them,
// at least one, at most a bound whatever numNodes says.
func TestReplicasBeforeThePods(t *testing.T) {
	for _, tc := range []struct {
		extra string
		want  int
	}{
		{"", 3},
		{"spec: {trainer: {image: x}}", 1},
		{"spec: {trainer: {numNodes: 0}}", 1},
		{"spec: {trainer: {numNodes: -5}}", 1},
		{"spec: {trainer: {numNodes: 4096}}", trainjob.MaxPending},
		{"spec: {trainer: {numNodes: 2147483647}}", trainjob.MaxPending},
		{"spec: {trainer: {numNodes: 9223372036854775807}}", trainjob.MaxPending},
	} {
		obj := job(t, tc.extra)
		// Another job's pods do not count as this one's.
		got, err := trainjob.New().Replicas(obj, []corev1.Pod{pod("other-node-0-0-a", "other", "node", "0", corev1.PodRunning)})
		if err != nil {
			t.Fatalf("%s: %v", tc.extra, err)
		}
		if len(got) != tc.want {
			t.Errorf("%s: %d replicas, want %d", tc.extra, len(got), tc.want)
			continue
		}
		for i, r := range got {
			if r.Task != jobmodel.TaskName("node", i) || r.Phase != "Pending" || r.Reason != "NoPod" || r.Pod != "" {
				t.Errorf("%s: replica %d is %+v", tc.extra, i, r)
				break
			}
		}
	}
	if _, err := trainjob.New().Replicas(job(t, `spec: {trainer: {numNodes: "3"}}`), nil); err == nil {
		t.Error("numNodes a string: no error")
	}
}

// The bound holds in memory too: numNodes is the cluster's word.
func TestReplicasOfHugeNumNodesAllocateLittle(t *testing.T) {
	obj := job(t, "spec: {trainer: {numNodes: 2147483647}}")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := trainjob.New().Replicas(obj, nil)
	runtime.ReadMemStats(&after)
	if err != nil || len(got) > trainjob.MaxPending {
		t.Fatalf("%d replicas, %v", len(got), err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("listing the Pending nodes allocated %d bytes", n)
	}
}

func TestReplicaOf(t *testing.T) {
	for _, tc := range []struct {
		labels, annotations map[string]string
		role                string
		index               int
		ok                  bool
	}{
		{map[string]string{trainjob.ReplicatedJobLabel: "node"}, map[string]string{trainjob.CompletionIndexAnno: "3"}, "node", 3, true},
		{map[string]string{trainjob.ReplicatedJobLabel: "node", trainjob.CompletionIndexAnno: "2"}, nil, "node", 2, true},
		// The annotation over the label.
		{map[string]string{trainjob.ReplicatedJobLabel: "node", trainjob.CompletionIndexAnno: "2"}, map[string]string{trainjob.CompletionIndexAnno: "1"}, "node", 1, true},
		{map[string]string{trainjob.ReplicatedJobLabel: "launcher"}, nil, "launcher", 0, true},
		{map[string]string{trainjob.ReplicatedJobLabel: "node", trainjob.JobIndexLabel: "0"}, map[string]string{trainjob.CompletionIndexAnno: "1"}, "node", 1, true},
		// The second Job of a replicated job.
		{map[string]string{trainjob.ReplicatedJobLabel: "node", trainjob.JobIndexLabel: "1"}, map[string]string{trainjob.CompletionIndexAnno: "1"}, "node-1", 1, true},
		{map[string]string{trainjob.ReplicatedJobLabel: "node", trainjob.JobIndexLabel: "x"}, nil, "node", 0, true},
		{map[string]string{trainjob.ReplicatedJobLabel: "node"}, map[string]string{trainjob.CompletionIndexAnno: "-1"}, "", 0, false},
		{map[string]string{trainjob.ReplicatedJobLabel: "node"}, map[string]string{trainjob.CompletionIndexAnno: "1e3"}, "", 0, false},
		{map[string]string{trainjob.ReplicatedJobLabel: "node"}, map[string]string{trainjob.CompletionIndexAnno: "99999999999999999999"}, "", 0, false},
		{map[string]string{trainjob.JobSetNameLabel: "tj"}, map[string]string{trainjob.CompletionIndexAnno: "0"}, "", 0, false},
		{nil, nil, "", 0, false},
	} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: tc.labels, Annotations: tc.annotations}}
		role, index, ok := trainjob.ReplicaOf(p)
		if role != tc.role || index != tc.index || ok != tc.ok {
			t.Errorf("labels %v, annotations %v: %q, %d, %t; want %q, %d, %t", tc.labels, tc.annotations, role, index, ok, tc.role, tc.index, tc.ok)
		}
	}
}

func details(t *testing.T, obj *unstructured.Unstructured) map[string]string {
	t.Helper()
	ds, err := trainjob.New().Details(obj)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var names []string
	for _, d := range ds {
		out[d.Name] = d.Value
		names = append(names, d.Name)
	}
	// Only these, each once, always in this order.
	order := []string{"Runtime", "Jobs", "Progress", "Metrics", "Conditions"}
	last := -1
	for _, n := range names {
		i := slices.Index(order, n)
		if i <= last {
			t.Errorf("details %v: unknown, repeated or out of order", names)
		}
		last = i
	}
	return out
}

func TestDetails(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra string
		want  map[string]string
	}{
		{"a new job", "", map[string]string{"Runtime": "ClusterTrainingRuntime torch-distributed"}},
		{"a runtime of the namespace", "spec: {runtimeRef: {name: my-torch, kind: TrainingRuntime, apiGroup: trainer.kubeflow.org}}",
			map[string]string{"Runtime": "TrainingRuntime my-torch"}},
		{"an empty runtime kind is the default", `spec: {runtimeRef: {name: t, kind: ""}}`, map[string]string{"Runtime": "ClusterTrainingRuntime t"}},
		{"running", `status:
  jobsStatus:
  - {name: dataset-initializer, succeeded: 1}
  - {name: node, active: 1, ready: 1, failed: 0}
  - {name: launcher}
  trainerStatus:
    progressPercentage: 45
    estimatedRemainingSeconds: 5400
    metrics: [{name: loss, value: "0.25"}, {name: accuracy, value: "0.9"}]
    lastUpdatedTime: "2025-03-01T12:30:00Z"
  conditions:
  - {type: Suspended, status: "False", reason: Resumed, lastTransitionTime: "2025-03-01T12:10:00Z"}`,
			map[string]string{
				"Runtime":    "ClusterTrainingRuntime torch-distributed",
				"Jobs":       "dataset-initializer: 1 succeeded; node: 1 active, 1 ready; launcher: none yet",
				"Progress":   "45%, about 90m left",
				"Metrics":    "loss=0.25, accuracy=0.9",
				"Conditions": "Suspended=False (Resumed)",
			}},
		{"ended", `status:
  jobsStatus: [{name: node, succeeded: 1, suspended: 0}, {name: launcher, failed: 2, suspended: 1}]
  trainerStatus: {progressPercentage: 100}
  conditions:
  - {type: Complete, status: "True", reason: JobsCompleted, lastTransitionTime: "2025-03-01T13:00:00Z"}
  - {type: Custom, status: Unknown, reason: "", lastTransitionTime: "2025-03-01T13:00:00Z"}`,
			map[string]string{
				"Runtime":    "ClusterTrainingRuntime torch-distributed",
				"Jobs":       "node: 1 succeeded; launcher: 2 failed, 1 suspended",
				"Progress":   "100%",
				"Conditions": "Complete=True (JobsCompleted), Custom=Unknown",
			}},
		{"metrics without progress", "status: {trainerStatus: {metrics: [{name: loss, value: \"1\"}]}}",
			map[string]string{"Runtime": "ClusterTrainingRuntime torch-distributed", "Metrics": "loss=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := details(t, job(t, tc.extra)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("details %q,\nwant %q", got, tc.want)
			}
		})
	}
}

// What the cluster says is shown as one line of plain text: a reason, a
// metric or a name of the trainer's status cannot move the cursor, clear
// the screen or start a line of its own.
func TestDetailsKeepControlCharactersOut(t *testing.T) {
	obj := job(t, `spec: {runtimeRef: {name: "torch\u001b[2J", kind: "Cluster\nTrainingRuntime"}}
status:
  jobsStatus: [{name: "node\r\nfake: line", ready: 1}]
  trainerStatus:
    progressPercentage: 5
    metrics: [{name: "loss\u001b]0;title\u0007", value: "0.1\n\u009b31m"}]
  conditions:
  - {type: "Failed\u0000", status: "True", reason: "Bad\nReason\u001b[31m", message: "m\nm", lastTransitionTime: "2025-03-01T13:00:00Z"}`)
	got := details(t, obj)
	for name, value := range got {
		if strings.IndexFunc(value, unicode.IsControl) >= 0 {
			t.Errorf("%s: %q holds a control character", name, value)
		}
	}
	if got["Conditions"] != "Failed =True (Bad Reason [31m)" || got["Metrics"] != "loss ]0;title =0.1  31m" || got["Jobs"] != "node  fake: line: 1 ready" {
		t.Errorf("details %q", got)
	}
}

func TestDetailsOfWhatIsNoTrainJob(t *testing.T) {
	obj := job(t, "")
	obj.Object["status"] = map[string]any{"jobsStatus": "node"}
	if _, err := trainjob.New().Details(obj); err == nil || !strings.Contains(err.Error(), "TrainJob tj") {
		t.Errorf("jobsStatus a string: %v", err)
	}
}

func fakeDynamic(objs ...k8sruntime.Object) *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(k8sruntime.NewScheme(),
		map[schema.GroupVersionResource]string{trainjob.New().Resource(): "TrainJobList"}, objs...)
}

func suspendOf(t *testing.T, dyn *dynamicfake.FakeDynamicClient) (bool, bool) {
	t.Helper()
	got, err := dyn.Resource(trainjob.New().Resource()).Namespace("team-a").Get(context.Background(), "tj", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(got.Object, "spec", "trainer", "numNodes"); n != 3 {
		t.Errorf("the patch lost spec.trainer: %v", got.Object["spec"])
	}
	suspend, found, err := unstructured.NestedBool(got.Object, "spec", "suspend")
	if err != nil {
		t.Fatal(err)
	}
	return suspend, found
}

func TestSuspendAndResume(t *testing.T) {
	k := trainjob.New()
	running := job(t, "status: {jobsStatus: [{name: node, ready: 1}]}")
	dyn := fakeDynamic(running.DeepCopy())
	if err := k.Suspend(context.Background(), dyn, running); err != nil {
		t.Fatal(err)
	}
	actions := dyn.Actions()
	if len(actions) != 1 {
		t.Fatalf("actions %v", actions)
	}
	if p, ok := actions[0].(k8stesting.PatchAction); !ok || p.GetPatchType() != types.MergePatchType || string(p.GetPatch()) != `{"spec":{"suspend":true}}` {
		t.Errorf("action %#v", actions[0])
	}
	if suspend, found := suspendOf(t, dyn); !suspend || !found {
		t.Errorf("after Suspend: spec.suspend %t (set: %t)", suspend, found)
	}
	suspended := job(t, "spec: {suspend: true}")
	if err := k.Resume(context.Background(), dyn, suspended); err != nil {
		t.Fatal(err)
	}
	if suspend, found := suspendOf(t, dyn); suspend || !found {
		t.Errorf("after Resume: spec.suspend %t (set: %t)", suspend, found)
	}
	// A suspended job may be suspended again.
	if err := k.Suspend(context.Background(), fakeDynamic(suspended.DeepCopy()), suspended); err != nil {
		t.Errorf("suspending a suspended job: %v", err)
	}
	if w := k.ResumeWarning(suspended); w != "" {
		t.Errorf("ResumeWarning %q", w)
	}
}

func TestSuspendRefusesAJobThatEnded(t *testing.T) {
	for _, cond := range []string{"Complete", "Failed"} {
		ended := job(t, `status: {conditions: [{type: `+cond+`, status: "True", reason: R, lastTransitionTime: "2025-03-01T13:00:00Z"}]}`)
		dyn := fakeDynamic(ended.DeepCopy())
		err := trainjob.New().Suspend(context.Background(), dyn, ended)
		if err == nil || !strings.Contains(err.Error(), "trainjob/tj") || !strings.Contains(err.Error(), "only a job that has not ended can be suspended") {
			t.Errorf("%s: %v", cond, err)
		}
		if len(dyn.Actions()) != 0 {
			t.Errorf("%s: the job was changed: %v", cond, dyn.Actions())
		}
	}
}

func TestSuspendOfAJobThatIsGone(t *testing.T) {
	err := trainjob.New().Suspend(context.Background(), fakeDynamic(), job(t, ""))
	if err == nil || !strings.Contains(err.Error(), "trainjob/tj: setting spec.suspend to true") {
		t.Errorf("%v", err)
	}
}

func TestPendingReplicasOfAnMPIRuntime(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
		"metadata": map[string]any{"name": "ds", "namespace": "ns"},
		"spec": map[string]any{
			"runtimeRef": map[string]any{"name": "deepspeed-distributed"},
			"trainer":    map[string]any{"numNodes": int64(3)},
		},
	}}
	got, err := trainjob.New().Replicas(obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []string
	for _, r := range got {
		tasks = append(tasks, r.Task)
	}
	if strings.Join(tasks, ",") != "launcher-0,node-0,node-1" {
		t.Errorf("pending replicas of 3 nodes on deepspeed-distributed: %v, want the launcher and 2 nodes", tasks)
	}
}

func TestRunsIsTheTrainersImageAndCommand(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"trainer": map[string]any{
		"image": "example.com/train:1", "command": []any{"torchrun"}, "args": []any{"train.py", "--epochs=1"},
	}}}}
	image, command := trainjob.New().Runs(obj)
	if image != "example.com/train:1" || strings.Join(command, " ") != "torchrun train.py --epochs=1" {
		t.Errorf("Runs: %q %q", image, command)
	}
	if image, command := trainjob.New().Runs(&unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}); image != "" || command != nil {
		t.Errorf("Runs of a job without a trainer: %q %q", image, command)
	}
}

// get shows the Warning events of the JobSet and of each of its Jobs: a Job
// that cannot create its pods says so only on itself.
func TestIntermediates(t *testing.T) {
	for _, tc := range []struct {
		name, extra string
		want        map[string]string
	}{
		{"before the trainer reports its jobs", "", map[string]string{
			"JobSet/tj": "jobset", "Job/tj-node-0": "Job/tj-node-0"}},
		{"every replicated job, each of its Jobs", `status:
  jobsStatus:
  - {name: dataset-initializer, succeeded: 1}
  - {name: node, active: 1, failed: 1}
  - {name: launcher}`, map[string]string{
			"JobSet/tj": "jobset", "Job/tj-dataset-initializer-0": "Job/tj-dataset-initializer-0",
			"Job/tj-node-0": "Job/tj-node-0", "Job/tj-node-1": "Job/tj-node-1",
			"Job/tj-launcher-0": "Job/tj-launcher-0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := trainjob.New().Intermediates(job(t, tc.extra)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("intermediates %v,\nwant %v", got, tc.want)
			}
		})
	}
}

// A hostile status names nothing odd and no unbounded count of Jobs.
func TestIntermediatesOfAHostileStatus(t *testing.T) {
	got := trainjob.New().Intermediates(job(t, `status:
  jobsStatus:
  - {name: "node\u001b[2J", active: 1}
  - {name: node, active: 2000000000}`))
	if len(got) != 1+16 || got["Job/tj-node-15"] == "" || got["Job/tj-node-16"] != "" {
		t.Errorf("intermediates of a hostile status: %d names: %v", len(got), got)
	}
}
