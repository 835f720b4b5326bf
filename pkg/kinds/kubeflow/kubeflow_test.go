package kubeflow_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
	"github.com/easyai-dev/easyai/pkg/kinds/kubeflow"
	"github.com/easyai-dev/easyai/pkg/kinds/pytorchjob"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func cond(t kubeflowv1.JobConditionType, status corev1.ConditionStatus, reason string) kubeflowv1.JobCondition {
	return kubeflowv1.JobCondition{Type: t, Status: status, Reason: reason, Message: reason + " message", LastTransitionTime: metav1.NewTime(t0)}
}

const (
	yes = corev1.ConditionTrue
	no  = corev1.ConditionFalse
)

func TestStatus(t *testing.T) {
	gang := kubeflowv1.RunPolicy{SchedulingPolicy: &kubeflowv1.SchedulingPolicy{MinAvailable: ptr.To[int32](3)}}
	suspend := kubeflowv1.RunPolicy{Suspend: ptr.To(true)}
	created := cond(kubeflowv1.JobCreated, yes, "TFJobCreated")
	running := cond(kubeflowv1.JobRunning, yes, "TFJobRunning")
	notRunning := cond(kubeflowv1.JobRunning, no, "TFJobRunning")
	restarting := cond(kubeflowv1.JobRestarting, yes, "TFJobRestarting")
	succeeded := cond(kubeflowv1.JobSucceeded, yes, "TFJobSucceeded")
	failed := cond(kubeflowv1.JobFailed, yes, "TFJobFailed")
	suspended := cond(kubeflowv1.JobSuspended, yes, "TFJobSuspended")
	resumed := cond(kubeflowv1.JobSuspended, no, "TFJobResumed")

	tests := []struct {
		name       string
		conditions []kubeflowv1.JobCondition
		policy     kubeflowv1.RunPolicy
		want       jobmodel.Status
	}{
		{"not reconciled yet", nil, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Pending, Reason: "NotReconciled", Message: "the operator has not handled the job yet"}},
		{"submitted suspended, not reconciled", nil, suspend,
			jobmodel.Status{State: jobmodel.Suspended, Reason: "Suspended", Message: "runPolicy.suspend is set"}},
		{"created", []kubeflowv1.JobCondition{created}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Pending, Reason: "TFJobCreated", Message: "TFJobCreated message"}},
		{"created, gang waiting to fit", []kubeflowv1.JobCondition{created}, gang,
			jobmodel.Status{State: jobmodel.Queued, Reason: "TFJobCreated", Message: "waiting for its gang of pods to be scheduled together"}},
		{"running", []kubeflowv1.JobCondition{created, running}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Running, Reason: "TFJobRunning", Message: "TFJobRunning message"}},
		{"running gang", []kubeflowv1.JobCondition{created, running}, gang,
			jobmodel.Status{State: jobmodel.Running, Reason: "TFJobRunning", Message: "TFJobRunning message"}},
		{"restarting", []kubeflowv1.JobCondition{created, restarting}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Running, Reason: "TFJobRestarting", Message: "TFJobRestarting message"}},
		{"succeeded", []kubeflowv1.JobCondition{created, notRunning, succeeded}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Succeeded, Reason: "TFJobSucceeded", Message: "TFJobSucceeded message"}},
		{"failed", []kubeflowv1.JobCondition{created, notRunning, failed}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Failed, Reason: "TFJobFailed", Message: "TFJobFailed message"}},
		{"failed while restarting", []kubeflowv1.JobCondition{created, restarting, failed}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Failed, Reason: "TFJobFailed", Message: "TFJobFailed message"}},
		{"failed and succeeded: failed wins", []kubeflowv1.JobCondition{created, succeeded, failed}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Failed, Reason: "TFJobFailed", Message: "TFJobFailed message"}},
		{"succeeded, then suspend asked: still succeeded", []kubeflowv1.JobCondition{created, notRunning, succeeded}, suspend,
			jobmodel.Status{State: jobmodel.Succeeded, Reason: "TFJobSucceeded", Message: "TFJobSucceeded message"}},
		{"suspended", []kubeflowv1.JobCondition{created, notRunning, suspended}, suspend,
			jobmodel.Status{State: jobmodel.Suspended, Reason: "TFJobSuspended", Message: "TFJobSuspended message"}},
		{"suspended, resume asked but not handled", []kubeflowv1.JobCondition{created, notRunning, suspended}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Suspended, Reason: "TFJobSuspended", Message: "TFJobSuspended message"}},
		{"suspend asked, not handled yet", []kubeflowv1.JobCondition{created}, suspend,
			jobmodel.Status{State: jobmodel.Suspended, Reason: "Suspended", Message: "runPolicy.suspend is set"}},
		{"suspend asked while running, not handled yet", []kubeflowv1.JobCondition{created, running}, suspend,
			jobmodel.Status{State: jobmodel.Running, Reason: "TFJobRunning", Message: "TFJobRunning message"}},
		{"resumed, pods starting", []kubeflowv1.JobCondition{created, notRunning, resumed}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Pending, Reason: "TFJobCreated", Message: "TFJobCreated message"}},
		{"resumed gang, waiting to fit", []kubeflowv1.JobCondition{created, notRunning, resumed}, gang,
			jobmodel.Status{State: jobmodel.Queued, Reason: "TFJobCreated", Message: "waiting for its gang of pods to be scheduled together"}},
		{"resumed and running", []kubeflowv1.JobCondition{created, resumed, running}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Running, Reason: "TFJobRunning", Message: "TFJobRunning message"}},
		{"only false conditions", []kubeflowv1.JobCondition{cond(kubeflowv1.JobCreated, no, "Odd"), notRunning}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Unknown}},
		{"unknown condition status", []kubeflowv1.JobCondition{cond(kubeflowv1.JobRunning, corev1.ConditionUnknown, "Odd")}, kubeflowv1.RunPolicy{},
			jobmodel.Status{State: jobmodel.Unknown}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := kubeflow.Status(kubeflowv1.JobStatus{Conditions: tt.conditions}, tt.policy)
			if got != tt.want {
				t.Errorf("Status() = %+v\nwant       %+v", got, tt.want)
			}
		})
	}
}

func toUnstructured(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func replicaSpec(n int32, gpus int64, request bool) *kubeflowv1.ReplicaSpec {
	c := corev1.Container{Name: "tensorflow", Image: "example.com/train:1"}
	if gpus > 0 {
		q := corev1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)}
		if request {
			c.Resources.Requests = q
		} else {
			c.Resources.Limits = q
		}
	}
	return &kubeflowv1.ReplicaSpec{Replicas: ptr.To(n), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{c}}}}
}

func tfJob(specs map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec, status kubeflowv1.JobStatus) *kubeflowv1.TFJob {
	return &kubeflowv1.TFJob{
		TypeMeta: metav1.TypeMeta{APIVersion: "kubeflow.org/v1", Kind: "TFJob"},
		ObjectMeta: metav1.ObjectMeta{
			Name: "mnist", Namespace: "team-a", CreationTimestamp: metav1.NewTime(t0),
			Labels: map[string]string{
				jobmodel.ManagedByLabel: jobmodel.ManagedByValue, jobmodel.UserLabel: "alice_corp", jobmodel.ExperimentLabel: "lr-sweep",
			},
			Annotations: map[string]string{jobmodel.UserAnnotation: "alice@corp"},
		},
		Spec:   kubeflowv1.TFJobSpec{TFReplicaSpecs: specs},
		Status: status,
	}
}

func TestSummarize(t *testing.T) {
	started, finished := metav1.NewTime(t0.Add(time.Minute)), metav1.NewTime(t0.Add(time.Hour))
	obj := toUnstructured(t, tfJob(map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
		kubeflowv1.TFJobReplicaTypePS:     replicaSpec(1, 0, false),
		kubeflowv1.TFJobReplicaTypeWorker: replicaSpec(2, 2, false),
		kubeflowv1.TFJobReplicaTypeChief:  replicaSpec(1, 1, true), // requests only
	}, kubeflowv1.JobStatus{
		Conditions: []kubeflowv1.JobCondition{cond(kubeflowv1.JobCreated, yes, "TFJobCreated"), cond(kubeflowv1.JobRunning, yes, "TFJobRunning")},
		ReplicaStatuses: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaStatus{
			kubeflowv1.TFJobReplicaTypePS:     {Active: 1},
			kubeflowv1.TFJobReplicaTypeWorker: {Active: 1},
		},
		StartTime: &started,
	}))
	got, err := tfjob.New().Summarize(obj, "nvidia.com/gpu")
	if err != nil {
		t.Fatal(err)
	}
	want := jobmodel.Summary{
		Name: "mnist", Namespace: "team-a", APIKind: "TFJob",
		Status: jobmodel.Status{State: jobmodel.Running, Reason: "TFJobRunning", Message: "TFJobRunning message"},
		User:   "alice@corp", Experiment: "lr-sweep", ManagedBy: "easyai",
		Workers: jobmodel.ReplicaCount{Ready: 2, Total: 4},
		GPUs:    5,
		Created: t0, Started: ptr.To(started.Time),
		Labels: obj.GetLabels(), RecordedUser: "alice@corp",
	}
	if !reflect.DeepEqual(inUTC(got), want) {
		t.Errorf("Summarize() =\n%+v\nwant\n%+v", got, want)
	}

	// Finished: the completion time, else when the final condition came.
	done := tfJob(map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{kubeflowv1.TFJobReplicaTypeWorker: replicaSpec(1, 0, false)},
		kubeflowv1.JobStatus{Conditions: []kubeflowv1.JobCondition{cond(kubeflowv1.JobCreated, yes, "TFJobCreated"), cond(kubeflowv1.JobSucceeded, yes, "TFJobSucceeded")}, StartTime: &started, CompletionTime: &finished})
	s, err := tfjob.New().Summarize(toUnstructured(t, done), "nvidia.com/gpu")
	if err != nil {
		t.Fatal(err)
	}
	if s.Finished == nil || !s.Finished.Equal(finished.Time) || s.Duration(t0.Add(48*time.Hour)) != 59*time.Minute {
		t.Errorf("finished %v, duration %v; want %v, 59m", s.Finished, s.Duration(t0.Add(48*time.Hour)), finished.Time)
	}
	done.Status.CompletionTime = nil
	s, err = tfjob.New().Summarize(toUnstructured(t, done), "nvidia.com/gpu")
	if err != nil {
		t.Fatal(err)
	}
	if s.Finished == nil || !s.Finished.Equal(t0) {
		t.Errorf("finished %v without a completion time, want the condition's time %v", s.Finished, t0)
	}
}

// inUTC puts the summary's times in UTC: the converter reads them in the
// local zone.
func inUTC(s jobmodel.Summary) jobmodel.Summary {
	s.Created = s.Created.UTC()
	if s.Started != nil {
		s.Started = ptr.To(s.Started.UTC())
	}
	if s.Finished != nil {
		s.Finished = ptr.To(s.Finished.UTC())
	}
	return s
}

func TestSummarizeExternalJobAndLowercaseRoles(t *testing.T) {
	// A job written by hand: no easyai labels, roles spelt in lower case
	// (the API accepts it; the operator reports statuses as "Worker").
	obj := toUnstructured(t, &kubeflowv1.PyTorchJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubeflow.org/v1", Kind: "PyTorchJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "resnet", Namespace: "team-a", CreationTimestamp: metav1.NewTime(t0)},
		Spec: kubeflowv1.PyTorchJobSpec{PyTorchReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			"master": replicaSpec(1, 1, false),
			"worker": replicaSpec(3, 1, false),
		}},
		Status: kubeflowv1.JobStatus{
			Conditions: []kubeflowv1.JobCondition{cond(kubeflowv1.JobCreated, yes, "PyTorchJobCreated"), cond(kubeflowv1.JobRunning, yes, "PyTorchJobRunning")},
			ReplicaStatuses: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaStatus{
				kubeflowv1.PyTorchJobReplicaTypeMaster: {Active: 1},
				kubeflowv1.PyTorchJobReplicaTypeWorker: {Active: 2},
			},
		},
	})
	s, err := pytorchjob.New().Summarize(obj, "nvidia.com/gpu")
	if err != nil {
		t.Fatal(err)
	}
	if s.Workers != (jobmodel.ReplicaCount{Ready: 3, Total: 4}) || s.GPUs != 4 {
		t.Errorf("workers %+v GPUs %v, want 3/4 and 4", s.Workers, s.GPUs)
	}
	if s.ByEasyAI() || s.User != "" || s.ManagedBy != "" {
		t.Errorf("external job read as %+v", s)
	}
	if s.Started != nil || s.Finished != nil || s.Duration(t0.Add(time.Hour)) != 0 {
		t.Errorf("a job without a start time has started %v finished %v", s.Started, s.Finished)
	}
}

func pod(name, role, index string, created time.Time, phase corev1.PodPhase, mutate func(*corev1.Pod)) corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created), Labels: map[string]string{
			kubeflowv1.ReplicaTypeLabel: role, kubeflowv1.ReplicaIndexLabel: index,
		}},
		Spec:   corev1.PodSpec{NodeName: "node-1"},
		Status: corev1.PodStatus{Phase: phase},
	}
	if mutate != nil {
		mutate(&p)
	}
	return p
}

func TestReplicas(t *testing.T) {
	obj := toUnstructured(t, tfJob(map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
		kubeflowv1.TFJobReplicaTypeWorker: replicaSpec(3, 0, false),
		kubeflowv1.TFJobReplicaTypePS:     replicaSpec(1, 0, false),
	}, kubeflowv1.JobStatus{}))
	pods := []corev1.Pod{
		pod("mnist-worker-1", "worker", "1", t0, corev1.PodFailed, func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{RestartCount: 2, State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}}}
		}),
		pod("mnist-worker-0", "worker", "0", t0, corev1.PodRunning, nil),
		pod("mnist-ps-0", "ps", "0", t0, corev1.PodRunning, nil),
		// An older pod of worker 0 that is still being deleted: the newest stands for it.
		pod("mnist-worker-0-old", "worker", "0", t0.Add(-time.Hour), corev1.PodFailed, nil),
		// A teammate's pod with worker 0's labels, newer: not the replica,
		// whose name is the operator's (JOB-ROLE-INDEX).
		pod("decoy", "worker", "0", t0.Add(time.Hour), corev1.PodRunning, nil),
		pod("mnist-worker-0-decoy", "worker", "0", t0.Add(time.Hour), corev1.PodRunning, nil),
		pod("unrelated", "", "", t0, corev1.PodRunning, nil),
	}
	got, err := tfjob.New().Replicas(obj, pods)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Task, Pod, Phase, Reason string
		Restarts                 int32
		ExitCode                 int32
	}
	var rows []row
	for _, r := range got {
		code := int32(-1)
		if r.ExitCode != nil {
			code = *r.ExitCode
		}
		rows = append(rows, row{r.Task, r.Pod, r.Phase, r.Reason, r.Restarts, code})
	}
	want := []row{
		{"ps-0", "mnist-ps-0", "Running", "", 0, -1},
		{"worker-0", "mnist-worker-0", "Running", "", 0, -1},
		{"worker-1", "mnist-worker-1", "Failed", "OOMKilled", 2, 137},
		{"worker-2", "", "Pending", "NoPod", 0, -1},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("Replicas() =\n%+v\nwant\n%+v", rows, want)
	}
}

func TestReplicasOrderOfPyTorchRoles(t *testing.T) {
	obj := toUnstructured(t, &kubeflowv1.PyTorchJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubeflow.org/v1", Kind: "PyTorchJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "resnet", Namespace: "team-a"},
		Spec: kubeflowv1.PyTorchJobSpec{PyTorchReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.PyTorchJobReplicaTypeWorker: replicaSpec(2, 0, false),
			kubeflowv1.PyTorchJobReplicaTypeMaster: replicaSpec(1, 0, false),
		}},
	})
	got, err := pytorchjob.New().Replicas(obj, nil)
	if err != nil {
		t.Fatal(err)
	}
	tasks := kindstest.Tasks(got)
	if want := []string{"master-0", "worker-0", "worker-1"}; !reflect.DeepEqual(tasks, want) {
		t.Errorf("tasks %v, want %v", tasks, want)
	}
}

func TestPodSelector(t *testing.T) {
	if got := (kubeflow.Base{}).PodSelector("mnist"); got != "training.kubeflow.org/job-name=mnist" {
		t.Errorf("PodSelector = %q", got)
	}
}

// TestListReadsAnyKindsReplicaMap: list reads a kind's replica map under
// the field its Shape names, whatever it is, in either decoder, and nothing
// under another kind's field; a new kind needs nothing in this package.
func TestListReadsAnyKindsReplicaMap(t *testing.T) {
	b := kubeflow.Base{Shape: kubeflow.Shape{Name: "foo", APIKind: "FooJob", ReplicaSpecsField: "fooReplicaSpecs", Roles: []string{"Worker"}}}
	data := []byte(`{"kind":"FooJob","metadata":{"name":"f","namespace":"team-a"},"spec":{"runPolicy":{"suspend":true},` +
		`"fooReplicaSpecs":{"Worker":{"replicas":3,"template":{"spec":{"containers":[{"resources":{"limits":{"nvidia.com/gpu":"2"}}}]}}}},` +
		`"tfReplicaSpecs":{"Worker":{"replicas":5}}}}`)
	want := jobmodel.ReplicaCount{Total: 3}
	s, err := b.SummarizeJSON(data, "nvidia.com/gpu")
	if err != nil || s.Workers != want || s.GPUs != 6 || s.Status.State != jobmodel.Suspended {
		t.Errorf("SummarizeJSON: workers %+v, GPUs %v, state %s, %v; want %+v, 6, Suspended", s.Workers, s.GPUs, s.Status.State, err, want)
	}
	s, err = b.SummarizeNext(jsontext.NewDecoder(bytes.NewReader(data)), "nvidia.com/gpu")
	if err != nil || s.Workers != want || s.GPUs != 6 || s.Status.State != jobmodel.Suspended {
		t.Errorf("SummarizeNext: workers %+v, GPUs %v, state %s, %v; want %+v, 6, Suspended", s.Workers, s.GPUs, s.Status.State, err, want)
	}
	// The same field read for two kinds, and a second read, find the same type.
	other := kubeflow.Base{Shape: kubeflow.Shape{Name: "bar", APIKind: "BarJob", ReplicaSpecsField: "fooReplicaSpecs"}}
	if s, err := other.SummarizeJSON(data, "nvidia.com/gpu"); err != nil || s.Workers != want {
		t.Errorf("another kind with the same field: workers %+v, %v", s.Workers, err)
	}
	// A replica count of the wrong type is an error naming the job.
	bad := bytes.Replace(data, []byte(`"replicas":3`), []byte(`"replicas":"three"`), 1)
	if _, err := b.SummarizeJSON(bad, "nvidia.com/gpu"); err == nil || !strings.Contains(err.Error(), "FooJob team-a/f") {
		t.Errorf("a bad replica count: %v", err)
	}
}
