// Package suspend is "easyai cron suspend": stop a schedule's runs until it is resumed.
package suspend

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/cron/cronargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// Options of cron suspend.
type Options struct{ cronargs.Named }

// NewCmdSuspend returns "cron suspend"; runF replaces Complete and Run in tests.
func NewCmdSuspend(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: cronargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "suspend NAME",
		Short: "Stop a schedule's runs until it is resumed",
		Long: `Suspend a schedule: no run starts until "easyai cron resume NAME". Jobs it
submitted, and a run already started, go on.`,
		Example: "  easyai cron suspend nightly",
	}
	cronargs.TakeName(cmd, f, &o.Name, o, runF)
	return cmd
}

// Run suspends the schedule.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := cronargs.Client(o.Factory)
	if err != nil {
		return err
	}
	if err := c.SetSuspended(ctx, ns, o.Name, true); err != nil {
		return err
	}
	fmt.Fprintf(o.Factory.IOStreams.Out, "schedule %s suspended\n", o.Name)
	return nil
}
