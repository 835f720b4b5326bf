// Package resume is "easyai cron resume": run a suspended schedule again at its times.
package resume

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/cron/cronargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// Options of cron resume.
type Options struct{ cronargs.Named }

// NewCmdResume returns "cron resume"; runF replaces Complete and Run in tests.
func NewCmdResume(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: cronargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "resume NAME",
		Short: "Run a suspended schedule again at its times",
		Long: `Resume a suspended schedule: it runs again at its next time (the times
missed while it was suspended are not run).`,
		Example: "  easyai cron resume nightly",
	}
	cronargs.TakeName(cmd, f, &o.Name, o, runF)
	return cmd
}

// Run resumes the schedule.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := cronargs.Client(o.Factory)
	if err != nil {
		return err
	}
	if err := c.SetSuspended(ctx, ns, o.Name, false); err != nil {
		return err
	}
	fmt.Fprintf(o.Factory.IOStreams.Out, "schedule %s resumed\n", o.Name)
	return nil
}
