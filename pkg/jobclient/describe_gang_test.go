package jobclient

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

func TestPassedGangWaitsAreLeftOut(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	events := []jobmodel.Event{
		{Object: "podgroup", Reason: "Unschedulable", Message: "0/0 tasks in gang unschedulable", LastSeen: t0},
		{Object: "job", Reason: "PodGroupPending", Message: "3/0 tasks in gang unschedulable", LastSeen: t0.Add(11 * time.Second)},
		{Object: "worker-0", Reason: "BackOff", Message: "restarting", LastSeen: t0},
		{Object: "podgroup", Reason: "Unschedulable", Message: "later again", LastSeen: t0.Add(time.Hour)},
	}
	if got := dropPassedGangWaits(events, nil); len(got) != 4 {
		t.Errorf("a gang still waiting keeps every warning: %v", got)
	}
	scheduled := t0.Add(2 * time.Second)
	got := dropPassedGangWaits(events, &scheduled)
	if len(got) != 2 || got[0].Reason != "BackOff" || got[1].Message != "later again" {
		t.Errorf("after the gang was scheduled: %+v", got)
	}
	if len(events) != 4 || events[0].Reason != "Unschedulable" {
		t.Errorf("the input was changed: %+v", events)
	}
}

func TestGangScheduledAt(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pod := func(name string, scheduledAt *time.Time) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if scheduledAt != nil {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(*scheduledAt)}}
		} else {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse}}
		}
		return p
	}
	at := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	replicas := []jobmodel.Replica{{Task: "worker-0", Pod: "w0"}, {Task: "worker-1", Pod: "w1"}}

	got := gangScheduledAt(jobmodel.Running, replicas, []corev1.Pod{pod("w0", at(time.Second)), pod("w1", at(3*time.Second))})
	if got == nil || !got.Equal(t0.Add(3*time.Second)) {
		t.Errorf("every pod scheduled: %v, want the latest", got)
	}
	if got := gangScheduledAt(jobmodel.Running, replicas, []corev1.Pod{pod("w0", at(time.Second)), pod("w1", nil)}); got != nil {
		t.Errorf("a pod not scheduled: %v, want nil", got)
	}
	if got := gangScheduledAt(jobmodel.Pending, []jobmodel.Replica{{Task: "worker-0"}}, nil); got != nil {
		t.Errorf("no pod yet: %v, want nil", got)
	}
	if got := gangScheduledAt(jobmodel.Succeeded, replicas, nil); got == nil || got.Before(t0) {
		t.Errorf("a finished job: %v, want every wait over", got)
	}
}
