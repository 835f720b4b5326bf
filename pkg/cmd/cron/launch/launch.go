// Package launch is "easyai cron launch": one run of a schedule, in the
// schedule's launcher pod (the CronJob runs it; people run cron trigger).
package launch

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/cron/cronargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cron"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/render"
)

// Options of cron launch.
type Options struct{ cronargs.Named }

// NewCmdLaunch returns "cron launch" (hidden: the launcher pod's command);
// runF replaces Complete and Run in tests.
func NewCmdLaunch(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: cronargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:    "launch NAME",
		Short:  "One run of a schedule (what its launcher pod runs)",
		Hidden: true,
		Long: `One run of a schedule, as its launcher pod runs it: reads the schedule's job
file (its ConfigMap) and policy (its CronJob), skips the run while a job of the
schedule runs (Forbid) or deletes that job first (Replace), submits the job as
NAME-YYYYMMDD-HHMMSS labelled easyai.io/cron=NAME, then deletes the oldest
finished jobs beyond --keep. Inside the pod it uses the pod's ServiceAccount.`,
	}
	cronargs.TakeName(cmd, f, &o.Name, o, runF)
	return cmd
}

// submit submits the schedule's job file as this run's job, named
// NAME-YYYYMMDD-HHMMSS, labelled with the schedule, of its experiment.
func (o *Options) submit(ctx context.Context, jobFile []byte) error {
	res, err := cmdutil.SubmitJobFile(ctx, o.Factory, cmdutil.JobFileSubmission{
		File: render.ValueFile{Name: "the job file of schedule " + o.Name, Data: jobFile}, Name: cron.RunName(o.Name, o.Factory.Now()),
		Experiment: o.Name, Labels: []string{cron.Label + "=" + o.Name}, Notes: o.Factory.IOStreams.ErrOut,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Factory.IOStreams.Out, "schedule %s: %s\n", o.Name, res.Line)
	return nil
}

// Run is the run.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := cronargs.Client(o.Factory)
	if err != nil {
		return err
	}
	settings, err := c.Settings(ctx, ns, o.Name)
	if err != nil {
		return err
	}
	p, err := o.Factory.Platform()
	if err != nil {
		return err
	}
	jobs, err := p.List(ctx, platform.ListOptions{Selector: cron.Label + "=" + o.Name})
	if err != nil {
		return err
	}
	byName := map[string]*platform.Job{}
	var of []cron.JobOf
	for _, j := range jobs {
		byName[j.Item.Name] = j
		st := j.Item.Status.State
		of = append(of, cron.JobOf{Name: j.Item.Name, Finished: st == jobmodel.Succeeded || st == jobmodel.Failed, Created: j.Item.Created})
	}
	d := cron.Decide(settings.Concurrency, settings.Keep, of)
	out := o.Factory.IOStreams.Out
	if d.Skip != "" {
		fmt.Fprintf(out, "schedule %s: %s still runs: this run submits nothing (concurrency Forbid)\n", o.Name, byName[d.Skip])
		return nil
	}
	for _, name := range d.Replace {
		if err := p.Delete(ctx, byName[name]); err != nil && !exit.IsNotFound(err) {
			return fmt.Errorf("replacing %s: %w", byName[name], err)
		}
		fmt.Fprintf(out, "schedule %s: %s deleted (concurrency Replace)\n", o.Name, byName[name])
	}
	if err := o.submit(ctx, settings.JobFile); err != nil {
		return err
	}
	for _, name := range d.Prune {
		if err := p.Delete(ctx, byName[name]); err != nil && !exit.IsNotFound(err) {
			return fmt.Errorf("deleting %s (--keep %d): %w", byName[name], settings.Keep, err)
		}
		fmt.Fprintf(out, "schedule %s: %s deleted (keeping the %d newest finished)\n", o.Name, byName[name], settings.Keep)
	}
	return nil
}
