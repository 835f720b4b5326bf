package kube

import (
	"context"
	"regexp"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// MissingMounts reads the namespace's FailedMount events (one LIST) and
// gives, for each pod that has one naming a Secret or ConfigMap that does
// not exist, the latest such message: what keeps the pod from starting
// until someone makes the object.
func MissingMounts(ctx context.Context, kc kubernetes.Interface, namespace string) (map[string]string, error) {
	found, err := PodWarnings(ctx, kc, namespace, "FailedMount", MissingObject)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(found))
	for pod, msg := range found {
		out[pod.Name] = msg
	}
	return out, nil
}

// PodWarnings reads the Warning events of reason about pods of namespace
// ("": every namespace) with one LIST, and gives for each pod the latest
// message that match accepts.
func PodWarnings(ctx context.Context, kc kubernetes.Interface, namespace, reason string, match func(string) bool) (map[types.NamespacedName]string, error) {
	selector := fields.Set{"type": corev1.EventTypeWarning, "reason": reason, "involvedObject.kind": "Pod"}.AsSelector().String()
	evs, err := kc.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		return nil, err
	}
	out, seen := map[types.NamespacedName]string{}, map[types.NamespacedName]time.Time{}
	for i := range evs.Items {
		ev := &evs.Items[i]
		if ev.Type != corev1.EventTypeWarning || ev.Reason != reason || ev.InvolvedObject.Kind != "Pod" || !match(ev.Message) {
			continue // (a fake client does not filter)
		}
		pod := types.NamespacedName{Namespace: ev.Namespace, Name: ev.InvolvedObject.Name}
		if last := EventLastSeen(ev); seen[pod].IsZero() || last.After(seen[pod]) {
			out[pod], seen[pod] = ev.Message, last
		}
	}
	return out, nil
}

// MissingObject is true of a FailedMount message that names a Secret or
// ConfigMap that does not exist.
func MissingObject(message string) bool { return missingObject.MatchString(message) }

// missingObject is how the kubelet says a volume's Secret or ConfigMap does
// not exist: `... : secret "git" not found`.
var missingObject = regexp.MustCompile(`\b(secret|configmap) "[^"]*" not found`)

// LatestWarning is the reason and message ("FailedMount: MountVolume.SetUp
// failed ...") of the latest Warning event about a pod, read with one LIST
// of the pod's events; "" when it has none.
func LatestWarning(ctx context.Context, kc kubernetes.Interface, namespace, pod string) (string, error) {
	selector := fields.Set{"type": corev1.EventTypeWarning, "involvedObject.kind": "Pod", "involvedObject.name": pod}.AsSelector().String()
	evs, err := kc.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		return "", err
	}
	var latest *corev1.Event
	for i := range evs.Items {
		ev := &evs.Items[i]
		if ev.Type != corev1.EventTypeWarning || ev.InvolvedObject.Name != pod {
			continue // (a fake client does not filter)
		}
		if latest == nil || EventLastSeen(ev).After(EventLastSeen(latest)) {
			latest = ev
		}
	}
	if latest == nil {
		return "", nil
	}
	return reasonAndMessage(latest.Reason, latest.Message), nil
}

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
