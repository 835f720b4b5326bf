// Package resume is "easyai resume JOB": start a suspended job again.
package resume

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/jobcmd"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Options of resume.
type Options struct {
	jobcmd.SuspendOptions
	Force bool
}

// NewCmdResume returns the command; runF replaces Complete and Run in tests.
func NewCmdResume(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{SuspendOptions: jobcmd.SuspendOptions{Factory: f, IO: f.IOStreams}}
	cmd := &cobra.Command{
		Use:   "resume JOB",
		Short: "Resume a suspended training job",
		Long: `Resume a job "easyai suspend" suspended: its operator creates its pods again,
which start from the beginning of their command (a training script resumes
from its own checkpoints, if it wrote any).

Volcano counts every resume of a job as a retry, and fails the job, instead
of running it again, at retry spec.maxRetry (submit --max-retry, default 3).
When this resume would be that retry, resume says so on stderr and asks
before resuming on a terminal; elsewhere it refuses (exit 2) unless --force
is given. "easyai get" of a suspended Volcano job says which retry resuming
uses.

JOB is NAME, or KIND/NAME (tf/mnist), or NAME with --kind. "resumed
KIND/NAME" is printed on stdout once the operator has been asked; --wait
waits until the job runs again. A job that is not suspended is an error
(exit 1).`,
		Example: `  easyai resume mnist
  easyai resume tf/mnist --wait --timeout 10m
  # a Volcano job on its last retry, from a script
  easyai resume volcano/resnet --force`,
	}
	cmdutil.TakeOneJob(cmd, f, o, runF)
	o.AddSuspendFlags(cmd, "wait until the job is running; exit 4 if it fails, 5 on --timeout")
	cmd.Flags().BoolVar(&o.Force, "force", false, "resume even when the resume makes the job's operator fail it (Volcano's last retry)")
	return cmd
}

// Run finds the suspended job, warns and asks when resuming it would fail
// it, and asks its operator to resume it.
func (o *Options) Run(ctx context.Context) error {
	t, err := o.FindSuspendable(ctx, "resumed")
	if err != nil {
		return err
	}
	if state := t.Summary.Status.State; state != jobmodel.Suspended {
		return fmt.Errorf("%s is not suspended: it is %s", t, state)
	}
	if warning := t.Suspender.ResumeWarning(t.Object); warning != "" {
		fmt.Fprintf(o.IO.ErrOut, "Warning: resuming %s: %s\n", t, warning)
		if !o.Force {
			if !o.IO.CanPrompt() {
				return exit.UsageErrorf("not resuming %s: pass --force to resume it anyway (there is no terminal to ask on)", t)
			}
			ok, err := o.Factory.Prompter.Confirm(fmt.Sprintf("Resume %s anyway?", t), false)
			if err != nil {
				return err
			}
			if !ok {
				return exit.Declined("Nothing resumed.")
			}
		}
	}
	next := fmt.Sprintf("Its pods are being created. Wait for them with: %s wait %s --for running", o.Factory.ExecutableName, t)
	return o.Change(ctx, t, t.Suspender.Resume, "resumed", waiter.Running, next)
}
