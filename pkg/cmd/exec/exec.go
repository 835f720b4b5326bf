// Package exec is "easyai exec JOB -- COMMAND": run a command in a replica of
// a training job, or in all of its running replicas at once.
package exec

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/jobcmd"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// Options of exec.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	jobcmd.ReplicaOptions
	jobcmd.AllReplicas

	Container string
	Stdin     bool
	Command   []string
}

// NewCmdExec returns the command; runF replaces Complete and Run in tests.
func NewCmdExec(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "exec JOB [--task TASK | --all] [-c CONTAINER] -- COMMAND [ARGS...]",
		Short: "Run a command in a replica of a training job",
		Long: `Run a command in the container of one replica of a training job, as
"kubectl exec" does, and exit with the command's exit code.

Without --task the command runs in the first of chief, master, launcher and
worker-0 (said on stderr). --all runs it in every running replica in
parallel (at most --max-parallel at once), each line of output prefixed with
its replica ("[worker-0] "); it exits 1 if the command failed in any of them,
naming those on stderr.

stdin is passed to the command only with -i. For an interactive shell, use
"easyai attach".`,
		Example: `  easyai exec mnist -- nvidia-smi
  easyai exec tf/mnist --task worker-1 -- ls /data
  easyai exec mnist --all -- df -h /dev/shm
  tar c data | easyai exec mnist -i -- tar x -C /tmp`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: cmdutil.CompleteJob(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash != 1 || len(args) < 2 {
				return exit.UsageErrorf(`name one job and put the command after "--" (easyai exec JOB -- COMMAND)`)
			}
			o.JobArg, o.Command = args[0], args[1:]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	fl := cmd.Flags()
	o.AddReplicaFlags(cmd, f, "the replica to run in", cmdutil.DefaultReplica)
	o.AddAllFlags(cmd, "run in every running replica at once, prefixing each line of output", "with --all: most replicas the command runs in at once")
	fl.StringVarP(&o.Container, "container", "c", "", "the container (default: the pod's default container)")
	fl.BoolVarP(&o.Stdin, "stdin", "i", false, "pass stdin to the command")
	return cmd
}

// Validate checks the flags and the job argument without reaching the cluster.
func (o *Options) Validate() error {
	if err := o.ValidateAll(o.Task, "every replica"); err != nil {
		return err
	}
	if o.All && o.Stdin {
		return exit.UsageErrorf("--all cannot pass stdin (-i) to many replicas")
	}
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the namespace and the clients.
func (o *Options) Complete() error {
	_, err := o.CompleteReplicas(o.Factory)
	return err
}

// Run finds the job's replicas and runs the command.
func (o *Options) Run(ctx context.Context) error {
	if o.All {
		return o.runAll(ctx)
	}
	_, r, err := o.FindRunnable(ctx, o.IO.ErrOut)
	if err != nil {
		return err
	}
	s := remote.Streams{Stdout: o.IO.Out, Stderr: o.IO.ErrOut}
	if o.Stdin {
		s.Stdin = o.IO.In
	}
	return remote.ExecIn(ctx, o.Executor, o.Namespace, r, o.Container, o.Command, s, "exec")
}

// runAll runs the command in every running replica of the job at once.
func (o *Options) runAll(ctx context.Context) error {
	j, err := o.FindJob(ctx)
	if err != nil {
		return err
	}
	running := remote.Running(j.Replicas)
	if len(running) == 0 {
		return fmt.Errorf("no replica of %s is running", j)
	}
	failures := remote.RunAll(ctx, o.Executor, o.Namespace, o.Container, running, o.Command, o.Parallel, o.IO.Out, o.IO.ErrOut)
	return remote.FailedIn(failures, len(running))
}
