package cmdutil

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// JobCommand is the Options of a command on one job: its Steps, and the
// JobOptions it embeds, where the job argument goes.
type JobCommand interface {
	Steps
	jobOptions() *JobOptions
}

func (j *JobOptions) jobOptions() *JobOptions { return j }

// TakeOneJob makes cmd a command on one job: its one argument is the job,
// NAME or KIND/NAME (any other count is a usage error), completed with
// the namespace's jobs. Running cmd puts the argument in o's JobArg and
// runs o's steps; runF replaces Complete and Run in tests.
func TakeOneJob[O JobCommand](cmd *cobra.Command, f *Factory, o O, runF func(O) error) {
	cmd.Args = ExactArgs(1, "a job: NAME or KIND/NAME")
	cmd.ValidArgsFunction = CompleteJob(f)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.jobOptions().JobArg = args[0]
		return RunSteps(cmd.Context(), o, runF)
	}
}

// ReplicaOptions are the options of a command that acts in the replicas of
// one job (exec, run, attach, port-forward, ssh, ssh-config): the job,
// --task, and the executor that runs commands in the replicas' pods.
type ReplicaOptions struct {
	JobOptions
	// Task is --task, a replica as ROLE-INDEX; "" leaves the choice to the
	// command (most take DefaultReplica).
	Task string

	// Set by CompleteReplicas.
	Executor remote.Executor
}

// AddReplicaFlags adds --kind and --task, whose help is what the replica
// is for and byDefault the replica taken without it (AddTaskFlag).
func (r *ReplicaOptions) AddReplicaFlags(cmd *cobra.Command, f *Factory, what, byDefault string) {
	AddKindFlag(cmd, f.Kinds, &r.KindName, "job's")
	AddTaskFlag(cmd, f, &r.Task, what, byDefault)
}

// CompleteReplicas resolves the namespace, the jobs client and the
// executor, and returns the clients, for a command that needs more of
// them.
func (r *ReplicaOptions) CompleteReplicas(f *Factory) (*Replicas, error) {
	c, err := ReplicaClients(f)
	if err != nil {
		return nil, err
	}
	r.Namespace, r.Client = c.Namespace, c.Jobs
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
