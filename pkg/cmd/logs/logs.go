// Package logs is "easyai logs JOB": the logs of a job's replicas, merged
// under [ROLE-INDEX] prefixes, and with -f followed until the job ends.
package logs

import (
	"context"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/kube"
	logsengine "github.com/easyai-dev/easyai/pkg/logs"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// Options of logs.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	cmdutil.JobOptions

	// Request holds the flags (which replicas and containers, how much, -f);
	// Complete sets its Persisted, Run the job and the clients.
	Request logsengine.Request
}

// long is logs' help.
const long = `Print the logs of a training job's replicas, each line prefixed with its
replica: [worker-0], [ps-0], ... (coloured per replica on a terminal). A pod of
several containers prefixes [worker-0/CONTAINER]; -c reads one container.
On a terminal, what the containers wrote keeps its colours, but no other
escape sequence (a title, a screen clear, a hyperlink, a clipboard write)
nor control character reaches it; to a pipe or a file it is passed as it is.

Without -f, the replicas' logs are printed whole, one replica after another in
ROLE-INDEX order (ps-0, worker-0, worker-1, ...).

With -f, the lines of every replica are merged as they come. Replicas that
start, restart or are replaced later are picked up; replicas still pending are
reported on stderr with the reason (e.g. Unschedulable). A broken stream
resumes where it stopped, without repeating lines. The command ends by itself
once the job has ended and the rest of its logs are printed: exit 0 if the job
succeeded, 4 if it failed. Following opens one stream per container: more than
--max-log-requests is refused.

--previous prints the log of the run before a container's last restart.

When a replica's pod is gone (deleted by the job's cleanPodPolicy, or once
the job ended) and the job was submitted with --storage, its log is read from
the storage, where every replica's output is kept (log_dir/TASK.log, unless
submitted with --no-persist-logs): easyai says so on stderr, starts a
short-lived fetcher pod that mounts the storage read-only (its image is the
fetcher-image setting, default busybox), prints the kept logs under the same
[TASK] prefixes, and deletes the pod. --task, --role and --tail apply to them;
they carry no times, so --since and --timestamps do not. Logs of replicas the
job no longer has (it was scaled down) follow the others, unless --task or
--role is given.

JOB is NAME, or KIND/NAME (tf/mnist), or NAME with --kind. A --task the job
does not have exits 3 and lists its tasks.`

// examples are logs' examples.
const examples = `  easyai logs mnist
  easyai logs mnist -f
  easyai logs mnist --task worker-0 --tail 100
  easyai logs mnist --role worker --since 10m --timestamps
  easyai logs mnist --task worker-1 --previous

  # after the job's pods were cleaned up: what its replicas kept on --storage
  easyai logs mnist --task worker-0 --tail 50`

// NewCmdLogs returns the command; runF replaces Complete and Run in tests.
func NewCmdLogs(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:     "logs JOB",
		Short:   "Print or follow the logs of a job's replicas",
		Long:    long,
		Example: examples,
	}
	cmdutil.TakeOneJob(cmd, f, o, runF)
	o.addFlags(cmd)
	return cmd
}

// addFlags adds logs' flags.
func (o *Options) addFlags(cmd *cobra.Command) {
	f := o.Factory
	fl := cmd.Flags()
	cmdutil.AddKindFlag(cmd, f.Kinds, &o.KindName, "job's")
	fl.BoolVarP(&o.Request.Follow, "follow", "f", false, "follow the logs until the job ends (exit 4 if it fails)")
	cmdutil.AddTasksFlag(cmd, f, &o.Request.Tasks, "only this replica, as ROLE-INDEX (worker-0); repeatable")
	fl.StringVar(&o.Request.Role, "role", "", "only the replicas of this role (worker, ps, master, ...)")
	fl.StringVarP(&o.Request.Container, "container", "c", "", "only this container of each pod (default: all)")
	fl.Int64Var(&o.Request.Tail, "tail", -1, "only the last N lines of each container (-1: all)")
	fl.DurationVar(&o.Request.Since, "since", 0, "only lines newer than this (5s, 2m, 3h)")
	fl.BoolVar(&o.Request.Timestamps, "timestamps", false, "show each line's timestamp")
	fl.BoolVarP(&o.Request.Previous, "previous", "p", false, "the log of each container's previous run (before its last restart)")
	fl.IntVar(&o.Request.MaxLogRequests, "max-log-requests", logsengine.DefaultMaxLogRequests, "most log streams followed at once with -f")
}

// Validate checks the flags and the job argument without reaching the cluster.
func (o *Options) Validate() error {
	switch {
	case o.Request.Follow && o.Request.Previous:
		return exit.UsageErrorf("--previous prints a finished run's log: it cannot be followed (-f)")
	case o.Request.Tail < -1:
		return exit.UsageErrorf("--tail %d: must be -1 (all) or more", o.Request.Tail)
	case o.Request.Since < 0:
		return exit.UsageErrorf("--since %s: must not be negative", o.Request.Since)
	case o.Request.MaxLogRequests < 1:
		return exit.UsageErrorf("--max-log-requests %d: must be at least 1", o.Request.MaxLogRequests)
	}
	for i, t := range o.Request.Tasks {
		o.Request.Tasks[i] = strings.ToLower(t)
	}
	o.Request.Role = strings.ToLower(o.Request.Role)
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the namespace and the clients.
func (o *Options) Complete() error {
	if err := o.CompleteJob(o.Factory); err != nil {
		return err
	}
	cfg, err := o.Factory.Config()
	if err != nil {
		return err
	}
	o.Request.Persisted = &logsengine.Persisted{Executor: lazyExecutor{o.Factory}, Image: cfg.FetcherImage, Now: o.Factory.Now}
	return nil
}

// lazyExecutor runs commands through the API server, building its client
// only when the kept logs are read.
type lazyExecutor struct{ f *cmdutil.Factory }

func (e lazyExecutor) Exec(ctx context.Context, namespace, pod, container string, command []string, s remote.Streams) error {
	r, err := cmdutil.ReplicaClients(e.f)
	if err != nil {
		return err
	}
	return r.Executor().Exec(ctx, namespace, pod, container, command, s)
}

// Run finds the job and prints its logs.
func (o *Options) Run(ctx context.Context) error {
	k, obj, err := o.Client.Find(ctx, o.Namespace, o.Ref)
	if err != nil {
		return err
	}
	var source logsengine.Source
	if o.Request.Follow && o.Factory != nil && o.Factory.RESTConfig != nil {
		// Followed streams get a connection of their own, whose buffers
		// hold little of what the output has not caught up with.
		cfg, err := o.Factory.RESTConfig()
		if err != nil {
			return err
		}
		streams, err := kubernetes.NewForConfig(kube.StreamingConfig(cfg, kube.StreamReceiveBuffer, kube.ConnectionReceiveBuffer))
		if err != nil {
			return err
		}
		source = logsengine.KubeSource{Kube: streams}
	}
	req := o.Request
	req.Kind, req.Job, req.Kube, req.Dynamic, req.Source = k, obj, o.Client.Kube, o.Client.Dynamic, source
	req.Colour, req.Terminal, req.Out, req.ErrOut = o.IO.ColorEnabled(), o.IO.IsStdoutTTY(), o.IO.Out, o.IO.ErrOut
	return logsengine.Run(ctx, req)
}
