package trainjob

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// running is a TrainJob as the trainer reports it while its 3 nodes run
// (measured on the local cluster: jobsStatus counts Jobs, not pods).
const running = `
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: tj, namespace: team-a}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNodes: 3, image: example.com/train:1, command: [torchrun, train.py]}
status:
  jobsStatus:
  - {name: node, active: 1, ready: 1, failed: 0, succeeded: 0, suspended: 0}
`

func decode(t *testing.T, doc string) *TrainJob {
	t.Helper()
	j := &TrainJob{}
	if err := yaml.UnmarshalStrict([]byte(doc), j); err != nil {
		t.Fatal(err)
	}
	return j
}

func TestState(t *testing.T) {
	cond := func(typ, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: reason, Message: typ + " " + reason}
	}
	for _, c := range []struct {
		name   string
		change func(*TrainJob)
		want   jobmodel.State
		reason string
	}{
		{"running", func(*TrainJob) {}, jobmodel.Running, "Running"},
		{"no ready job yet", func(j *TrainJob) { j.Status.JobsStatus = nil }, jobmodel.Pending, "Pending"},
		{"only an initializer ready", func(j *TrainJob) {
			j.Status.JobsStatus = []JobStatus{{Name: "dataset-initializer", Ready: ptr.To[int32](1)}}
		}, jobmodel.Pending, "Pending"},
		{"complete", func(j *TrainJob) { j.Status.Conditions = []metav1.Condition{cond(ConditionComplete, "JobsCompleted")} }, jobmodel.Succeeded, "JobsCompleted"},
		{"failed over complete", func(j *TrainJob) {
			j.Status.Conditions = []metav1.Condition{cond(ConditionComplete, "JobsCompleted"), cond(ConditionFailed, "DeadlineExceeded")}
		}, jobmodel.Failed, "DeadlineExceeded"},
		{"a condition set false counts for nothing", func(j *TrainJob) {
			c := cond(ConditionFailed, "X")
			c.Status = metav1.ConditionFalse
			j.Status.Conditions = []metav1.Condition{c}
		}, jobmodel.Running, "Running"},
		{"suspended condition", func(j *TrainJob) { j.Status.Conditions = []metav1.Condition{cond(ConditionSuspended, "Suspended")} }, jobmodel.Suspended, "Suspended"},
		{"spec.suspend before the trainer says so", func(j *TrainJob) { j.Spec.Suspend = ptr.To(true) }, jobmodel.Suspended, "Suspended"},
		{"runtime not supported", func(j *TrainJob) {
			j.Status.Conditions = []metav1.Condition{cond(ConditionFailed, "TrainingRuntimeNotSupported")}
		}, jobmodel.Failed, "TrainingRuntimeNotSupported"},
	} {
		t.Run(c.name, func(t *testing.T) {
			j := decode(t, running)
			c.change(j)
			got := State(j)
			if got.State != c.want || got.Reason != c.reason {
				t.Errorf("State = %+v, want %s (%s)", got, c.want, c.reason)
			}
		})
	}
}

func TestNodesAndDecode(t *testing.T) {
	j := decode(t, running)
	if Nodes(j) != 3 || *j.Spec.Trainer.Image != "example.com/train:1" || j.Spec.RuntimeRef.Name != "torch-distributed" {
		t.Errorf("decoded %+v", j.Spec)
	}
	if Nodes(&TrainJob{}) != 0 {
		t.Error("a job without trainer.numNodes has nodes")
	}
	// A misspelt field is an error, not silently dropped.
	if err := yaml.UnmarshalStrict([]byte("spec: {trainer: {numNode: 3}}"), &TrainJob{}); err == nil {
		t.Error("trainer.numNode decoded without an error")
	}
	copied := j.DeepCopyObject().(*TrainJob)
	*copied.Spec.Trainer.NumNodes = 9
	if Nodes(j) != 3 {
		t.Error("DeepCopyObject shares the spec")
	}
}
