package cmdutil

import (
	"context"
	"fmt"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
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
	// Document prints the job's document on stdout once the wait ended
	// (wait -o json); nil prints nothing there.
	Document printers.DocumentPrinter
	// Then (when not nil) gets the wait's error (nil: reached) before
	// anything is printed, e.g. to let a log stream finish first.
	Then func(error)
}

// Run waits and reports how the wait ended: the final state on stderr, and
// the job's document through Document. Its error carries the exit code
// (4 failed, 5 timed out, 3 deleted).
func (w *Wait) Run(ctx context.Context) error {
	waited, err := w.Platform.Wait(ctx, w.Job, platform.WaitRequest{For: w.For, Timeout: w.Timeout, Document: w.Document != nil})
	if w.Then != nil {
		w.Then(err)
	}
	if waited == nil || exit.Code(err) == exit.Interrupted {
		return err
	}
	if err == nil {
		fmt.Fprintln(w.IO.ErrOut, waited.Line)
	}
	if w.Document == nil || waited.Document == nil {
		return err
	}
	if perr := w.Document.PrintDocument(w.IO.Out, waited.Document); perr != nil && err == nil {
		return perr
	}
	return err
}

// WaitFor finds the job ref names on the factory's platform and waits for
// it, reporting on stderr only (suspend --wait, resume --wait).
func WaitFor(ctx context.Context, f *Factory, ref jobclient.Ref, c waiter.Condition, timeout time.Duration) error {
	p, err := f.Platform()
	if err != nil {
		return err
	}
	job, err := p.Find(ctx, ref)
	if err != nil {
		return err
	}
	return (&Wait{IO: f.IOStreams, Platform: p, Job: job, For: c, Timeout: timeout}).Run(ctx)
}
