// Package run is "easyai run JOB": start the command of a job submitted in
// debug mode (submit --debug) in the replicas that wait for it.
package run

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/jobcmd"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// Options of run.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	jobcmd.ReplicaOptions
	jobcmd.AllReplicas
}

// NewCmdRun returns the command; runF replaces Complete and Run in tests.
func NewCmdRun(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "run JOB [--task TASK | --all]",
		Short: "Start the command of a job in debug mode",
		Long: `Start the command of a job submitted with --debug in a replica that waits
for it, stream its output and exit with its exit code.

The command is the one the job was submitted with, as its pods' spec keeps
it (the env EASYAI_COMMAND); it runs through exec, in the replica's container
and working directory, under /bin/sh -c. Its output comes to this terminal
only: it is not copied into the storage's log_dir. Ctrl-C ends this command;
the replica keeps waiting and "easyai run" can start the command again.

Without --task it runs in the first replica that waits (said on stderr);
--all runs it in every running replica that waits, in parallel, each line
prefixed with its replica ("[worker-0] "), and exits 1 if it failed in any.

A job not in debug mode is refused (exit 2): use "easyai exec".`,
		Example: `  easyai submit tf --debug --workers 2 --image IMAGE -- python train.py
  easyai attach mnist                   # look around first
  easyai run mnist --task worker-0
  easyai run mnist --all`,
	}
	cmdutil.TakeOneJob(cmd, f, o, runF)
	o.AddReplicaFlags(cmd, f, "the replica to start the command in", "the first that waits")
	o.AddAllFlags(cmd, "start it in every running replica that waits, prefixing each line of output", "with --all: most replicas it runs in at once")
	return cmd
}

// Validate checks the flags and the job argument without reaching the cluster.
func (o *Options) Validate() error {
	if err := o.ValidateAll(o.Task, "every replica that waits"); err != nil {
		return err
	}
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the namespace and the clients.
func (o *Options) Complete() error {
	_, err := o.CompleteReplicas(o.Factory)
	return err
}

// Run finds the replicas that wait and starts the command in them.
func (o *Options) Run(ctx context.Context) error {
	j, err := o.FindJob(ctx)
	if err != nil {
		return err
	}
	name := j.String()
	if j.Object.GetLabels()[jobmodel.DebugLabel] != "true" {
		return exit.UsageErrorf("%s is not in debug mode (easyai submit --debug): to run a command in it, use easyai exec", name)
	}
	if len(j.Pods) > 0 && !remote.KeepsCommand(j) {
		return exit.UsageErrorf("%s is in its kind's own debug mode, which keeps no command for easyai run: start the training with easyai exec (docs/debug.md)", name)
	}
	waiting := remote.Waiting(j)
	if o.All {
		return o.runAll(ctx, j, name, waiting)
	}
	var r jobmodel.Replica
	if o.Task != "" {
		if r, err = remote.FindReplica(j.Replicas, o.Task); err != nil {
			return err
		}
		if _, ok := waiting[r.Task]; !ok {
			return exit.UsageErrorf("--task %s: this replica runs its command already (waiting in debug mode: %s)", r.Task, strings.Join(names(j.Replicas, waiting), ", "))
		}
	} else {
		running := remote.Running(j.Replicas)
		found := false
		for _, c := range running {
			if _, ok := waiting[c.Task]; ok {
				r, found = c, true
				break
			}
		}
		if !found {
			return fmt.Errorf("no replica of %s that waits for its command is running (waiting: %s)", name, strings.Join(names(j.Replicas, waiting), ", "))
		}
		fmt.Fprintf(o.IO.ErrOut, "Running the command in %s (use --task to choose)\n", r.Task)
	}
	if err := remote.Runnable(r); err != nil {
		return err
	}
	s := remote.Streams{Stdout: o.IO.Out, Stderr: o.IO.ErrOut}
	return remote.ExecIn(ctx, o.Executor, o.Namespace, r, "", remote.Shell(waiting[r.Task]), s, "run")
}

func (o *Options) runAll(ctx context.Context, j *remote.Job, name string, waiting map[string]string) error {
	var targets []jobmodel.Replica
	command := ""
	for _, r := range remote.Running(j.Replicas) {
		if c, ok := waiting[r.Task]; ok {
			targets = append(targets, r)
			command = c
		}
	}
	if len(targets) == 0 {
		return fmt.Errorf("no replica of %s that waits for its command is running", name)
	}
	// Every replica of a job keeps the same command (a role's own command
	// differs only between roles: run those with --task).
	for _, r := range targets {
		if waiting[r.Task] != command {
			return exit.UsageErrorf("the replicas that wait run different commands (roles of their own): start each with --task")
		}
	}
	failures := remote.RunAll(ctx, o.Executor, o.Namespace, "", targets, remote.Shell(command), o.Parallel, o.IO.Out, o.IO.ErrOut)
	return remote.FailedIn(failures, len(targets))
}

func names(replicas []jobmodel.Replica, waiting map[string]string) []string {
	var out []string
	for _, r := range replicas {
		if _, ok := waiting[r.Task]; ok {
			out = append(out, r.Task)
		}
	}
	if len(out) == 0 {
		return []string{"none"}
	}
	return out
}
