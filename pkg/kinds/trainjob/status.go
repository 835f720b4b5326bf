package trainjob

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// The condition types of a TrainJob.
const (
	ConditionComplete  = "Complete"
	ConditionFailed    = "Failed"
	ConditionSuspended = "Suspended"
)

// State maps a TrainJob's conditions and jobs onto easyai's states: a final
// condition first (Failed over Complete), then Suspended (the condition, or
// spec.suspend before the trainer has said so), then Running once a Job of
// the trainer's nodes is ready, else Pending. The reason and message are the
// deciding condition's (Failed: DeadlineExceeded, TrainingRuntimeNotSupported,
// ...).
func State(j *TrainJob) jobmodel.Status {
	find := func(typ string) *metav1.Condition {
		for i := range j.Status.Conditions {
			c := &j.Status.Conditions[i]
			if c.Type == typ && c.Status == metav1.ConditionTrue {
				return c
			}
		}
		return nil
	}
	from := func(state jobmodel.State, c *metav1.Condition) jobmodel.Status {
		return jobmodel.Status{State: state, Reason: c.Reason, Message: c.Message}
	}
	switch {
	case find(ConditionFailed) != nil:
		return from(jobmodel.Failed, find(ConditionFailed))
	case find(ConditionComplete) != nil:
		return from(jobmodel.Succeeded, find(ConditionComplete))
	case find(ConditionSuspended) != nil:
		return from(jobmodel.Suspended, find(ConditionSuspended))
	case j.Spec.Suspend != nil && *j.Spec.Suspend:
		return jobmodel.Status{State: jobmodel.Suspended, Reason: "Suspended", Message: "spec.suspend is set"}
	}
	for _, js := range j.Status.JobsStatus {
		if js.Name == TrainerJob && count(js.Ready) > 0 {
			return jobmodel.Status{State: jobmodel.Running, Reason: "Running", Message: "the trainer's nodes are ready"}
		}
	}
	return jobmodel.Status{State: jobmodel.Pending, Reason: "Pending", Message: "waiting for the trainer's nodes to start"}
}

// Nodes is how many nodes the job asks for: spec.trainer.numNodes, else
// 0 (the runtime's default, which the job object does not hold).
func Nodes(j *TrainJob) int32 {
	if j.Spec.Trainer == nil || j.Spec.Trainer.NumNodes == nil {
		return 0
	}
	return *j.Spec.Trainer.NumNodes
}

func count(n *int32) int32 {
	if n == nil {
		return 0
	}
	return *n
}
