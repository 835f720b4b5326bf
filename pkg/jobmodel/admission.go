package jobmodel

import (
	"fmt"
	"strings"
)

// The states of a job under Kueue, as list and get show them.
const (
	// AdmissionQueued: waiting for quota in its LocalQueue.
	AdmissionQueued = "Queued"
	// AdmissionReserved: quota reserved, admission checks not yet passed.
	AdmissionReserved = "QuotaReserved"
	// AdmissionAdmitted: Kueue let the job run.
	AdmissionAdmitted = "Admitted"
	// AdmissionEvicted: admitted once, then evicted (preempted, pods not ready in
	// time, its queue stopped) and queued again.
	AdmissionEvicted = "Evicted"
	// AdmissionDeactivated: taken out of the queue (spec.active false).
	AdmissionDeactivated = "Deactivated"
	// AdmissionFinished: the job ended; its quota is released.
	AdmissionFinished = "Finished"
)

// Admission is where a Kueue-managed job stands: its state, its queues,
// and, while it waits, its place in line and the quota it waits for.
type Admission struct {
	State        string `json:"state"`
	Workload     string `json:"workload"`
	LocalQueue   string `json:"localQueue"`
	ClusterQueue string `json:"clusterQueue,omitempty"`
	// Flavors are the resource flavors it was admitted on.
	Flavors []string `json:"flavors,omitempty"`
	// Position is its place among the workloads waiting in its LocalQueue
	// (1: next), as Kueue orders them (priority, then time queued); 0 when
	// not waiting.
	Position int `json:"position,omitempty"`
	// WaitingFor is the quota it waits for ("nvidia.com/gpu: 8 requested,
	// 4 free in flavor a100"), or Kueue's own words when they say
	// something else.
	WaitingFor string `json:"waitingFor,omitempty"`
	// Evicted says why it was last evicted ("preempted by tf/urgent: ...").
	Evicted string `json:"evicted,omitempty"`
}

// String is the admission in one line: "Queued (3rd in team-a, waiting for
// nvidia.com/gpu: 8 requested, 4 free in flavor a100)", "Admitted
// (cluster-queue gpu, flavor a100)", "Evicted (preempted by ...)".
func (a Admission) String() string {
	var parts []string
	switch a.State {
	case AdmissionAdmitted, AdmissionReserved:
		parts = append(parts, "cluster-queue "+a.ClusterQueue)
		if len(a.Flavors) > 0 {
			parts = append(parts, "flavor "+strings.Join(a.Flavors, ", "))
		}
	case AdmissionQueued, AdmissionEvicted:
		if a.Evicted != "" {
			parts = append(parts, a.Evicted)
		}
		if a.Position > 0 {
			parts = append(parts, ordinal(a.Position)+" in "+a.LocalQueue)
		}
		if a.WaitingFor != "" {
			parts = append(parts, "waiting for "+a.WaitingFor)
		}
	}
	if len(parts) == 0 {
		return a.State
	}
	return a.State + " (" + strings.Join(parts, ", ") + ")"
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
