// Package jobmodel is easyai's kind-neutral view of a training job: its state, its
// replicas, and the labels and annotations that carry everything easyai needs
// to know about it later (docs/labels.md). Every kind maps its objects to this
// model, so list, get and the waiting commands treat all kinds alike.
package jobmodel

import (
	"strings"
	"time"
	"unicode"
)

// State is a job's state in easyai's state machine.
type State string

// The states of a job. Queued: accepted but waiting for resources or its
// queue (e.g. an unschedulable gang); Pending: being scheduled or started;
// Suspended: stopped by the user and resumable.
const (
	Queued    State = "Queued"
	Pending   State = "Pending"
	Running   State = "Running"
	Succeeded State = "Succeeded"
	Failed    State = "Failed"
	Suspended State = "Suspended"
	// Stopping and Stopped are a job stopped by the user on a platform that
	// keeps it (timaker); on Kubernetes a stopped job is deleted.
	Stopping State = "Stopping"
	Stopped  State = "Stopped"
	Unknown  State = "Unknown"
)

// States lists every state, in the order of the state machine.
var States = []State{Queued, Pending, Running, Succeeded, Failed, Suspended, Stopping, Stopped, Unknown}

// Final reports whether the job will not change state any more by itself.
func (s State) Final() bool { return s == Succeeded || s == Failed }

// Status is a job's state with the reason and message that explain it.
type Status struct {
	State   State  `json:"state"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Summary is what list shows of a job, read from the job object alone (its
// status and spec), without listing its pods.
type Summary struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	// UID tells this job from one of the same name made after it (a
	// delete's precondition); not in documents.
	UID string `json:"-"`
	// APIKind is the Kubernetes kind ("TFJob"); documents carry it as objectKind.
	APIKind    string `json:"-"`
	Status     Status `json:"status"`
	User       string `json:"user,omitempty"`
	Experiment string `json:"experiment,omitempty"`
	// Debug is a job in debug mode (DebugLabel): its replicas wait for
	// "easyai run".
	Debug bool `json:"debug,omitempty"`
	// ManagedBy is "easyai" for jobs easyai submitted, else who created it
	// (another tool's managed-by label, or empty).
	ManagedBy string `json:"managedBy,omitempty"`
	// Workers counts the replicas of every role: ready (running) of total.
	Workers ReplicaCount `json:"workers"`
	// GPUs is how many GPUs the job asks for, over every replica (a
	// fraction on platforms that share GPUs, such as timaker).
	GPUs     float64           `json:"gpus"`
	Created  time.Time         `json:"created"`
	Started  *time.Time        `json:"started,omitempty"`
	Finished *time.Time        `json:"finished,omitempty"`
	Labels   map[string]string `json:"-"`
	// Admission is where a job Kueue manages stands (nil: not Kueue's, or
	// not read).
	Admission *Admission `json:"admission,omitempty"`
	// RecordedUser is the identity in the job's easyai.io/user annotation
	// ("" without one). Of the annotations only it is kept: a summary is
	// what list holds for each of thousands of jobs, and the request easyai
	// records is a kilobyte.
	RecordedUser string `json:"-"`
}

// Detail is one more line a kind has to say of a job in "easyai get"
// (kinds.Detailer): a name ("Runtime") and its value, one line of text.
type Detail struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ReplicaCount is how many replicas run of how many the job asks for.
type ReplicaCount struct {
	Ready int32 `json:"ready"`
	Total int32 `json:"total"`
}

// Duration is how long the job has been running (until now, or until it
// finished); zero before it started.
func (s *Summary) Duration(now time.Time) time.Duration {
	if s.Started == nil {
		return 0
	}
	end := now
	if s.Finished != nil {
		end = *s.Finished
	}
	if end.Before(*s.Started) {
		return 0
	}
	return end.Sub(*s.Started)
}

// ByEasyAI reports whether easyai submitted the job.
func (s *Summary) ByEasyAI() bool { return s.ManagedBy == ManagedByValue }

// Replica is one replica of a job, addressed as ROLE-INDEX ("worker-1").
type Replica struct {
	// Task is the replica's name: role and index, e.g. worker-1, or launcher.
	Task     string     `json:"task"`
	Role     string     `json:"role"`
	Index    int        `json:"index"`
	Pod      string     `json:"pod,omitempty"`
	Phase    string     `json:"phase"`
	Node     string     `json:"node,omitempty"`
	Restarts int32      `json:"restarts"`
	ExitCode *int32     `json:"exitCode,omitempty"`
	Reason   string     `json:"reason,omitempty"`
	Message  string     `json:"message,omitempty"`
	Created  *time.Time `json:"created,omitempty"`
}

// OneLine is text from the cluster made safe for one line of a terminal:
// control characters (newlines, escapes) become spaces.
func OneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}
