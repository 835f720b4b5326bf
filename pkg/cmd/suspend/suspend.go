// Package suspend is "easyai suspend JOB": stop a job's pods and keep the
// job, to resume it later with "easyai resume".
package suspend

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/jobcmd"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Options of suspend.
type Options struct {
	jobcmd.SuspendOptions
}

// NewCmdSuspend returns the command; runF replaces Complete and Run in tests.
func NewCmdSuspend(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{SuspendOptions: jobcmd.SuspendOptions{Factory: f, IO: f.IOStreams}}
	cmd := &cobra.Command{
		Use:   "suspend JOB",
		Short: "Suspend a training job: stop its pods, keep the job",
		Long: `Suspend a running or pending training job: its operator deletes the job's
pods (and frees their GPUs) but keeps the job, its spec and its history, so
that "easyai resume" starts it again with new pods. Whatever a replica did
not save to storage is lost.

Training-operator jobs (tf, pytorch, mpi, xgboost, paddle, jax) are suspended
through spec.runPolicy.suspend. Volcano jobs are aborted through a Volcano
Command; resuming one counts as one of its retries (see "easyai resume").

JOB is NAME, or KIND/NAME (tf/mnist), or NAME with --kind. "suspended
KIND/NAME" is printed on stdout once the operator has been asked; the pods go
away within seconds ("easyai get" shows the job Suspended); --wait waits
until the job is suspended.

A job already suspended or finished is an error (exit 1), as is a job whose
kind cannot be suspended (exit 2).`,
		Example: `  easyai suspend mnist
  easyai suspend tf/mnist
  easyai suspend resnet --kind volcano
  # later
  easyai resume mnist`,
	}
	cmdutil.TakeOneJob(cmd, f, o, runF)
	o.AddSuspendFlags(cmd, "wait until the job is suspended; exit 4 if it fails, 5 on --timeout")
	return cmd
}

// Run finds the job, checks that it can be suspended and asks its operator to.
func (o *Options) Run(ctx context.Context) error {
	t, err := o.FindSuspendable(ctx, "suspended")
	if err != nil {
		return err
	}
	switch state := t.Summary.Status.State; {
	case state == jobmodel.Suspended:
		return fmt.Errorf("%s is already suspended", t)
	case state.Final():
		return fmt.Errorf("%s has finished (%s): there is nothing to suspend", t, state)
	}
	next := fmt.Sprintf("Its pods are being deleted. Resume it with: %s resume %s", o.Factory.ExecutableName, t)
	return o.Change(ctx, t, t.Suspender.Suspend, "suspended", waiter.Suspended, next)
}
