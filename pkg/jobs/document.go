package jobs

import (
	"time"

	"github.com/easyai-dev/easyai/pkg/job"
)

// The documents of list and get -o json|yaml (docs/output.md). Their fields
// only ever grow; scripts can rely on the ones there.
const (
	APIVersion = "easyai.io/v1"
	ListKind   = "JobList"
	JobKind    = "Job"
)

// Item is one job in a JobList: its summary, with the job's kind spelt the
// easyai way (jobKind) and the Kubernetes way (objectKind, objectAPIVersion).
type Item struct {
	// Kind hides Summary.Kind (the Kubernetes kind, which objectKind
	// carries) from the document: it is only set in get's document, to "Job".
	Kind string `json:"kind,omitempty"`
	job.Summary
	JobKind          string            `json:"jobKind"`
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
	Image    string         `json:"image,omitempty"`
	Command  []string       `json:"command,omitempty"`
	Replicas []job.Replica  `json:"replicas"`
	Events   []Event        `json:"events"`
	Request  map[string]any `json:"request,omitempty"`
}

// ItemOf is the document of a listed job.
func ItemOf(j Job, now time.Time) Item {
	gvk := j.Kind.GroupVersionKind()
	return Item{
		Summary:          j.Summary,
		JobKind:          j.Kind.Name(),
		ObjectAPIVersion: gvk.GroupVersion().String(),
		ObjectKind:       gvk.Kind,
		DurationSeconds:  int64(j.Summary.Duration(now) / time.Second),
		Labels:           j.Summary.Labels,
	}
}

// ListOf is the document of listed jobs.
func ListOf(js []Job, now time.Time) List {
	l := List{APIVersion: APIVersion, Kind: ListKind, Items: make([]Item, 0, len(js))}
	for _, j := range js {
		l.Items = append(l.Items, ItemOf(j, now))
	}
	return l
}

// DocumentOf is the document of a described job.
func DocumentOf(d *Details, now time.Time) Document {
	doc := Document{
		APIVersion: APIVersion,
		Item:       ItemOf(Job{Kind: d.Kind, Summary: d.Summary}, now),
		Image:      d.Image,
		Command:    d.Command,
		Replicas:   d.Replicas,
		Events:     d.Events,
		Request:    d.Request,
	}
	doc.Kind = JobKind
	if doc.Replicas == nil {
		doc.Replicas = []job.Replica{}
	}
	if doc.Events == nil {
		doc.Events = []Event{}
	}
	return doc
}
