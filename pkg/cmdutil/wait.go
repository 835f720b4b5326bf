package cmdutil

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Wait is one wait on a job found or just created, as wait, suspend --wait,
// resume --wait and submit --wait do it.
type Wait struct {
	IO     *iostreams.IOStreams
	Now    func() time.Time
	Client *jobclient.Client
	Kind   kinds.Kind
	Object *unstructured.Unstructured
	For    waiter.Condition
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
	res, err := waiter.Wait(ctx, waiter.Request{
		Dynamic: w.Client.Dynamic, Kind: w.Kind, GPUResource: w.Client.GPUResource,
		Object: w.Object, For: w.For, Timeout: w.Timeout, Now: w.Now,
	})
	if w.Then != nil {
		w.Then(err)
	}
	if res == nil || exit.Code(err) == exit.Interrupted {
		return err
	}
	if err == nil {
		fmt.Fprintln(w.IO.ErrOut, res.Line(w.Kind))
	}
	if w.Document == nil {
		return err
	}
	// A fresh context: the wait's may have run out, the document is still due.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	d, derr := w.Client.Describe(dctx, w.Kind, res.Object)
	if derr != nil {
		if err != nil {
			return err
		}
		return derr
	}
	WarnUnreadRequest(w.IO, d)
	if perr := w.Document.PrintDocument(w.IO.Out, jobclient.DocumentOf(d, w.Now())); perr != nil && err == nil {
		return perr
	}
	return err
}

// WarnUnreadRequest says on stderr that a described job's request annotation
// could not be read (edited into bad JSON), and where its image and command
// come from instead.
func WarnUnreadRequest(io *iostreams.IOStreams, d *jobclient.Details) {
	if d.RequestErr != nil {
		fmt.Fprintf(io.ErrOut, "Warning: %s/%s: %v: its image and command are read from its pod templates\n", d.Kind.Name(), d.Object.GetName(), d.RequestErr)
	}
}
