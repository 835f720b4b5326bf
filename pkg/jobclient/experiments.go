package jobclient

import (
	"sort"
	"time"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// ExperimentListDocumentKind is the kind of the experiments document
// (docs/output.md).
const ExperimentListDocumentKind = "ExperimentList"

// Experiment is what the jobs of one experiment (the easyai.io/experiment
// label) add up to.
type Experiment struct {
	Name string `json:"name"`
	// Jobs counts every job of the experiment; Running, Pending (Queued
	// or Pending), Succeeded and Failed those in these states. A
	// suspended job or one of an unknown state counts in Jobs only.
	Jobs      int `json:"jobs"`
	Running   int `json:"running"`
	Pending   int `json:"pending"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	// GPUs are the GPUs the running jobs ask for.
	GPUs float64 `json:"gpus"`
	// Newest is the job created last.
	Newest NewestJob `json:"newest"`
}

// NewestJob names the newest job of an experiment.
type NewestJob struct {
	Name     string    `json:"name"`
	KindName string    `json:"jobKind"`
	Created  time.Time `json:"created"`
}

// ExperimentList is the experiments document.
type ExperimentList struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Items      []Experiment `json:"items"`
}

// ExperimentsOf adds up the jobs by experiment; jobs of none are left out.
// The experiment with the newest job comes first.
func ExperimentsOf(jobs []Listed) []Experiment {
	byName := map[string]*Experiment{}
	for _, j := range jobs {
		s := &j.Summary
		if s.Experiment == "" {
			continue
		}
		e := byName[s.Experiment]
		if e == nil {
			e = &Experiment{Name: s.Experiment}
			byName[s.Experiment] = e
		}
		e.Jobs++
		switch s.Status.State {
		case jobmodel.Running:
			e.Running++
			e.GPUs += s.GPUs
		case jobmodel.Queued, jobmodel.Pending:
			e.Pending++
		case jobmodel.Succeeded:
			e.Succeeded++
		case jobmodel.Failed:
			e.Failed++
		}
		if e.Newest.Name == "" || s.Created.After(e.Newest.Created) ||
			(s.Created.Equal(e.Newest.Created) && s.Name < e.Newest.Name) {
			e.Newest = NewestJob{Name: s.Name, KindName: j.Kind.Name(), Created: s.Created}
		}
	}
	out := make([]Experiment, 0, len(byName))
	for _, e := range byName {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Newest.Created.Equal(out[j].Newest.Created) {
			return out[i].Newest.Created.After(out[j].Newest.Created)
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// ExperimentListOf is the document of experiments.
func ExperimentListOf(experiments []Experiment) ExperimentList {
	if experiments == nil {
		experiments = []Experiment{}
	}
	return ExperimentList{APIVersion: jobmodel.APIVersion, Kind: ExperimentListDocumentKind, Items: experiments}
}
