package volcano_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	vcbatch "volcano.sh/apis/pkg/apis/batch/v1alpha1"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
	"github.com/easyai-dev/easyai/pkg/kinds/volcano"
)

// values parses args as submit would and returns the kind's values.
func values(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	v, _, err := kindstest.SubmitValues(t, volcano.New(), args...)
	return v, err
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFlagsBecomeValues(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, `{}`},
		{[]string{"--workers", "4"}, `{"tasks":{"worker":{"replicas":4}}}`},
		{[]string{"--task", "master=1", "--task", "worker=3", "--framework", "pytorch", "--min-available", "2", "--max-retry", "5"},
			`{"framework":"pytorch","runPolicy":{"backoffLimit":5,"minAvailable":2},"tasks":{"master":{"replicas":1},"worker":{"replicas":3}}}`},
		{[]string{"--policy", "podfailed=restartjob", "--policy", "TaskCompleted=CompleteJob"},
			`{"policies":[{"action":"RestartJob","event":"PodFailed"},{"action":"CompleteJob","event":"TaskCompleted"}]}`},
		{[]string{"--task", "master=1", "--task", "worker=2", "--task-policy", "master:TaskCompleted=CompleteJob", "--task-policy", "worker:PodFailed=RestartTask"},
			`{"tasks":{"master":{"policies":[{"action":"CompleteJob","event":"TaskCompleted"}],"replicas":1},"worker":{"policies":[{"action":"RestartTask","event":"PodFailed"}],"replicas":2}}}`},
		{[]string{"--task-policy", "worker:PodEvicted=RestartTask"}, `{"tasks":{"worker":{"policies":[{"action":"RestartTask","event":"PodEvicted"}]}}}`},
	}
	for _, tt := range tests {
		got, err := values(t, tt.args...)
		if err != nil {
			t.Errorf("%v: %v", tt.args, err)
			continue
		}
		if s := asJSON(t, got); s != tt.want {
			t.Errorf("%v:\n got %s\nwant %s", tt.args, s, tt.want)
		}
	}
}

func TestBadFlagsAreUsageErrorsNamingTheValue(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--task", "worker"}, `--task "worker": want NAME=REPLICAS`},
		{[]string{"--task", "Worker=2"}, `DNS label`},
		{[]string{"--task", "worker=-1"}, `REPLICAS must be`},
		{[]string{"--task", "worker=1", "--task", "worker=2"}, `task worker is given twice`},
		{[]string{"--task", "worker=1", "--workers", "3"}, `--task worker=3`},
		{[]string{"--policy", "PodFailed"}, `--policy "PodFailed": want EVENT=ACTION`},
		{[]string{"--policy", "PodCrashed=RestartJob"}, `unknown event "PodCrashed"`},
		{[]string{"--policy", "PodFailed=Reboot"}, `unknown action "Reboot"`},
		{[]string{"--policy", "PodFailed=RestartTask"}, `--task-policy TASK:PodFailed=RestartTask`},
		{[]string{"--policy", "PodFailed=RestartJob", "--policy", "PodFailed=AbortJob"}, `PodFailed already has a policy`},
		{[]string{"--policy", "*=AbortJob", "--policy", "PodFailed=RestartJob"}, `"*" stands for every event`},
		{[]string{"--task", "worker=2", "--task-policy", "master:PodFailed=RestartTask"}, `no task master (tasks: worker)`},
		{[]string{"--task-policy", "PodFailed=RestartTask"}, `want TASK:EVENT=ACTION`},
		{[]string{"--framework", "jax"}, `--framework "jax"`},
		{[]string{"--min-available", "0"}, `--min-available 0`},
		{[]string{"--max-retry", "2", "--retry", "2"}, `give one`},
	}
	for _, tt := range tests {
		_, err := values(t, tt.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v (exit %d), want a usage error with %q", tt.args, err, exit.Code(err), tt.want)
		}
	}
}

func TestStatus(t *testing.T) {
	tests := []struct {
		status vcbatch.JobStatus
		want   jobmodel.Status
	}{
		{vcbatch.JobStatus{}, jobmodel.Status{State: jobmodel.Pending, Reason: "NotReconciled", Message: "Volcano's controller has not handled the job yet"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Pending}, MinAvailable: 5}, jobmodel.Status{State: jobmodel.Pending, Reason: "Pending", Message: "waiting for 5 pods to be scheduled together"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Running}}, jobmodel.Status{State: jobmodel.Running, Reason: "Running"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Restarting, Reason: "PodFailed"}, RetryCount: 1}, jobmodel.Status{State: jobmodel.Running, Reason: "PodFailed", Message: "retry 1/3: Volcano fails the job at retry 3"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Completing}}, jobmodel.Status{State: jobmodel.Running, Reason: "Completing"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Completed}}, jobmodel.Status{State: jobmodel.Succeeded, Reason: "Completed"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Failed, Message: "max retry reached"}, RetryCount: 3}, jobmodel.Status{State: jobmodel.Failed, Reason: "Failed", Message: "max retry reached (retry 3/3: Volcano fails the job at retry 3)"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Terminated}}, jobmodel.Status{State: jobmodel.Failed, Reason: "Terminated"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Aborted}}, jobmodel.Status{State: jobmodel.Suspended, Reason: "Aborted"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: "Dancing"}}, jobmodel.Status{State: jobmodel.Unknown, Reason: "Dancing"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Aborted}, RetryCount: 1}, jobmodel.Status{State: jobmodel.Suspended, Reason: "Aborted", Message: "resuming uses retry 2 of 3"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Aborting, Message: "aborting"}, RetryCount: 1}, jobmodel.Status{State: jobmodel.Suspended, Reason: "Aborting", Message: "aborting (resuming uses retry 2 of 3)"}},
		{vcbatch.JobStatus{State: vcbatch.JobState{Phase: vcbatch.Aborted}, RetryCount: 2}, jobmodel.Status{State: jobmodel.Suspended, Reason: "Aborted", Message: "resuming uses retry 3 of 3, at which Volcano fails the job"}},
	}
	for _, tt := range tests {
		if got := volcano.Status(tt.status, 3); got != tt.want {
			t.Errorf("%+v:\n got %+v\nwant %+v", tt.status.State, got, tt.want)
		}
	}
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func vcjob(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	gpus := corev1.ResourceList{"nvidia.com/gpu": *resourceOne()}
	j := &vcbatch.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: "vj", Namespace: "team-a", CreationTimestamp: metav1.NewTime(t0), Labels: map[string]string{jobmodel.ManagedByLabel: jobmodel.ManagedByValue}},
		Spec: vcbatch.JobSpec{Tasks: []vcbatch.TaskSpec{
			{Name: "master", Replicas: 1, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "master"}}}}},
			{Name: "worker", Replicas: 2, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "worker", Resources: corev1.ResourceRequirements{Limits: gpus}}}}}},
		}},
		Status: vcbatch.JobStatus{
			State:      vcbatch.JobState{Phase: vcbatch.Completed, LastTransitionTime: metav1.NewTime(t0.Add(time.Hour))},
			Running:    0,
			Conditions: []vcbatch.JobCondition{{Status: vcbatch.Pending, LastTransitionTime: ptrTime(t0)}, {Status: vcbatch.Running, LastTransitionTime: ptrTime(t0.Add(time.Minute))}},
		},
	}
	m, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(m); err != nil {
		t.Fatal(err)
	}
	return obj
}

func ptrTime(t time.Time) *metav1.Time { m := metav1.NewTime(t); return &m }

func TestSummarize(t *testing.T) {
	s, err := volcano.New().Summarize(vcjob(t), "nvidia.com/gpu")
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "vj" || s.APIKind != "Job" || s.Status.State != jobmodel.Succeeded || s.Workers != (jobmodel.ReplicaCount{Ready: 0, Total: 3}) || s.GPUs != 2 || !s.ByEasyAI() {
		t.Errorf("summary %+v", s)
	}
	if s.Started == nil || !s.Started.Equal(t0.Add(time.Minute)) || s.Finished == nil || !s.Finished.Equal(t0.Add(time.Hour)) {
		t.Errorf("started %v finished %v", s.Started, s.Finished)
	}
}

func pod(name, task, index string, phase corev1.PodPhase, labelled bool) corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0),
			Annotations: map[string]string{vcbatch.TaskSpecKey: task}},
		Status: corev1.PodStatus{Phase: phase},
	}
	if labelled {
		p.Labels = map[string]string{vcbatch.TaskIndex: index}
	}
	return p
}

func TestReplicas(t *testing.T) {
	pods := []corev1.Pod{
		pod("vj-worker-1", "worker", "1", corev1.PodRunning, true),
		pod("vj-master-0", "master", "", corev1.PodSucceeded, false), // index from the name
		pod("stray", "", "", corev1.PodRunning, false),
		// A teammate's pods with worker 0's labels: not the replica, whose
		// name is Volcano's (JOB-TASK-INDEX).
		pod("decoy", "worker", "0", corev1.PodRunning, true),
		pod("vj-worker-0-x", "worker", "0", corev1.PodRunning, true),
	}
	got, err := volcano.New().Replicas(vcjob(t), pods)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []string
	for _, r := range got {
		tasks = append(tasks, r.Task+"/"+r.Phase+"/"+r.Pod)
	}
	want := []string{"master-0/Succeeded/vj-master-0", "worker-0/Pending/", "worker-1/Running/vj-worker-1"}
	if !reflect.DeepEqual(tasks, want) {
		t.Errorf("replicas %v, want %v", tasks, want)
	}
	if got[1].Reason != "NoPod" {
		t.Errorf("worker-0 without a pod: %+v", got[1])
	}
	if sel := volcano.New().PodSelector("vj"); sel != "volcano.sh/job-name=vj" {
		t.Errorf("selector %q", sel)
	}
}

func resourceOne() *resource.Quantity { q := resource.MustParse("1"); return &q }
