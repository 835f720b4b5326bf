package jobmodel

import "time"

// The documents of list and get -o json|yaml (docs/output.md). Their fields
// only ever grow; scripts can rely on the ones there.
const (
	APIVersion       = "easyai.io/v1"
	ListDocumentKind = "JobList"
	JobDocumentKind  = "Job"
)

// Item is one job in a JobList: its summary, with the job's kind spelt the
// easyai way (jobKind) and the Kubernetes way (objectKind, objectAPIVersion).
type Item struct {
	// DocumentKind is the kind of the document itself: "Job" in get's
	// document, absent from a list's items.
	DocumentKind string `json:"kind,omitempty"`
	Summary
	// KindName is easyai's name of the job's kind ("tf"), as the kind label
	// and "easyai submit KIND" spell it.
	KindName         string            `json:"jobKind"`
	ObjectAPIVersion string            `json:"objectAPIVersion"`
	ObjectKind       string            `json:"objectKind"`
	DurationSeconds  int64             `json:"durationSeconds"`
	Labels           map[string]string `json:"labels,omitempty"`
}

// List is list's document.
type List struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Items      []Item `json:"items"`
}

// Document is get's document of one job.
type Document struct {
	APIVersion string `json:"apiVersion"`
	Item
	Image    string    `json:"image,omitempty"`
	Command  []string  `json:"command,omitempty"`
	Replicas []Replica `json:"replicas"`
	Events   []Event   `json:"events"`
	// LastLines are the last lines of a few failed containers.
	LastLines []LastLines    `json:"lastLines,omitempty"`
	Request   map[string]any `json:"request,omitempty"`
	// Details are the kind's own (a TrainJob's runtime, jobs, progress).
	Details []Detail `json:"details,omitempty"`
	// Storage is where the job keeps its files (--storage).
	Storage *StorageDoc `json:"storage,omitempty"`
}

// StorageDoc is where a job keeps its files (docs/storage.md).
type StorageDoc struct {
	// Location is the volume and the prefix: pvc:team:/vision.
	Location    string `json:"location"`
	JobDir      string `json:"jobDir"`
	PersistLogs bool   `json:"persistLogs"`
	Dirs        []Dir  `json:"dirs"`
}

// Dir is one directory of a job's storage: the environment variable naming
// it, where the replicas see it and where it is on the volume ({task}: one
// directory per replica).
type Dir struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
	Location  string `json:"location"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// Event is one Warning event about a job or one of its objects.
type Event struct {
	// Object is "job", a replica's task ("worker-1"), a pod of no replica
	// ("pod/NAME"), "podgroup" (gang scheduling), or an object between the
	// job and its pods (a TrainJob's "jobset" and "Job/NAME").
	Object   string    `json:"object"`
	Reason   string    `json:"reason"`
	Message  string    `json:"message"`
	Count    int32     `json:"count"`
	LastSeen time.Time `json:"lastSeen"`
}

// LastLines are the last lines a failed container wrote: why a replica
// crashes, without a second command.
type LastLines struct {
	Task      string `json:"task"`
	Container string `json:"container"`
	// Previous is true when the lines are those of the container's previous
	// run (the one that crashed; the present one waits to restart).
	Previous bool  `json:"previous,omitempty"`
	ExitCode int32 `json:"exitCode"`
	// Lines are the last lines, each on one line of a terminal (control
	// characters made spaces) and cut at MaxLastLineRunes.
	Lines []string `json:"lines"`
	// Error says why the lines could not be read (e.g. the user may not read
	// logs); Lines is then empty.
	Error string `json:"error,omitempty"`
}
