// Package attach is "easyai attach JOB": an interactive shell in a replica of
// a training job, on a terminal.
package attach

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

// Shell is what attach runs: bash when the image has it, else sh.
var Shell = remote.InteractiveShell

// Options of attach.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	jobcmd.ReplicaOptions

	Container string
	// Command, when set, runs instead of the shell (sh -c COMMAND).
	Command string
}

// NewCmdAttach returns the command; runF replaces Complete and Run in tests.
func NewCmdAttach(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "attach JOB [--task TASK]",
		Short: "Open a shell in a replica of a training job",
		Long: `Open an interactive shell (bash if the image has it, else sh) in one replica
of a training job, on a terminal, as "kubectl exec -it" does. Without --task
it opens in the first of chief, master, launcher and worker-0 (said on stderr).
attach exits with the shell's exit code.

attach needs a terminal on stdin and stdout; --command runs a command of
your own on a remote terminal instead of the shell.`,
		Example: `  easyai attach mnist
  easyai attach tf/mnist --task worker-1
  easyai attach mnist --command 'watch -n1 nvidia-smi'`,
	}
	cmdutil.TakeOneJob(cmd, f, o, runF)
	fl := cmd.Flags()
	o.AddReplicaFlags(cmd, f, "the replica to open the shell in", cmdutil.DefaultReplica)
	fl.StringVarP(&o.Container, "container", "c", "", "the container (default: the pod's default container)")
	fl.StringVar(&o.Command, "command", "", "run this command (sh -c) on a remote terminal instead of the shell")
	return cmd
}

// Validate checks the terminal, the flags and the job argument without
// reaching the cluster.
func (o *Options) Validate() error {
	if o.Command == "" && !(o.IO.IsStdinTTY() && o.IO.IsStdoutTTY()) {
		return exit.UsageErrorf("attach opens an interactive shell and needs a terminal: use --command, or easyai exec JOB -- COMMAND")
	}
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the namespace and the clients.
func (o *Options) Complete() error {
	_, err := o.CompleteReplicas(o.Factory)
	return err
}

// Run finds the replica and runs the shell (or --command) on a terminal.
func (o *Options) Run(ctx context.Context) error {
	j, r, err := o.FindRunnable(ctx, o.IO.ErrOut)
	if err != nil {
		return err
	}
	if _, waits := remote.Waiting(j)[r.Task]; waits {
		fmt.Fprintf(o.IO.ErrOut, "%s is in debug mode: its command waits. Start it with: easyai run %s --task %s\n", r.Task, j.Object.GetName(), r.Task)
	}
	command := Shell
	if o.Command != "" {
		command = []string{"sh", "-c", o.Command}
	}
	return remote.Attach(ctx, o.Executor, o.Namespace, r.Pod, r.Task, o.Container, command, o.IO.In, o.IO.Out, o.IO.IsStdinTTY())
}
