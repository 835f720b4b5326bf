package jobclient_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// TestExperimentsOf: jobs by experiment, counted by state, the GPUs of the
// running ones, the newest job; the experiment most recently added to first.
func TestExperimentsOf(t *testing.T) {
	tf, pytorch := kind(t, "tf"), kind(t, "pytorch")
	job := func(k string, name, experiment string, state jobmodel.State, gpus float64, age time.Duration) jobclient.Listed {
		kk := tf
		if k == "pytorch" {
			kk = pytorch
		}
		return jobclient.Listed{Kind: kk, Summary: jobmodel.Summary{Name: name, Experiment: experiment,
			Status: jobmodel.Status{State: state}, GPUs: gpus, Created: now.Add(-age)}}
	}
	jobs := []jobclient.Listed{
		job("tf", "lr-1", "lr-sweep", jobmodel.Running, 4, 3*time.Hour),
		job("tf", "lr-2", "lr-sweep", jobmodel.Running, 2, 2*time.Hour),
		job("tf", "lr-3", "lr-sweep", jobmodel.Queued, 8, time.Hour),
		job("pytorch", "lr-4", "lr-sweep", jobmodel.Succeeded, 8, 50*time.Minute),
		job("tf", "lr-5", "lr-sweep", jobmodel.Suspended, 1, 5*time.Hour),
		job("tf", "b-1", "bert", jobmodel.Failed, 2, 10*time.Minute),
		job("tf", "b-2", "bert", jobmodel.Pending, 2, 20*time.Minute),
		job("tf", "solo", "", jobmodel.Running, 8, time.Minute),
	}
	got := jobclient.ExperimentsOf(jobs)
	want := []jobclient.Experiment{
		{Name: "bert", Jobs: 2, Pending: 1, Failed: 1, Newest: jobclient.NewestJob{Name: "b-1", KindName: "tf", Created: now.Add(-10 * time.Minute)}},
		{Name: "lr-sweep", Jobs: 5, Running: 2, Pending: 1, Succeeded: 1, GPUs: 6,
			Newest: jobclient.NewestJob{Name: "lr-4", KindName: "pytorch", Created: now.Add(-50 * time.Minute)}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("experiments\n%+v\nwant\n%+v", got, want)
	}

	data, err := json.Marshal(jobclient.ExperimentListOf(got[:1]))
	if err != nil {
		t.Fatal(err)
	}
	wantJSON := `{"apiVersion":"easyai.io/v1","kind":"ExperimentList","items":[{"name":"bert","jobs":2,"running":0,"pending":1,"succeeded":0,"failed":1,"gpus":0,` +
		`"newest":{"name":"b-1","jobKind":"tf","created":"2025-03-01T12:50:00Z"}}]}`
	if string(data) != wantJSON {
		t.Errorf("document\n%s\nwant\n%s", data, wantJSON)
	}
	empty, _ := json.Marshal(jobclient.ExperimentListOf(jobclient.ExperimentsOf(nil)))
	if string(empty) != `{"apiVersion":"easyai.io/v1","kind":"ExperimentList","items":[]}` {
		t.Errorf("no experiments: %s", empty)
	}
}
