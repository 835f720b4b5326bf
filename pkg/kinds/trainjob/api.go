// Package trainjob is Kubeflow Trainer v2's TrainJob
// (trainer.kubeflow.org/v1alpha1): the trainjob kind, the kinds that are
// TrainJobs on one runtime (deepspeed, mlx), and the training-operator kinds
// rendered as TrainJobs (OnTrainer, chosen by ChooseBackend). Its API is a
// typed subset written from the trainer's v2.3.0 Go types (the module
// itself needs a newer k8s.io than easyai's).
//
// The trainer turns a TrainJob into a JobSet of the same name, whose
// replicated jobs (node, launcher, dataset-initializer, ...) are Jobs whose
// pods carry the JobSet's labels: easyai finds them by those.
package trainjob

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/kinds"
)

// GroupVersion of Kubeflow Trainer v2's API.
var GroupVersion = schema.GroupVersion{Group: "trainer.kubeflow.org", Version: "v1alpha1"}

const (
	// KindName is the API kind.
	KindName = "TrainJob"
	// Plural is its resource.
	Plural = "trainjobs"
	// ClusterRuntimeKind and RuntimeKind are what a runtimeRef names: a
	// runtime of the cluster (the default) or of the TrainJob's namespace.
	ClusterRuntimeKind = "ClusterTrainingRuntime"
	RuntimeKind        = "TrainingRuntime"
	// TrainerJob is the replicated job of the trainer's nodes in the
	// default runtimes ("node"); initializers run as others
	// ("dataset-initializer", "model-initializer").
	TrainerJob = "node"
)

// TrainJob is one training job on a runtime.
type TrainJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec   `json:"spec,omitempty"`
	Status            Status `json:"status,omitempty"`
}

// Spec is what the job asks for.
type Spec struct {
	RuntimeRef     RuntimeRef     `json:"runtimeRef,omitempty"`
	Initializer    *Initializer   `json:"initializer,omitempty"`
	Trainer        *Trainer       `json:"trainer,omitempty"`
	RuntimePatches []RuntimePatch `json:"runtimePatches,omitempty"`
	Suspend        *bool          `json:"suspend,omitempty"`
	// ActiveDeadlineSeconds bounds the job's run (0: none).
	ActiveDeadlineSeconds int64   `json:"activeDeadlineSeconds,omitempty"`
	ManagedBy             *string `json:"managedBy,omitempty"`
}

// RuntimeRef names the runtime: by default a ClusterTrainingRuntime.
type RuntimeRef struct {
	Name     string  `json:"name,omitempty"`
	APIGroup *string `json:"apiGroup,omitempty"`
	Kind     *string `json:"kind,omitempty"`
}

// Initializer fetches a dataset and a model before the trainer starts.
type Initializer struct {
	Dataset *Source `json:"dataset,omitempty"`
	Model   *Source `json:"model,omitempty"`
}

// Source is where an initializer reads from (hf://..., s3://...), with the
// Secret of its credentials named, never inlined.
type Source struct {
	StorageURI *string                      `json:"storageUri,omitempty"`
	Env        []corev1.EnvVar              `json:"env,omitempty"`
	SecretRef  *corev1.LocalObjectReference `json:"secretRef,omitempty"`
}

// Trainer is what every node of the trainer runs, overriding the runtime.
type Trainer struct {
	Image            *string                      `json:"image,omitempty"`
	Command          []string                     `json:"command,omitempty"`
	Args             []string                     `json:"args,omitempty"`
	Env              []corev1.EnvVar              `json:"env,omitempty"`
	NumNodes         *int32                       `json:"numNodes,omitempty"`
	ResourcesPerNode *corev1.ResourceRequirements `json:"resourcesPerNode,omitempty"`
	NumProcPerNode   *int32                       `json:"numProcPerNode,omitempty"`
}

// RuntimePatch is one manager's patch of the runtime's JobSet template.
type RuntimePatch struct {
	Manager             string                    `json:"manager,omitempty"`
	Time                *metav1.Time              `json:"time,omitempty"`
	TrainingRuntimeSpec *TrainingRuntimeSpecPatch `json:"trainingRuntimeSpec,omitempty"`
}

// TrainingRuntimeSpecPatch patches the runtime's template.
type TrainingRuntimeSpecPatch struct {
	Template *JobSetTemplatePatch `json:"template,omitempty"`
}

// JobSetTemplatePatch patches the JobSet.
type JobSetTemplatePatch struct {
	Metadata *metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec     *JobSetSpecPatch   `json:"spec,omitempty"`
}

// JobSetSpecPatch patches the JobSet's replicated jobs, by name.
type JobSetSpecPatch struct {
	ReplicatedJobs []ReplicatedJobPatch `json:"replicatedJobs,omitempty"`
}

// ReplicatedJobPatch patches one replicated job.
type ReplicatedJobPatch struct {
	Name     string            `json:"name,omitempty"`
	Template *JobTemplatePatch `json:"template,omitempty"`
}

// JobTemplatePatch patches a Job.
type JobTemplatePatch struct {
	Metadata *metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec     *JobSpecPatch      `json:"spec,omitempty"`
}

// JobSpecPatch patches a Job's pod template.
type JobSpecPatch struct {
	Template *PodTemplatePatch `json:"template,omitempty"`
}

// PodTemplatePatch patches the pods.
type PodTemplatePatch struct {
	Metadata *metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec     *PodSpecPatch      `json:"spec,omitempty"`
}

// PodSpecPatch is what a patch may change of the pods.
type PodSpecPatch struct {
	ServiceAccountName            *string                       `json:"serviceAccountName,omitempty"`
	Volumes                       []corev1.Volume               `json:"volumes,omitempty"`
	InitContainers                []ContainerPatch              `json:"initContainers,omitempty"`
	Containers                    []ContainerPatch              `json:"containers,omitempty"`
	ImagePullSecrets              []corev1.LocalObjectReference `json:"imagePullSecrets,omitempty"`
	SecurityContext               *corev1.PodSecurityContext    `json:"securityContext,omitempty"`
	NodeSelector                  map[string]string             `json:"nodeSelector,omitempty"`
	Affinity                      *corev1.Affinity              `json:"affinity,omitempty"`
	Tolerations                   []corev1.Toleration           `json:"tolerations,omitempty"`
	SchedulingGates               []corev1.PodSchedulingGate    `json:"schedulingGates,omitempty"`
	TerminationGracePeriodSeconds *int64                        `json:"terminationGracePeriodSeconds,omitempty"`
}

// ContainerPatch is what a patch may change of a container, by name.
type ContainerPatch struct {
	Name            string                  `json:"name,omitempty"`
	Env             []corev1.EnvVar         `json:"env,omitempty"`
	VolumeMounts    []corev1.VolumeMount    `json:"volumeMounts,omitempty"`
	SecurityContext *corev1.SecurityContext `json:"securityContext,omitempty"`
}

// Status is what the trainer reports.
type Status struct {
	Conditions    []metav1.Condition `json:"conditions,omitempty"`
	JobsStatus    []JobStatus        `json:"jobsStatus,omitempty"`
	TrainerStatus *TrainerStatus     `json:"trainerStatus,omitempty"`
}

// JobStatus counts the Jobs of one replicated job (not their pods).
type JobStatus struct {
	Name      string `json:"name,omitempty"`
	Ready     *int32 `json:"ready,omitempty"`
	Succeeded *int32 `json:"succeeded,omitempty"`
	Failed    *int32 `json:"failed,omitempty"`
	Active    *int32 `json:"active,omitempty"`
	Suspended *int32 `json:"suspended,omitempty"`
}

// TrainerStatus is what the training code reports of its progress.
type TrainerStatus struct {
	ProgressPercentage        *int32      `json:"progressPercentage,omitempty"`
	EstimatedRemainingSeconds *int32      `json:"estimatedRemainingSeconds,omitempty"`
	Metrics                   []Metric    `json:"metrics,omitempty"`
	LastUpdatedTime           metav1.Time `json:"lastUpdatedTime,omitempty"`
}

// Metric is one reported metric.
type Metric struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// DeepCopyObject implements runtime.Object.
func (j *TrainJob) DeepCopyObject() runtime.Object {
	return kinds.DeepCopyJSON(j)
}
