package cmdutil

import (
	"context"

	"github.com/easyai-dev/easyai/pkg/printers"
)

// Steps are the stages of a command's Options: Validate checks the flags and
// arguments without reaching the cluster, Complete resolves the namespace and
// clients, Run does the work.
type Steps interface {
	Validate() error
	Complete() error
	Run(ctx context.Context) error
}

// RunSteps runs a command's stages in order. In tests, runF (when not nil)
// receives the validated options instead of Complete and Run.
func RunSteps[O Steps](ctx context.Context, o O, runF func(O) error) error {
	if err := o.Validate(); err != nil {
		return err
	}
	if runF != nil {
		return runF(o)
	}
	if err := o.Complete(); err != nil {
		return err
	}
	return o.Run(ctx)
}

// Printing is the part of a command's Options that only reads and prints:
// its -o, which Validate checks; Complete has nothing to resolve.
type Printing struct {
	Print *printers.PrintFlags
}

// Validate checks -o.
func (p *Printing) Validate() error { return p.Print.Validate() }

// Complete has nothing to resolve.
func (p *Printing) Complete() error { return nil }
