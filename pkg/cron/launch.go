package cron

import (
	"sort"
	"time"
)

// JobOf is one training job a schedule submitted, as the launcher sees it.
type JobOf struct {
	Name     string
	Finished bool
	Created  time.Time
}

// Decision is what one run of a schedule does, by its policy, before and
// after it submits.
type Decision struct {
	// Skip names the job still running that a Forbid run leaves alone: the
	// run submits nothing ("" : it submits).
	Skip string
	// Replace are the running jobs a Replace run deletes first.
	Replace []string
	// Prune are the oldest finished jobs beyond Keep, deleted after the
	// run submits.
	Prune []string
}

// Decide is what a run of a schedule with policy and keep does, given the
// jobs the schedule has submitted before it.
func Decide(policy string, keep int, jobs []JobOf) Decision {
	var d Decision
	var running, finished []JobOf
	for _, j := range jobs {
		if j.Finished {
			finished = append(finished, j)
		} else {
			running = append(running, j)
		}
	}
	sort.Slice(running, func(i, j int) bool { return running[i].Created.Before(running[j].Created) })
	switch {
	case len(running) > 0 && policy == Forbid:
		d.Skip = running[0].Name
	case len(running) > 0 && policy == Replace:
		for _, j := range running {
			d.Replace = append(d.Replace, j.Name)
		}
	}
	if keep > 0 && len(finished) > keep {
		sort.Slice(finished, func(i, j int) bool { return finished[i].Created.Before(finished[j].Created) })
		for _, j := range finished[:len(finished)-keep] {
			d.Prune = append(d.Prune, j.Name)
		}
	}
	return d
}

// RunName is the name of the job a run submits at t: NAME-YYYYMMDD-HHMMSS
// (UTC), new at every run.
func RunName(name string, t time.Time) string {
	return name + "-" + t.UTC().Format("20060102-150405")
}
