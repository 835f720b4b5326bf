// Package wait is "easyai pipeline wait": until every step has succeeded,
// one has failed, or the timeout.
package wait

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/pipelineargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// Options of pipeline wait.
type Options struct {
	pipelineargs.Named
	Timeout time.Duration
}

// NewCmdWait returns "pipeline wait"; runF replaces Complete and Run in tests.
func NewCmdWait(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: pipelineargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "wait NAME",
		Short: "Wait until a pipeline has succeeded or failed",
		Long: `Wait until every step of the pipeline has succeeded (exit 0), a step has
failed (exit 4, naming it and the steps that will never run: Volcano's JobFlow
creates no step after a failed one), or --timeout has passed (exit 5, naming
the steps not done). Each step's change of state is said on stderr. A
pipeline that does not exist exits 3.`,
		Example: `  easyai pipeline wait nightly --timeout 6h && echo all steps succeeded`,
	}
	pipelineargs.TakeName(cmd, f, &o.Name, o, runF)
	cmd.Flags().DurationVar(&o.Timeout, "timeout", 24*time.Hour, "give up after this long (exit 5)")
	return cmd
}

// Validate checks the name and the timeout.
func (o *Options) Validate() error {
	if o.Timeout <= 0 {
		return exit.UsageErrorf("--timeout %s: must be positive", o.Timeout)
	}
	return o.Named.Validate()
}

// Run waits.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := pipelineargs.Client(o.Factory)
	if err != nil {
		return err
	}
	st, err := c.Wait(ctx, ns, o.Name, o.Timeout, o.Factory.IOStreams.ErrOut, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Factory.IOStreams.Out, "pipeline %s succeeded: %d steps\n", st.Name, len(st.Steps))
	return nil
}
