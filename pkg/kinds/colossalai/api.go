package colossalai

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/kinds"
)

// T9k publishes no Go types for ColossalAIJob: these are the fields of its
// API reference (T9k's ColossalAIJob documentation), no more, so that Decode
// rejects any other field.

// GroupVersion of T9k's batch jobs.
var GroupVersion = schema.GroupVersion{Group: "batch.tensorstack.dev", Version: "v1beta1"}

const (
	// KindName is the API kind.
	KindName = "ColossalAIJob"
	// Plural is its resource.
	Plural = "colossalaijobs"
)

// Job is a ColossalAIJob.
type Job struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec   `json:"spec"`
	Status            Status `json:"status,omitempty"`
}

// Spec is spec of a ColossalAIJob.
type Spec struct {
	SSH       SSH        `json:"ssh,omitempty"`
	Launcher  Launcher   `json:"launcher"`
	Worker    Worker     `json:"worker"`
	RunMode   *RunMode   `json:"runMode,omitempty"`
	RunPolicy *RunPolicy `json:"runPolicy,omitempty"`
	Scheduler *Scheduler `json:"scheduler,omitempty"`
}

// SSH is how the workers serve ssh: where the keys are mounted and the
// absolute path of sshd in the worker image.
type SSH struct {
	AuthMountPath string `json:"authMountPath,omitempty"`
	SSHDPath      string `json:"sshdPath,omitempty"`
}

// Launcher is the one pod that runs "colossalai run".
type Launcher struct {
	Image      string                      `json:"image"`
	WorkingDir string                      `json:"workingDir,omitempty"`
	Env        []corev1.EnvVar             `json:"env,omitempty"`
	Resources  corev1.ResourceRequirements `json:"resources,omitempty"`
}

// Worker is the pods running sshd that the launcher starts the training on.
// Its template must have a container named "worker".
type Worker struct {
	Replicas      int32                  `json:"replicas"`
	ProcPerWorker int32                  `json:"procPerWorker,omitempty"`
	Command       []string               `json:"command"`
	TorchArgs     []string               `json:"torchArgs,omitempty"`
	Template      corev1.PodTemplateSpec `json:"template"`
}

// RunMode is the debug and pause modes.
type RunMode struct {
	Debug *DebugMode `json:"debug,omitempty"`
	Pause *PauseMode `json:"pause,omitempty"`
}

// DebugMode deploys the replicas without starting the training.
type DebugMode struct {
	Enabled      bool          `json:"enabled"`
	ReplicaSpecs []ReplicaMode `json:"replicaSpecs,omitempty"`
}

// PauseMode deletes (or does not create) the replicas; ResumeSpecs say how
// they start again.
type PauseMode struct {
	Enabled     bool          `json:"enabled"`
	ResumeSpecs []ReplicaMode `json:"resumeSpecs,omitempty"`
}

// ReplicaMode is how one replica type runs in debug mode or on resume.
type ReplicaMode struct {
	Type              string   `json:"type"`
	SkipInitContainer bool     `json:"skipInitContainer,omitempty"`
	Command           []string `json:"command,omitempty"`
	Args              []string `json:"args,omitempty"`
}

// RunPolicy of a ColossalAIJob.
type RunPolicy struct {
	CleanUpWorkers bool `json:"cleanUpWorkers,omitempty"`
}

// Scheduler is the T9k Scheduler; unset: Kubernetes' default scheduler.
type Scheduler struct {
	T9kScheduler *T9kScheduler `json:"t9kScheduler,omitempty"`
}

// T9kScheduler is the queue the job waits in, and its priority there.
type T9kScheduler struct {
	Queue    string `json:"queue"`
	Priority *int32 `json:"priority,omitempty"`
}

// Phase of a ColossalAIJob.
type Phase string

// The phases of T9k's API reference.
const (
	PhasePending   Phase = "Pending"
	PhaseRunning   Phase = "Running"
	PhasePaused    Phase = "Paused"
	PhaseResuming  Phase = "Resuming"
	PhaseSucceeded Phase = "Succeeded"
	PhaseFailed    Phase = "Failed"
	PhaseUnknown   Phase = "Unknown"
)

// Status is what T9k's controller reports.
type Status struct {
	Phase      Phase       `json:"phase,omitempty"`
	Conditions []Condition `json:"conditions,omitempty"`
	Tasks      []Task      `json:"tasks,omitempty"`
	Aggregate  *Aggregate  `json:"aggregate,omitempty"`
}

// Condition types: Initialized, Running, ReplicaFailure, Completed, Failed,
// Paused.
type Condition struct {
	Type               string       `json:"type"`
	Status             string       `json:"status"`
	Reason             string       `json:"reason,omitempty"`
	Message            string       `json:"message,omitempty"`
	LastTransitionTime *metav1.Time `json:"lastTransitionTime,omitempty"`
}

// Task is the replicas of one type (launcher, worker) and their pods.
type Task struct {
	Type         string        `json:"type"`
	RestartCount int32         `json:"restartCount,omitempty"`
	Status       []ReplicaStat `json:"status,omitempty"`
}

// ReplicaStat is one replica's pod.
type ReplicaStat struct {
	Phase      string           `json:"phase,omitempty"`
	Name       string           `json:"name,omitempty"`
	UID        string           `json:"uid,omitempty"`
	Containers []map[string]any `json:"containers,omitempty"`
}

// Aggregate counts the replicas in each phase.
type Aggregate struct {
	Creating  int32 `json:"creating"`
	Deleted   int32 `json:"deleted"`
	Failed    int32 `json:"failed"`
	Pending   int32 `json:"pending"`
	Running   int32 `json:"running"`
	Succeeded int32 `json:"succeeded"`
	Unknown   int32 `json:"unknown"`
}

// DeepCopyObject implements runtime.Object.
func (j *Job) DeepCopyObject() runtime.Object {
	return kinds.DeepCopyJSON(j)
}
