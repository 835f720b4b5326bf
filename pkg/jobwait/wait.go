// Package jobwait is one wait on a job, on any platform, and its report:
// the state reached on stderr, the job's document on stdout (-o), and the
// webhooks told how the wait ended (--notify, --notify-on, NotifyFlags).
// wait, submit --wait, suspend --wait, resume --wait and notebook --wait
// run it.
package jobwait

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kueue"
	"github.com/easyai-dev/easyai/pkg/notify"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Wait is one wait on a job found or just created, as wait, suspend --wait,
// resume --wait and submit --wait do it, on any platform.
type Wait struct {
	IO       *iostreams.IOStreams
	Platform platform.Platform
	Job      *platform.Job
	For      waiter.Condition
	// Timeout bounds the wait (0: none).
	Timeout time.Duration
	// StuckAfter is how long a pod may stay in a crash loop, or wait for a
	// missing Secret or ConfigMap, before the wait ends with exit 4 (0:
	// waits them out).
	StuckAfter time.Duration
	// Document prints the job's document on stdout once the wait ended
	// (wait -o json); nil prints nothing there.
	Document printers.DocumentPrinter
	// Then (when not nil) gets the wait's error (nil: reached) before
	// anything is printed, e.g. to let a log stream finish first.
	Then func(error)
	// Notify (when not nil) tells webhooks how the wait ended, and that
	// the job was seen running, as its When asks (--notify). What it does
	// never changes the wait's error.
	Notify *notify.Notifier
}

// Run waits and reports how the wait ended: the final state on stderr, the
// job's document through Document, and the notifications. Its error
// carries the exit code (4 failed, 5 timed out, 3 deleted).
func (w *Wait) Run(ctx context.Context) error {
	req := platform.WaitRequest{For: w.For, Timeout: w.Timeout, StuckAfter: w.StuckAfter, Document: w.Document != nil || w.Notify != nil}
	// The running notification is sent beside the wait, which goes on
	// watching meanwhile; it is over before anything more is said.
	var running sync.WaitGroup
	if w.Notify != nil && w.Notify.When.Running && w.For != waiter.Running {
		req.Started = func(doc *jobmodel.Document) {
			running.Go(func() { w.Notify.Notify(ctx, w.outcome(notify.Running, doc)) })
		}
	}
	waited, err := w.waitForQuota(ctx, &req)
	if err == nil {
		waited, err = w.Platform.Wait(ctx, w.Job, req)
	}
	running.Wait()
	if w.Then != nil {
		w.Then(err)
	}
	if waited == nil && exit.Code(err) != exit.NotFound || exit.Code(err) == exit.Interrupted {
		return err
	}
	event, notifies := eventOf(err, waited, w.For)
	var doc *jobmodel.Document
	if waited != nil {
		doc = waited.Document
		if err == nil && w.Document != nil && doc == nil && waited.DocumentErr != nil {
			// The document is what -o asked for: not reading it fails the command.
			err = waited.DocumentErr
		}
		if err == nil {
			fmt.Fprintln(w.IO.ErrOut, waited.Line)
		}
	}
	if w.Document != nil && doc != nil {
		if perr := w.Document.PrintDocument(w.IO.Out, doc); perr != nil && err == nil {
			err = perr
		}
	}
	if notifies && w.Notify != nil {
		w.Notify.Notify(ctx, w.outcome(event, doc))
	}
	return err
}

// waitForQuota waits, before anything else, for Kueue to admit a job in a
// Kueue LocalQueue that it has not admitted yet: the wait for quota, said
// apart from the wait for pods ("tf/mnist admitted after 2m: ..."), which
// goes on with the rest of the timeout.
func (w *Wait) waitForQuota(ctx context.Context, req *platform.WaitRequest) (*platform.Waited, error) {
	if (w.For != waiter.Running && w.For != waiter.Finished && w.For != waiter.Succeeded) || w.Job.Item.Labels[kueue.QueueLabel] == "" {
		return nil, nil
	}
	if a := w.Job.Item.Admission; a != nil && (a.State == jobmodel.AdmissionAdmitted || a.State == jobmodel.AdmissionFinished) {
		return nil, nil
	}
	start := time.Now()
	waited, err := w.Platform.Wait(ctx, w.Job, platform.WaitRequest{For: waiter.Admitted, Timeout: req.Timeout})
	if err != nil {
		return waited, err
	}
	fmt.Fprintln(w.IO.ErrOut, waited.Line)
	if req.Timeout > 0 {
		if req.Timeout -= time.Since(start); req.Timeout <= 0 {
			req.Timeout = time.Nanosecond
		}
	}
	return nil, nil
}

// outcome is the notification's outcome of event, doc the job's document
// then (nil: the job as found before the wait).
func (w *Wait) outcome(event notify.Event, doc *jobmodel.Document) notify.Outcome {
	if doc == nil {
		doc = &jobmodel.Document{APIVersion: jobmodel.APIVersion, Item: w.Job.Item,
			Replicas: []jobmodel.Replica{}, Events: []jobmodel.Event{}}
		doc.DocumentKind = jobmodel.JobDocumentKind
	}
	return notify.Outcome{Event: event, Job: doc, Where: w.Platform.Where(), Timeout: w.Timeout}
}

// eventOf is the event of how a wait ended (err its error, c what it
// waited for); false when nothing is notified: the wait itself failed (the
// API was not reached, ...).
func eventOf(err error, waited *platform.Waited, c waiter.Condition) (notify.Event, bool) {
	switch exit.Code(err) {
	case exit.JobFailed:
		return notify.Failed, true
	case exit.Timeout:
		return notify.TimedOut, true
	case exit.NotFound:
		return notify.Deleted, true
	case exit.OK:
	default:
		return "", false
	}
	// Reached: the document, read last, says the state.
	if waited != nil && waited.Document != nil {
		switch waited.Document.Status.State {
		case jobmodel.Succeeded:
			return notify.Succeeded, true
		case jobmodel.Failed:
			return notify.Failed, true
		case jobmodel.Running:
			return notify.Running, true
		case jobmodel.Suspended:
			return notify.Suspended, true
		}
	}
	switch c {
	case waiter.Running:
		return notify.Running, true
	case waiter.Suspended:
		return notify.Suspended, true
	}
	return notify.Succeeded, true
}

// For finds the job ref names on the platform and waits for it, reporting
// on stderr only (suspend --wait, resume --wait). platformOf (the
// factory's Platform) is called then, not before.
func For(ctx context.Context, io *iostreams.IOStreams, platformOf func() (platform.Platform, error), ref kinds.Ref, c waiter.Condition, timeout time.Duration) error {
	p, err := platformOf()
	if err != nil {
		return err
	}
	job, err := p.Find(ctx, ref)
	if err != nil {
		return err
	}
	return (&Wait{IO: io, Platform: p, Job: job, For: c, Timeout: timeout, StuckAfter: waiter.DefaultStuckAfter}).Run(ctx)
}
