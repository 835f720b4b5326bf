package jobclient

import (
	"time"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// ItemOf is the document of a listed job.
func ItemOf(j Listed, now time.Time) jobmodel.Item {
	gvk := j.Kind.GroupVersionKind()
	return jobmodel.Item{
		Summary:          j.Summary,
		KindName:         j.Kind.Name(),
		ObjectAPIVersion: gvk.GroupVersion().String(),
		ObjectKind:       gvk.Kind,
		DurationSeconds:  int64(j.Summary.Duration(now) / time.Second),
		Labels:           j.Summary.Labels,
	}
}

// ListOf is the document of listed jobs.
func ListOf(js []Listed, now time.Time) jobmodel.List {
	l := jobmodel.List{APIVersion: jobmodel.APIVersion, Kind: jobmodel.ListDocumentKind, Items: make([]jobmodel.Item, 0, len(js))}
	for _, j := range js {
		l.Items = append(l.Items, ItemOf(j, now))
	}
	return l
}

// DocumentOf is the document of a described job.
func DocumentOf(d *Details, now time.Time) jobmodel.Document {
	doc := jobmodel.Document{
		APIVersion: jobmodel.APIVersion,
		Item:       ItemOf(Listed{Kind: d.Kind, Summary: d.Summary}, now),
		Image:      d.Image,
		Command:    d.Command,
		Replicas:   d.Replicas,
		Events:     d.Events,
		LastLines:  d.LastLines,
		Request:    d.Request,
		Details:    d.Details,
		Storage:    d.Storage,
	}
	doc.DocumentKind = jobmodel.JobDocumentKind
	if doc.Replicas == nil {
		doc.Replicas = []jobmodel.Replica{}
	}
	if doc.Events == nil {
		doc.Events = []jobmodel.Event{}
	}
	return doc
}
