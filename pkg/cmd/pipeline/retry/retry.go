// Package retry is "easyai pipeline retry": a new run of a pipeline from a
// step, reusing what the steps before it wrote.
package retry

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/pipelineargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// Options of pipeline retry.
type Options struct {
	pipelineargs.Launch
	pipelineargs.Named

	From    string
	NewName string
}

// NewCmdRetry returns "pipeline retry"; runF replaces Complete and Run in tests.
func NewCmdRetry(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Launch: pipelineargs.NewLaunch(f), Named: pipelineargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "retry NAME --from STEP",
		Short: "Run a pipeline again from a step, reusing what the steps before it wrote",
		Long: `Run a pipeline again from a step: a new pipeline (--name, else NAME-r2, NAME-r3,
...) of that step and every step after it, each a job of the values submit
recorded for it (its JobTemplate's), in a new job directory. The steps before
it are not run again: they must have succeeded, and a step that started from
one of their model_dirs starts from the same directory; a step that started
from a step run again starts from that step's new run. The old pipeline is
left as it is (easyai pipeline delete NAME removes it).

--wait, --timeout, --dry-run and -o are run's.`,
		Example: `  # train failed: fix its data, then run train and what follows again
  easyai pipeline retry nightly --from train --wait`,
	}
	pipelineargs.TakeName(cmd, f, &o.Name, o, runF)
	cmd.Flags().StringVar(&o.From, "from", "", "the first step to run again (required)")
	cmd.Flags().StringVar(&o.NewName, "name", "", "the new pipeline's name (default: NAME-rN, the first not taken)")
	o.AddFlags(cmd)
	return cmd
}

// Validate checks the flags without the cluster.
func (o *Options) Validate() error {
	if o.From == "" {
		return exit.UsageErrorf("--from STEP is required: the first step to run again")
	}
	if err := o.Named.Validate(); err != nil {
		return err
	}
	return o.Launch.Validate()
}

// Complete has nothing to resolve: Run works through the factory's clients.
func (o *Options) Complete() error { return nil }

// Run makes the new run's pipeline file from the old pipeline's templates
// and runs it.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := pipelineargs.Client(o.Named.Factory)
	if err != nil {
		return err
	}
	name := o.NewName
	if name == "" {
		if name, err = c.RetryName(ctx, ns, o.Name); err != nil {
			return err
		}
	}
	f, err := c.RetryFile(ctx, ns, o.Name, o.From, name)
	if err != nil {
		return err
	}
	source := "retry of pipeline " + o.Name
	if err := f.Validate(source); err != nil {
		return err
	}
	return o.Launch.Run(ctx, f, source)
}
