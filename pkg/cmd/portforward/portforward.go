// Package portforward is "easyai port-forward JOB [LOCAL:]REMOTE...": forward
// local ports to a replica of a training job, as "kubectl port-forward" does.
package portforward

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

// Options of port-forward.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	jobcmd.ReplicaOptions

	AddressFlags []string
	PortArgs     []string
	// Stdio carries one connection to the one port given on stdin and
	// stdout (an ssh ProxyCommand) instead of listening.
	Stdio bool

	// Set by Validate.
	Ports     []remote.PortSpec
	Addresses []string

	// Set by Complete.
	Forwarder *remote.Forwarder
	Replicas  *remote.Clients
}

// NewCmdPortForward returns the command; runF replaces Complete and Run in tests.
func NewCmdPortForward(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "port-forward JOB [--task TASK] [--address ADDR] [LOCAL:]REMOTE...",
		Short: "Forward local ports to a replica of a training job",
		Long: `Forward local ports to a port of one replica of a training job (TensorBoard,
a debugger, a metrics endpoint), through the API server as "kubectl
port-forward" does.

Without --task the ports go to the first of chief, master, launcher and
worker-0. Each port is REMOTE (the same port locally), LOCAL:REMOTE, or
:REMOTE for a free local port. Ports are bound on 127.0.0.1 unless --address
says otherwise. Once ready, a "Forwarding http://ADDR:LOCAL -> TASK:REMOTE"
line per port is printed on stdout.

When the replica's pod goes away (restarted, rescheduled), easyai finds the
replica's new pod and forwards to it, on the same local ports ("Forwarding
again to TASK" on stderr once it does; until then the ports refuse
connections). Stop with Ctrl-C.

--stdio PORT carries one connection to the replica's PORT on stdin and
stdout instead, and ends with it: what an ssh ProxyCommand needs. Nothing but the connection's bytes is written to stdout.`,
		Example: `  easyai port-forward mnist :6006
  easyai port-forward tf/mnist --task worker-1 8080:80 9090
  easyai port-forward mnist --address 0.0.0.0 6006
  ssh -o ProxyCommand='easyai port-forward mnist --task worker-1 --stdio 22' root@mnist`,
		Args: cmdutil.MinimumArgs(1, "a job (NAME or KIND/NAME) and the ports to forward ([LOCAL:]REMOTE...)"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return cmdutil.CompleteJobs(f)(cmd, args, toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JobArg, o.PortArgs = args[0], args[1:]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	fl := cmd.Flags()
	o.AddReplicaFlags(cmd, f, "the replica to forward to", cmdutil.DefaultReplica)
	fl.BoolVar(&o.Stdio, "stdio", false, "carry one connection to the one REMOTE port on stdin and stdout (an ssh ProxyCommand) instead of listening")
	fl.StringSliceVar(&o.AddressFlags, "address", []string{"127.0.0.1"}, "local addresses to listen on (repeat or comma-separate; IP addresses or localhost)")
	return cmd
}

// Validate checks the ports, the addresses and the job argument without
// reaching the cluster.
func (o *Options) Validate() error {
	ports, err := remote.ParsePortSpecs(o.PortArgs)
	if err != nil {
		return err
	}
	o.Ports = ports
	if o.Stdio {
		if len(ports) != 1 || strings.Contains(o.PortArgs[0], ":") {
			return exit.UsageErrorf("--stdio carries one connection: give one REMOTE port, e.g. --stdio 22")
		}
		if o.AddressFlags != nil && (len(o.AddressFlags) != 1 || o.AddressFlags[0] != "127.0.0.1") {
			return exit.UsageErrorf("--stdio listens on no address: not with --address")
		}
	}
	if o.Addresses, err = remote.ParseAddresses(o.AddressFlags); err != nil {
		return err
	}
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the namespace and the clients.
func (o *Options) Complete() error {
	r, err := o.CompleteReplicas(o.Factory)
	if err != nil {
		return err
	}
	o.Replicas = r
	o.Forwarder = &remote.Forwarder{
		Config: r.Config, Kube: r.Kube, Namespace: r.Namespace, Addresses: o.Addresses, Ports: o.Ports,
		Out: o.IO.Out, ErrOut: o.IO.ErrOut,
	}
	return nil
}

// Run chooses the replica and forwards to it until ctx ends.
func (o *Options) Run(ctx context.Context) error {
	if o.Stdio {
		return o.runStdio(ctx)
	}
	task := o.Task
	first := true
	o.Forwarder.Resolve = func(ctx context.Context) (jobmodel.Replica, error) {
		j, err := o.FindJob(ctx)
		if err != nil {
			return jobmodel.Replica{Task: task}, err
		}
		r, note, err := j.Choose(task)
		if err != nil {
			return jobmodel.Replica{Task: task}, err
		}
		if first {
			first = false
			task = r.Task // the same replica on every reconnect
			if note != "" {
				fmt.Fprintln(o.IO.ErrOut, strings.Replace(note, "Running in", "Forwarding to", 1))
			}
		}
		return r, nil
	}
	return o.Forwarder.Run(ctx)
}

// runStdio carries one connection to the replica's port on stdin and stdout.
func (o *Options) runStdio(ctx context.Context) error {
	j, err := o.FindJob(ctx)
	if err != nil {
		return err
	}
	r, _, err := j.Choose(o.Task)
	if err != nil {
		return err
	}
	if err := remote.Runnable(r); err != nil {
		return err
	}
	return remote.ForwardStdio(ctx, o.Replicas.Config, o.Replicas.Kube, o.Namespace, r.Pod, o.Ports[0].Remote, o.IO.In, o.IO.Out)
}
