// Package platform is the seam between the commands and where jobs run: a
// Kubernetes cluster (a kubeconfig context; package kubeplatform) or a
// timaker cluster (a cluster of the configuration; package timakerplatform).
// submit, get, list, wait, delete and top talk to a Platform and never ask
// which one it is.
//
// A platform is not a kind's backend: the backend that serves a kind on
// Kubernetes (ColossalAI on T9k or on Volcano) is chosen inside the kind.
package platform

import (
	"context"
	"errors"
	"io"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Platform is where jobs run.
type Platform interface {
	// Where says where the jobs are, for messages: "namespace team-a",
	// "timaker cluster prod".
	Where() string
	// JobArgs is how a command names job on this platform, after the
	// command: "tf/mnist -n team-a", "mnist --cluster prod".
	JobArgs(job *Job) string

	// Submit makes the job req asks for, or for a dry run shows what it
	// would send; it never changes req.
	Submit(ctx context.Context, req *submit.JobRequest) (*Submitted, error)
	// Find finds one job, cheaply: its summary, not its replicas.
	Find(ctx context.Context, ref kinds.Ref) (*Job, error)
	// Describe is get's document of a job Find or List returned.
	Describe(ctx context.Context, job *Job) (*jobmodel.Document, error)
	// List lists jobs, newest first.
	List(ctx context.Context, opts ListOptions) ([]*Job, error)
	// Delete stops a job for good and removes it.
	Delete(ctx context.Context, job *Job) error
	// Wait waits until the job reaches the condition; its error carries
	// the exit code (4 failed, 5 timed out, 3 gone).
	Wait(ctx context.Context, job *Job, req WaitRequest) (*Waited, error)
	// Logs streams the logs of every replica of the job until it ends.
	Logs(ctx context.Context, job *Job, opts LogRequest) error
	// Resources is the capacity of the platform and what is free (top node).
	Resources(ctx context.Context, opts ResourceRequest) (*Resources, error)
	// Recorded is what a job Find returned was submitted with, to submit
	// it again (rerun) or print it as a job file (get -o values).
	Recorded(ctx context.Context, job *Job) (*Recorded, error)
}

// Job is one job a platform found, listed or created.
type Job struct {
	// Item is the job as list's document shows it.
	Item jobmodel.Item
	// Raw is the job as the platform holds it (get --raw): the object on
	// Kubernetes, the service's description on timaker.
	Raw map[string]any
	// Handle is the platform's own state of the job.
	Handle any
	// PodReason is what the job's pods show wrong ("master-0:
	// CrashLoopBackOff"), when ListOptions.PodReasons asked for it and the
	// platform knows; "" otherwise.
	PodReason string
}

// String is KIND/NAME, or NAME for a job of no known kind (a timaker job
// adopted by its id).
func (j *Job) String() string {
	if j.Item.KindName == "" {
		return j.Item.Name
	}
	return j.Item.KindName + "/" + j.Item.Name
}

// Submitted is what Submit made.
type Submitted struct {
	// Job is the job created; nil for a dry run.
	Job *Job
	// Shown is what -o json|yaml prints of the submission (the object
	// created, or for a dry run what would be sent).
	Shown map[string]any
	// Name is KIND/NAME of the job.
	Name string
	// Line is the sentence said on stdout: "tf/mnist submitted to namespace team-a".
	Line string
	// Beside are the objects made beside the job and owned by it (KIND/NAME:
	// the Secret of a login token, TensorBoard's Deployment), said on stderr.
	Beside []string
}

// Recorded is what a job was submitted with.
type Recorded struct {
	// Kind is the kind submitted (also where the job was rendered as
	// another: a ColossalAI job on Volcano is "colossalai").
	Kind kinds.Kind
	// Values are the values the job was rendered from, without its name
	// and without the labels and annotations every submission adds.
	Values map[string]any
	// Experiment is the job's experiment ("" for none).
	Experiment string
}

// JobFile is the values as a job file of "easyai submit -f": YAML whose
// first key, kind, names the kind.
func (r *Recorded) JobFile() ([]byte, error) {
	values := make(map[string]any, len(r.Values))
	for k, v := range r.Values {
		values[k] = v
	}
	delete(values, "kind")
	head, err := yaml.Marshal(map[string]any{"kind": r.Kind.Name()})
	if err != nil {
		return nil, err
	}
	if len(values) == 0 {
		return head, nil
	}
	body, err := yaml.Marshal(values)
	if err != nil {
		// e.g. a DEL character, which YAML cannot hold, in an edited annotation.
		return nil, exit.UsageErrorf("annotation %s: the values cannot be written as a job file: %v", jobmodel.RequestAnnotation, err)
	}
	return append(head, body...), nil
}

// ListOptions select the jobs List returns.
type ListOptions struct {
	AllNamespaces bool
	// Kinds: only these (none: every kind).
	Kinds  []kinds.Kind
	States []jobmodel.State
	// KindsAsked is whether the user named kinds (--kind): a kind the
	// platform cannot list is then a warning, not a quiet skip.
	KindsAsked bool
	Experiment string
	User       string
	// Mine: only the jobs of the user the platform knows the caller as.
	Mine     bool
	Selector string
	// ManagedOnly: only jobs easyai submitted (delete --all).
	ManagedOnly bool
	// Adopt are ids of jobs submitted elsewhere to add to the listing
	// first (timaker, whose jobs easyai lists from a local index).
	Adopt []string
	// PodReasons asks, for each job, what its pods show wrong in one
	// short line (Job.PodReason): list -o wide's REASON column.
	PodReasons bool
}

// WaitRequest is what Wait waits for.
type WaitRequest struct {
	For     waiter.Condition
	Timeout time.Duration
	// StuckAfter: a pod that long in a crash loop, or waiting for a missing
	// Secret or ConfigMap, ends the wait as failed (0: never).
	StuckAfter time.Duration
	// Document asks for the job's document once the wait ended.
	Document bool
	// Started (when not nil) is called once, the first time the wait sees
	// the job running without being over (a wait for finished, succeeded
	// or suspended), with the job's document then when Document is asked
	// (nil when it could not be read).
	Started func(*jobmodel.Document)
}

// Waited is how a wait ended (also when its error is not nil).
type Waited struct {
	// Line says the final state on stderr ("tf/mnist succeeded after 3m").
	Line string
	// Document is the job's document when asked for (nil when it could
	// not be read).
	Document *jobmodel.Document
	// DocumentErr is why Document is nil when it was asked for; it is not
	// the wait's error: the caller decides what a missing document means.
	DocumentErr error
}

// LogRequest is how Logs streams.
type LogRequest struct {
	Out, ErrOut io.Writer
	Colour      bool
	// Terminal: Out is a terminal; the containers' lines are made safe for
	// it (their control characters not passed on).
	Terminal bool
	// Prefix comes before each replica's name in the prefix of its lines
	// ("train/" of a pipeline step: "[train/worker-0] ").
	Prefix string
}

// ResourceRequest selects what Resources reports.
type ResourceRequest struct {
	// Selector is a label selector of nodes (Kubernetes).
	Selector string
}

// Resources is a platform's capacity: one row per node or pool, and their total.
type Resources struct {
	// What names the rows: "NODE", "POOL".
	What  string
	Rows  []ResourceRow
	Total ResourceRow
	// LargestFree is the row with the most GPUs free: the largest block
	// of GPUs one replica can get (nil when no row has GPUs).
	LargestFree *FreeBlock
	// Waiting are the jobs whose pods wait for a node and ask for GPUs
	// (Kubernetes), largest ask first.
	Waiting []WaitingJob
	// Quotas are the GPUs of each Kueue ClusterQueue, where the cluster
	// runs Kueue and the user may read them (Kubernetes).
	Quotas []QueueQuota
}

// QueueQuota is one Kueue ClusterQueue's GPUs, over every flavor: its
// nominal quota, what its admitted jobs use, and the part of that borrowed
// from its cohort.
type QueueQuota struct {
	Name     string  `json:"name"`
	Cohort   string  `json:"cohort,omitempty"`
	GPUs     float64 `json:"gpus"`
	Used     float64 `json:"gpusUsed"`
	Borrowed float64 `json:"gpusBorrowed"`
	Pending  int32   `json:"pendingWorkloads"`
	Admitted int32   `json:"admittedWorkloads"`
}

// FreeBlock is the GPUs free on one node or pool.
type FreeBlock struct {
	Name string  `json:"name"`
	GPUs float64 `json:"gpus"`
}

// WaitingJob is a job with pods not yet placed on a node.
type WaitingJob struct {
	// Job is NAMESPACE/KIND/NAME, or NAMESPACE/NAME when its kind is not known.
	Job string `json:"job"`
	// Pods counts its pods waiting for a node.
	Pods int `json:"pods"`
	// GPUsPerPod is the most GPUs one of them asks for.
	GPUsPerPod float64 `json:"gpusPerPod"`
}

// ResourceRow is the capacity and use of one node or pool.
type ResourceRow struct {
	Name string `json:"name"`
	// GPUType is the model of the GPUs counted ("" when unknown).
	GPUType string `json:"gpuType,omitempty"`
	// GPUs in whole GPUs (timaker counts hundredths); CPU in cores;
	// Memory in bytes.
	GPUs   Amount `json:"gpus"`
	CPU    Amount `json:"cpu"`
	Memory Amount `json:"memory"`
	// Pods running on the node (Kubernetes), -1 when not known.
	Pods int `json:"pods"`
	// GPUResources is GPUs by extended resource, when more than one is
	// counted (GPUs is their sum).
	GPUResources map[string]Amount `json:"gpuResources,omitempty"`
	// Jobs on the node: NAMESPACE/KIND/NAME (NAMESPACE/NAME when the kind
	// is not known), sorted (Kubernetes).
	Jobs []string `json:"jobs,omitempty"`
	// Usage is what the node uses now, from the metrics API; nil when the
	// cluster serves none or it may not be read.
	Usage *Usage `json:"usage,omitempty"`
}

// Usage is CPU cores and memory bytes in use, as the metrics API measured.
type Usage struct {
	CPU    float64 `json:"cpu"`
	Memory float64 `json:"memory"`
}

// Amount is a capacity and how much of it is allocated.
type Amount struct {
	Capacity  float64 `json:"capacity"`
	Allocated float64 `json:"allocated"`
}

// Free is what is not allocated.
func (a Amount) Free() float64 { return a.Capacity - a.Allocated }

// Add adds b to a.
func (a *Amount) Add(b Amount) {
	a.Capacity += b.Capacity
	a.Allocated += b.Allocated
}

// ErrUnsupported is what a platform cannot do; the error wrapping it says
// what and where the documentation is.
var ErrUnsupported = errors.New("not supported on this platform")

// FindRecorded finds the job ref names on p and what it was submitted
// with (rerun, notebook start).
func FindRecorded(ctx context.Context, p Platform, ref kinds.Ref) (*Job, *Recorded, error) {
	job, err := p.Find(ctx, ref)
	if err != nil {
		return nil, nil, err
	}
	recorded, err := p.Recorded(ctx, job)
	if err != nil {
		return nil, nil, err
	}
	return job, recorded, nil
}
