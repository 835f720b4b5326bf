// Package delete is "easyai cron delete": a schedule, and with --with-jobs
// the jobs it submitted.
package delete

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/cron/cronargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cron"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// Options of cron delete.
type Options struct {
	cronargs.Named
	Yes      bool
	WithJobs bool
}

// NewCmdDelete returns "cron delete"; runF replaces Complete and Run in tests.
func NewCmdDelete(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: cronargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a schedule (and, with --with-jobs, the jobs it submitted)",
		Long: `Delete a schedule: its CronJob, its ConfigMap and its launcher Jobs. The
training jobs its runs submitted stay, unless --with-jobs: then they are
deleted too. Asks first on a terminal; --yes does not ask (and is needed
without a terminal). A schedule that does not exist exits 3.`,
		Example: `  easyai cron delete nightly --yes
  easyai cron delete nightly --with-jobs --yes`,
	}
	cronargs.TakeName(cmd, f, &o.Name, o, runF)
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "do not ask for confirmation")
	cmd.Flags().BoolVar(&o.WithJobs, "with-jobs", false, "delete the jobs the schedule submitted too")
	return cmd
}

// Run asks (unless --yes) and deletes the schedule.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := cronargs.Client(o.Factory)
	if err != nil {
		return err
	}
	if _, err := c.Get(ctx, ns, o.Name); err != nil {
		return err
	}
	if !o.Yes {
		if !o.Factory.IOStreams.CanPrompt() {
			return exit.UsageErrorf("not deleting schedule %s: pass --yes (there is no terminal to ask on)", o.Name)
		}
		what := ""
		if o.WithJobs {
			what = ", and the jobs it submitted"
		}
		ok, err := o.Factory.Prompter.Confirm(fmt.Sprintf("Delete schedule %s in namespace %s%s?", o.Name, ns, what), false)
		if err != nil {
			return err
		}
		if !ok {
			return exit.Declined("schedule " + o.Name + " not deleted")
		}
	}
	if err := c.Delete(ctx, ns, o.Name); err != nil {
		return err
	}
	out := o.Factory.IOStreams.Out
	fmt.Fprintf(out, "schedule %s deleted from namespace %s\n", o.Name, ns)
	if !o.WithJobs {
		return nil
	}
	p, err := o.Factory.Platform()
	if err != nil {
		return err
	}
	jobs, err := p.List(ctx, platform.ListOptions{Selector: cron.Label + "=" + o.Name})
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if err := p.Delete(ctx, j); err != nil && !exit.IsNotFound(err) {
			return err
		}
		fmt.Fprintf(out, "%s deleted\n", j)
	}
	return nil
}
