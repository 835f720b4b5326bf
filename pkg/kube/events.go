package kube

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// EventLastSeen is when an event last happened. Reporters fill different
// fields: those of the events.k8s.io API keep a repeated event's last time
// in Series (and its first in EventTime), older ones in LastTimestamp (and
// FirstTimestamp); the first of Series, LastTimestamp, EventTime,
// FirstTimestamp that is set is the latest known, else the event's creation.
func EventLastSeen(ev *corev1.Event) time.Time {
	if ev.Series != nil && !ev.Series.LastObservedTime.IsZero() {
		return ev.Series.LastObservedTime.Time
	}
	for _, t := range []time.Time{ev.LastTimestamp.Time, ev.EventTime.Time, ev.FirstTimestamp.Time} {
		if !t.IsZero() {
			return t
		}
	}
	return ev.CreationTimestamp.Time
}

// EventCount is how many times an event happened: Series' count for the
// events.k8s.io API's reporters, else Count; at least once.
func EventCount(ev *corev1.Event) int32 {
	switch {
	case ev.Series != nil && ev.Series.Count > 0:
		return ev.Series.Count
	case ev.Count > 0:
		return ev.Count
	}
	return 1
}
