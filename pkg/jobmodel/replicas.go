package jobmodel

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// ReplicaSet collects a job's replicas by task, for a kind's Replicas: the
// replicas read from pods, and those the job's spec asks for that have no
// pod yet.
type ReplicaSet struct {
	byTask map[string]Replica
}

// NewReplicaSet returns an empty set.
func NewReplicaSet() *ReplicaSet { return &ReplicaSet{byTask: map[string]Replica{}} }

// Observe adds a replica read from its pod. When a task has several pods
// (an old one still terminating), the newest stands for it.
func (s *ReplicaSet) Observe(r Replica) {
	if old, ok := s.byTask[r.Task]; ok && old.Pod != "" && old.Created != nil && r.Created != nil && old.Created.After(*r.Created) {
		return
	}
	s.byTask[r.Task] = r
}

// Expect adds a replica the spec asks for, Pending with the reason NoPod,
// unless a pod of it has been observed.
func (s *ReplicaSet) Expect(role string, index int) {
	task := TaskName(role, index)
	if _, ok := s.byTask[task]; !ok {
		s.byTask[task] = Replica{Task: task, Role: role, Index: index, Phase: string(corev1.PodPending), Reason: "NoPod"}
	}
}

// Sorted lists the replicas by role, in the order of roles (roles not in it
// after those, by name), then by index.
func (s *ReplicaSet) Sorted(roles []string) []Replica {
	order := map[string]int{}
	for i, r := range roles {
		order[r] = i
	}
	rank := func(role string) int {
		if i, ok := order[role]; ok {
			return i
		}
		return len(roles)
	}
	out := make([]Replica, 0, len(s.byTask))
	for _, r := range s.byTask {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, rj := rank(out[i].Role), rank(out[j].Role)
		switch {
		case ri != rj:
			return ri < rj
		case out[i].Role != out[j].Role:
			return out[i].Role < out[j].Role
		}
		return out[i].Index < out[j].Index
	})
	return out
}

// GPUs is what a container asks of the GPU resource: its limit, which an
// extended resource must set, else its request.
func GPUs(r corev1.ResourceRequirements, gpu corev1.ResourceName) int64 {
	if q, ok := r.Limits[gpu]; ok {
		return q.Value()
	}
	if q, ok := r.Requests[gpu]; ok {
		return q.Value()
	}
	return 0
}
