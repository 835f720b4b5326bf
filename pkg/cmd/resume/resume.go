// Package resume is "easyai resume JOB": start a suspended job again.
package resume

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Options of resume.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	cmdutil.JobOptions

	// Wait until the job is running (--wait), at most Timeout.
	Wait    bool
	Timeout time.Duration
	Force   bool
}

// NewCmdResume returns the command; runF replaces Complete and Run in tests.
func NewCmdResume(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
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
		Args:              cmdutil.ExactArgs(1, "a job: NAME or KIND/NAME"),
		ValidArgsFunction: cmdutil.CompleteJob(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JobArg = args[0]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	cmdutil.AddKindFlag(cmd, f.Kinds, &o.KindName, "job's")
	cmdutil.AddWaitFlags(cmd, &o.Wait, "wait until the job is running; exit 4 if it fails, 5 on --timeout", &o.Timeout, 10*time.Minute)
	cmd.Flags().BoolVar(&o.Force, "force", false, "resume even when the resume makes the job's operator fail it (Volcano's last retry)")
	return cmd
}

// Validate checks the job argument without reaching the cluster.
func (o *Options) Validate() error {
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the namespace and the client.
func (o *Options) Complete() error { return o.CompleteJob(o.Factory) }

// Run finds the suspended job, warns and asks when resuming it would fail
// it, and asks its operator to resume it.
func (o *Options) Run(ctx context.Context) error {
	t, err := o.Client.FindSuspendable(ctx, o.Namespace, o.Ref, "resumed")
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
	if err := t.DeletedSinceFound(t.Suspender.Resume(ctx, o.Client.Dynamic, t.Object), o.Namespace); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "resumed %s\n", t)
	if o.Wait {
		return cmdutil.WaitFor(ctx, o.Factory, jobclient.Ref{Kind: t.Kind, Name: t.Object.GetName()}, waiter.Running, o.Timeout)
	}
	if o.IO.IsStderrTTY() {
		fmt.Fprintf(o.IO.ErrOut, "Its pods are being created. Wait for them with: %s wait %s --for running\n", o.Factory.ExecutableName, t)
	}
	return nil
}
