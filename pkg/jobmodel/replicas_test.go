package jobmodel

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestReplicaSet(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	s := NewReplicaSet()
	s.Expect("worker", 1) // no pod yet: a pod observed later replaces it
	s.Observe(Replica{Task: "worker-1", Role: "worker", Index: 1, Pod: "w1-new", Phase: "Running", Created: at(time.Minute)})
	s.Observe(Replica{Task: "worker-1", Role: "worker", Index: 1, Pod: "w1-old", Phase: "Failed", Created: at(0)})
	s.Observe(Replica{Task: "ps-0", Role: "ps", Index: 0, Pod: "ps0", Phase: "Running", Created: at(0)})
	s.Expect("worker", 0)
	s.Expect("ps", 0) // observed: stays
	s.Expect("evaluator", 0)
	s.Expect("aux", 0)
	var got []string
	for _, r := range s.Sorted([]string{"ps", "worker"}) {
		got = append(got, r.Task+"="+r.Pod+":"+r.Phase)
	}
	want := "ps-0=ps0:Running worker-0=:Pending worker-1=w1-new:Running aux-0=:Pending evaluator-0=:Pending"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestGPUs(t *testing.T) {
	gpu := corev1.ResourceName("nvidia.com/gpu")
	two, one := resource.MustParse("2"), resource.MustParse("1")
	for _, tt := range []struct {
		r    corev1.ResourceRequirements
		want int64
	}{
		{corev1.ResourceRequirements{}, 0},
		{corev1.ResourceRequirements{Limits: corev1.ResourceList{gpu: two}, Requests: corev1.ResourceList{gpu: one}}, 2},
		{corev1.ResourceRequirements{Requests: corev1.ResourceList{gpu: one}}, 1},
	} {
		if got := GPUs(tt.r, gpu); got != tt.want {
			t.Errorf("GPUs(%v) = %d, want %d", tt.r, got, tt.want)
		}
	}
}
