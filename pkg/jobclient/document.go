package jobclient

import (
	"time"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

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
	jobmodel.Summary
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
	Image    string             `json:"image,omitempty"`
	Command  []string           `json:"command,omitempty"`
	Replicas []jobmodel.Replica `json:"replicas"`
	Events   []Event            `json:"events"`
	// LastLines are the last lines of a few failed containers.
	LastLines []LastLines    `json:"lastLines,omitempty"`
	Request   map[string]any `json:"request,omitempty"`
	// Details are the kind's own (a TrainJob's runtime, jobs, progress).
	Details []jobmodel.Detail `json:"details,omitempty"`
	// Storage is where the job keeps its files (--storage).
	Storage *StorageDoc `json:"storage,omitempty"`
}

// ItemOf is the document of a listed job.
func ItemOf(j Job, now time.Time) Item {
	gvk := j.Kind.GroupVersionKind()
	return Item{
		Summary:          j.Summary,
		KindName:         j.Kind.Name(),
		ObjectAPIVersion: gvk.GroupVersion().String(),
		ObjectKind:       gvk.Kind,
		DurationSeconds:  int64(j.Summary.Duration(now) / time.Second),
		Labels:           j.Summary.Labels,
	}
}

// ListOf is the document of listed jobs.
func ListOf(js []Job, now time.Time) List {
	l := List{APIVersion: APIVersion, Kind: ListDocumentKind, Items: make([]Item, 0, len(js))}
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
		LastLines:  d.LastLines,
		Request:    d.Request,
		Details:    d.Details,
		Storage:    d.Storage,
	}
	doc.DocumentKind = JobDocumentKind
	if doc.Replicas == nil {
		doc.Replicas = []jobmodel.Replica{}
	}
	if doc.Events == nil {
		doc.Events = []Event{}
	}
	return doc
}
