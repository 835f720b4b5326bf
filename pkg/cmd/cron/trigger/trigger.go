// Package trigger is "easyai cron trigger": one run of a schedule now.
package trigger

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/cron/cronargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// Options of cron trigger.
type Options struct{ cronargs.Named }

// NewCmdTrigger returns "cron trigger"; runF replaces Complete and Run in tests.
func NewCmdTrigger(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: cronargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "trigger NAME",
		Short: "Run a schedule once now",
		Long: `Run a schedule once now, as its time had come: a launcher Job of the CronJob's
template (kubectl create job --from=cronjob/NAME makes the same), which
submits the job with the schedule's concurrency policy; on Volcano's CronJob
(--backend volcano) the run's Volcano Job itself, named NAME-YYYYMMDD-HHMMSS.
A suspended schedule runs too. Its name is printed; easyai cron get NAME shows the job it submits.`,
		Example: `  easyai cron trigger nightly`,
	}
	cronargs.TakeName(cmd, f, &o.Name, o, runF)
	return cmd
}

// Run starts the run.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := cronargs.Client(o.Factory)
	if err != nil {
		return err
	}
	made, err := c.Trigger(ctx, ns, o.Name)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Factory.IOStreams.Out, "schedule %s triggered: %s\n", o.Name, made)
	return nil
}
