package colossalai

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// The replica types of a ColossalAIJob, as status.tasks names them.
const (
	RoleLauncher = "launcher"
	RoleWorker   = "worker"
)

// listed is what list reads of a ColossalAIJob, decoded straight from JSON.
type listed struct {
	Kind     string              `json:"kind"`
	Metadata jobmodel.ObjectMeta `json:"metadata"`
	Spec     struct {
		Launcher struct {
			Resources corev1.ResourceRequirements `json:"resources"`
		} `json:"launcher"`
		Worker struct {
			Replicas int32                `json:"replicas"`
			Template kinds.ListedTemplate `json:"template"`
		} `json:"worker"`
		RunMode *RunMode `json:"runMode"`
	} `json:"spec"`
	Status Status `json:"status"`
}

// Summarize reads list's view of a ColossalAIJob.
func (k Kind) Summarize(obj *unstructured.Unstructured, gpu corev1.ResourceName) (jobmodel.Summary, error) {
	return kinds.SummarizeObject(k, obj, gpu)
}

// SummarizeJSON is Summarize of a job as the API server sent it. Its
// replicas are the launcher and the workers; ready are those the
// aggregate counts as running.
func (k Kind) SummarizeJSON(data []byte, gpu corev1.ResourceName) (jobmodel.Summary, error) {
	var j listed
	if err := json.Unmarshal(data, &j); err != nil {
		return jobmodel.Summary{}, fmt.Errorf("ColossalAIJob: %w", err)
	}
	s := jobmodel.NewSummary(j.Kind, j.Metadata)
	s.Status = StatusOf(j.Status, j.Metadata.Name)
	s.Workers.Total = 1 + j.Spec.Worker.Replicas
	if a := j.Status.Aggregate; a != nil {
		s.Workers.Ready = a.Running
	}
	s.GPUs = float64(jobmodel.GPUs(j.Spec.Launcher.Resources, gpu))
	kinds.AddGPUs(&s, j.Spec.Worker.Replicas, j.Spec.Worker.Template, gpu)
	for _, c := range j.Status.Conditions {
		if c.Type == "Running" && c.Status == string(corev1.ConditionTrue) && c.LastTransitionTime != nil {
			t := c.LastTransitionTime.Time
			s.Started = &t
		}
	}
	if s.Status.State.Final() {
		var last time.Time
		for _, c := range j.Status.Conditions {
			if (c.Type == "Completed" || c.Type == "Failed") && c.Status == string(corev1.ConditionTrue) && c.LastTransitionTime != nil && c.LastTransitionTime.After(last) {
				last = c.LastTransitionTime.Time
			}
		}
		if !last.IsZero() {
			s.Finished = &last
		}
	}
	return s, nil
}

// LauncherWarning is the message of a Succeeded ColossalAIJob of jobName:
// T9k's launcher exits 0 even when the training failed.
func LauncherWarning(jobName string) string {
	return fmt.Sprintf("the launcher exited 0, which it also does when the training failed: see its log (easyai logs colossalai/%s --task launcher-0)", jobName)
}

// StatusOf maps a ColossalAIJob's phase to easyai's state:
//
//	""        Pending  (T9k's controller has not handled the job yet)
//	Pending   Pending
//	Running   Running
//	Resuming  Running  (leaving pause mode)
//	Paused    Suspended
//	Succeeded Succeeded, with LauncherWarning
//	Failed    Failed
//	Unknown   Unknown (and any phase T9k may add)
//
// The reason and message are those of the condition that says most about
// the phase (Failed, ReplicaFailure, Completed, Paused, Running).
func StatusOf(st Status, jobName string) jobmodel.Status {
	s := jobmodel.Status{Reason: string(st.Phase)}
	cond := func(types ...string) {
		for _, t := range types {
			for _, c := range st.Conditions {
				if c.Type == t && c.Status == string(corev1.ConditionTrue) && (c.Reason != "" || c.Message != "") {
					if c.Reason != "" && c.Reason != "-" {
						s.Reason = c.Reason
					}
					s.Message = c.Message
					return
				}
			}
		}
	}
	switch st.Phase {
	case "":
		return jobmodel.Status{State: jobmodel.Pending, Reason: "NotReconciled", Message: "T9k's ColossalAIJob controller has not handled the job yet"}
	case PhasePending:
		s.State = jobmodel.Pending
		cond("ReplicaFailure", "Initialized")
	case PhaseRunning:
		s.State = jobmodel.Running
		cond("ReplicaFailure", "Running")
	case PhaseResuming:
		s.State = jobmodel.Running
		s.Message = "resuming from pause mode"
	case PhasePaused:
		s.State = jobmodel.Suspended
		cond("Paused")
	case PhaseSucceeded:
		s.State = jobmodel.Succeeded
		s.Message = LauncherWarning(jobName)
	case PhaseFailed:
		s.State = jobmodel.Failed
		cond("Failed", "ReplicaFailure")
	default:
		s.State = jobmodel.Unknown
	}
	return s
}

// Replicas lists the job's replicas from its pods: JOB-launcher is
// launcher-0, JOB-worker-N is worker-N (T9k's names, as its status.tasks
// shows them). Replicas the spec asks for without a pod are Pending.
func (Kind) Replicas(obj *unstructured.Unstructured, pods []corev1.Pod) ([]jobmodel.Replica, error) {
	workers, _, err := unstructured.NestedInt64(obj.Object, "spec", "worker", "replicas")
	if err != nil {
		return nil, err
	}
	set := jobmodel.NewReplicaSet()
	name := obj.GetName()
	for i := range pods {
		p := &pods[i]
		role, index, ok := replicaOf(name, p.Name)
		if !ok {
			continue
		}
		set.Observe(jobmodel.ReplicaFromPod(role, index, p))
	}
	set.Expect(RoleLauncher, 0)
	for i := 0; i < int(workers); i++ {
		set.Expect(RoleWorker, i)
	}
	return set.Sorted([]string{RoleLauncher, RoleWorker}), nil
}

// replicaOf reads the role and index of a pod from its name.
func replicaOf(jobName, pod string) (string, int, bool) {
	if pod == jobName+"-"+RoleLauncher {
		return RoleLauncher, 0, true
	}
	rest, ok := strings.CutPrefix(pod, jobName+"-"+RoleWorker+"-")
	if !ok {
		return "", 0, false
	}
	n, err := strconv.Atoi(rest)
	return RoleWorker, n, err == nil && n >= 0
}

// Suspend turns on T9k's pause mode (spec.runMode.pause.enabled): its
// controller deletes the replicas and keeps the job, Paused.
func (k Kind) Suspend(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error {
	switch p, _, _ := unstructured.NestedString(obj.Object, "status", "phase"); Phase(p) {
	case PhaseSucceeded, PhaseFailed:
		return fmt.Errorf("%s/%s is %s: only a job that has not ended can be paused", k.Name(), obj.GetName(), p)
	}
	return k.setPause(ctx, dyn, obj, true)
}

// ResumeWarning: resuming a paused ColossalAIJob starts its replicas anew
// (T9k's resumeSpecs are fixed at submit), the training from its start.
func (Kind) ResumeWarning(*unstructured.Unstructured) string {
	return "T9k starts the launcher and the workers anew: the training starts again from its beginning (or from the checkpoint your script loads)"
}

// Resume turns T9k's pause mode off.
func (k Kind) Resume(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error {
	return k.setPause(ctx, dyn, obj, false)
}

func (k Kind) setPause(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured, enabled bool) error {
	return kinds.SetField(ctx, dyn, k, obj, enabled, "spec", "runMode", "pause", "enabled")
}
