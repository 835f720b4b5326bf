// Package jobcmd holds the options that commands on one job share beyond
// naming it (cmdutil.JobOptions): acting in its replicas (ReplicaOptions,
// AllReplicas: exec, run, attach, port-forward, ssh, ssh-config), reaching
// them over ssh (SSHOptions: ssh, ssh-config) and suspending or resuming
// it (SuspendOptions). They bind the commands to the engines (remote,
// sshaccess, jobwait), which keeps pkg/cmdutil itself a toolbox of flags,
// completion, steps and output.
package jobcmd

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// ReplicaOptions are the options of a command that acts in the replicas of
// one job (exec, run, attach, port-forward, ssh, ssh-config): the job,
// --task, and the executor that runs commands in the replicas' pods.
type ReplicaOptions struct {
	cmdutil.JobOptions
	// Task is --task, a replica as ROLE-INDEX; "" leaves the choice to the
	// command (most take cmdutil.DefaultReplica).
	Task string

	// Set by CompleteReplicas.
	Executor remote.Executor
}

// AddReplicaFlags adds --kind and --task, whose help is what the replica
// is for and byDefault the replica taken without it (cmdutil.AddTaskFlag).
func (r *ReplicaOptions) AddReplicaFlags(cmd *cobra.Command, f *cmdutil.Factory, what, byDefault string) {
	cmdutil.AddKindFlag(cmd, f.Kinds, &r.KindName, "job's")
	cmdutil.AddTaskFlag(cmd, f, &r.Task, what, byDefault)
}

// CompleteReplicas resolves the namespace, the jobs client and the
// executor, and returns the clients, for a command that needs more of
// them.
func (r *ReplicaOptions) CompleteReplicas(f *cmdutil.Factory) (*remote.Clients, error) {
	c, err := r.JobOptions.CompleteReplicas(f)
	if err != nil {
		return nil, err
	}
	r.Executor = c.Executor()
	return c, nil
}

// FindJob finds the job and its replicas.
func (r *ReplicaOptions) FindJob(ctx context.Context) (*remote.Job, error) {
	return remote.FindJob(ctx, r.Client, r.Namespace, r.Ref)
}

// FindRunnable finds the job and the replica a command runs in: --task's,
// else the default replica, said on notes; its pod must run.
func (r *ReplicaOptions) FindRunnable(ctx context.Context, notes io.Writer) (*remote.Job, jobmodel.Replica, error) {
	j, err := r.FindJob(ctx)
	if err != nil {
		return nil, jobmodel.Replica{}, err
	}
	replica, err := j.RunnableReplica(r.Task, notes)
	return j, replica, err
}

// AllReplicas are --all and --max-parallel of a command that runs in one
// replica, or with --all in many at once (exec, run).
type AllReplicas struct {
	All bool
	// Parallel is --max-parallel: the most replicas it runs in at once.
	Parallel int
}

// AddAllFlags adds --all and --max-parallel (default
// remote.DefaultMaxParallel), all and parallel being their help.
func (a *AllReplicas) AddAllFlags(cmd *cobra.Command, all, parallel string) {
	cmd.Flags().BoolVar(&a.All, "all", false, all)
	cmd.Flags().IntVar(&a.Parallel, "max-parallel", remote.DefaultMaxParallel, parallel)
}

// ValidateAll refuses --all with a --task (task), every saying which
// replicas --all runs in, and a --max-parallel below 1.
func (a *AllReplicas) ValidateAll(task, every string) error {
	if a.All && task != "" {
		return exit.UsageErrorf("--all runs in %s: not with --task", every)
	}
	if a.Parallel < 1 {
		return exit.UsageErrorf("--max-parallel %d: must be at least 1", a.Parallel)
	}
	return nil
}
