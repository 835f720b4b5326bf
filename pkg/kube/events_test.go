package kube_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
