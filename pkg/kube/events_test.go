package kube_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/kube"
)

// TestEventLastSeenAndCount: events as both kinds of reporters write them.
func TestEventLastSeenAndCount(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(m int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(m) * time.Minute)) }
	micro := func(m int) metav1.MicroTime { return metav1.NewMicroTime(t0.Add(time.Duration(m) * time.Minute)) }
	created := metav1.ObjectMeta{CreationTimestamp: at(0)}
	for _, tc := range []struct {
		name  string
		ev    corev1.Event
		last  metav1.Time
		count int32
	}{
		{"core/v1 reporter, repeated", corev1.Event{ObjectMeta: created, FirstTimestamp: at(1), LastTimestamp: at(9), Count: 4}, at(9), 4},
		{"core/v1 reporter, once", corev1.Event{ObjectMeta: created, FirstTimestamp: at(1)}, at(1), 1},
		{"events.k8s.io reporter, once", corev1.Event{ObjectMeta: created, EventTime: micro(2)}, at(2), 1},
		// A series is updated in place: LastTimestamp, when a reporter set
		// it at all, is the first occurrence's.
		{"events.k8s.io reporter, a series", corev1.Event{ObjectMeta: created, EventTime: micro(2), LastTimestamp: at(2),
			Series: &corev1.EventSeries{Count: 7, LastObservedTime: micro(30)}}, at(30), 7},
		{"a series without its time", corev1.Event{ObjectMeta: created, EventTime: micro(2), Series: &corev1.EventSeries{Count: 2}}, at(2), 2},
		{"no time but its creation", corev1.Event{ObjectMeta: created}, at(0), 1},
	} {
		if got := kube.EventLastSeen(&tc.ev); !got.Equal(tc.last.Time) {
			t.Errorf("%s: last seen %s, want %s", tc.name, got, tc.last)
		}
		if got := kube.EventCount(&tc.ev); got != tc.count {
			t.Errorf("%s: count %d, want %d", tc.name, got, tc.count)
		}
	}
}

func warning(name, pod, reason, message string, last time.Time) *corev1.Event {
	return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"}, Type: corev1.EventTypeWarning,
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: pod, Namespace: "team-a"},
		Reason:         reason, Message: message, LastTimestamp: metav1.NewTime(last)}
}

// TestMissingMounts: only FailedMounts that name a Secret or ConfigMap that
// does not exist count, the latest of each pod.
func TestMissingMounts(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	kc := kubefake.NewClientset(
		warning("e1", "a-0", "FailedMount", `MountVolume.SetUp failed for volume "code" : secret "old" not found`, t0),
		warning("e2", "a-0", "FailedMount", `MountVolume.SetUp failed for volume "code" : secret "git" not found`, t0.Add(time.Minute)),
		warning("e3", "b-0", "FailedMount", `MountVolume.SetUp failed for volume "cfg" : configmap "settings" not found`, t0),
		warning("e4", "c-0", "FailedMount", `Unable to attach or mount volumes: timed out waiting for the condition`, t0),
		warning("e5", "d-0", "BackOff", `secret "x" not found`, t0),
	)
	got, err := kube.MissingMounts(context.Background(), kc, "team-a")
	want := map[string]string{
		"a-0": `MountVolume.SetUp failed for volume "code" : secret "git" not found`,
		"b-0": `MountVolume.SetUp failed for volume "cfg" : configmap "settings" not found`,
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, %v; want %q", got, err, want)
	}
}

// TestLatestWarning: the latest Warning about the pod, as "Reason: message".
func TestLatestWarning(t *testing.T) {
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	kc := kubefake.NewClientset(
		warning("e1", "a-0", "FailedScheduling", "0/4 nodes", t0),
		warning("e2", "a-0", "FailedMount", `secret "git" not found`, t0.Add(time.Minute)),
		warning("e3", "b-0", "BackOff", "another pod", t0.Add(time.Hour)),
	)
	got, err := kube.LatestWarning(context.Background(), kc, "team-a", "a-0")
	if err != nil || got != `FailedMount: secret "git" not found` {
		t.Errorf("got %q, %v", got, err)
	}
	if got, err := kube.LatestWarning(context.Background(), kc, "team-a", "c-0"); err != nil || got != "" {
		t.Errorf("a pod without events: %q, %v", got, err)
	}
}
