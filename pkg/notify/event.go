package notify

import (
	"strings"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// Event is what a notification tells: how the wait ended, or that the job
// was seen running.
type Event string

const (
	// Running: the job was first seen running (or a wait for running
	// reached it).
	Running Event = "running"
	// Succeeded: the job succeeded.
	Succeeded Event = "succeeded"
	// Suspended: a wait for suspended reached it.
	Suspended Event = "suspended"
	// Failed: the job failed (on timaker also: it was stopped).
	Failed Event = "failed"
	// TimedOut: the wait's --timeout ran out before the job got there.
	TimedOut Event = "timedout"
	// Deleted: the job was deleted while waiting.
	Deleted Event = "deleted"
)

// The values of --notify-on.
const (
	OnRunning   = "running"
	OnSuspended = "suspended"
	OnFinished  = "finished"
	OnFailed    = "failed"
)

// OnValues are the values of --notify-on, for help and completion.
var OnValues = []string{OnFinished, OnFailed, OnRunning, OnSuspended}

// When says which events are sent (--notify-on).
type When struct {
	// Running: the job was seen running.
	Running bool
	// Suspended: a wait for suspended ended there.
	Suspended bool
	// Finished: the job succeeded, failed, was deleted, or the wait timed
	// out.
	Finished bool
	// Failed: the job failed, was deleted, or the wait timed out.
	Failed bool
}

// ParseWhen reads --notify-on: each value a word of OnValues or a comma
// list of them; a bad one is a usage error.
func ParseWhen(values []string) (When, error) {
	var w When
	if len(values) == 0 {
		return w, exit.UsageErrorf("--notify-on: empty: want %s (a comma list, or repeated)", strings.Join(OnValues, ", "))
	}
	for _, v := range values {
		for _, word := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(word)) {
			case OnRunning:
				w.Running = true
			case OnSuspended:
				w.Suspended = true
			case OnFinished:
				w.Finished = true
			case OnFailed:
				w.Failed = true
			default:
				return w, exit.UsageErrorf("--notify-on %q: want %s (a comma list, or repeated)", word, strings.Join(OnValues, ", "))
			}
		}
	}
	return w, nil
}

// Wants says whether e is sent.
func (w When) Wants(e Event) bool {
	switch e {
	case Running:
		return w.Running
	case Suspended:
		return w.Suspended
	case Succeeded:
		return w.Finished
	case Failed, TimedOut, Deleted:
		return w.Finished || w.Failed
	}
	return false
}
