package jobs

import (
	"testing"
	"time"
)

func TestPassedGangWaitsAreLeftOut(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	events := []Event{
		{Object: "podgroup", Reason: "Unschedulable", Message: "0/0 tasks in gang unschedulable", LastSeen: t0},
		{Object: "job", Reason: "PodGroupPending", Message: "3/0 tasks in gang unschedulable", LastSeen: t0.Add(3 * time.Second)},
		{Object: "worker-0", Reason: "BackOff", Message: "restarting", LastSeen: t0},
		{Object: "podgroup", Reason: "Unschedulable", Message: "later again", LastSeen: t0.Add(time.Hour)},
	}
	if got := dropPassedGangWaits(events, nil); len(got) != 4 {
		t.Errorf("a job that has not started keeps every warning: %v", got)
	}
	started := t0.Add(2 * time.Second)
	got := dropPassedGangWaits(events, &started)
	if len(got) != 2 || got[0].Reason != "BackOff" || got[1].Message != "later again" {
		t.Errorf("after the start: %+v", got)
	}
	if len(events) != 4 || events[0].Reason != "Unschedulable" {
		t.Errorf("the input was changed: %+v", events)
	}
}
