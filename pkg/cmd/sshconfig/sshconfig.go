// Package sshconfig is "easyai ssh-config JOB": the Host blocks that let
// ssh, scp, rsync and VS Code reach the replicas of a job submitted with
// --ssh through the Kubernetes API.
package sshconfig

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/jobcmd"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/sshaccess"
)

// Options of ssh-config.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	jobcmd.SSHOptions

	// Dir is where the known hosts are written (set by Complete).
	Dir string
}

// NewCmdSSHConfig returns the command; runF replaces Complete and Run in tests.
func NewCmdSSHConfig(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "ssh-config JOB [--task TASK]",
		Short: "Print ssh Host blocks for the replicas of a job submitted with --ssh",
		Long: `Print, for each replica of a job submitted with --ssh (or only --task's), a
Host block for ~/.ssh/config: the host TASK.JOB.NAMESPACE, reached through
the Kubernetes API by "easyai port-forward JOB --task TASK --stdio 2222"
as its ProxyCommand (no NodePort, no server besides the replica's sshd),
with this kubeconfig and context pinned.

The job's host key, made at submit and kept in the job's Secret, is written
to ~/.config/easyai/ssh/NAMESPACE.JOB.known_hosts, which the blocks name
with StrictHostKeyChecking yes: the first connection asks nothing, and a
different key is refused. The Secret must be owned by the job (exit 1
otherwise). Passwords are never tried.

ssh, scp, rsync -e ssh, sftp and VS Code Remote-SSH use the blocks once
they are in ~/.ssh/config (or a file it Includes).`,
		Example: `  easyai ssh-config mnist >> ~/.ssh/config
  ssh worker-0.mnist.team-a nvidia-smi
  scp results.tar worker-0.mnist.team-a:/tmp/
  rsync -av ./src/ worker-0.mnist.team-a:/workspace/src/
  easyai ssh-config tf/mnist --task worker-1 --user jovyan`,
	}
	cmdutil.TakeOneJob(cmd, f, o, runF)
	o.AddSSHFlags(cmd, f, "only this replica", "every replica", "the user to log in as (the one the replica's command runs as, for an sshd not run by root)")
	return cmd
}

// Validate checks the arguments without reaching the cluster.
func (o *Options) Validate() error { return o.ValidateSSH(o.Factory.Kinds) }

// Complete resolves the namespace, the clients and the ProxyCommand.
func (o *Options) Complete() error {
	if _, err := o.CompleteSSH(o.Factory); err != nil {
		return err
	}
	var err error
	o.Dir, err = sshaccess.KnownHostsDir()
	return err
}

// Run reads the job and its host key and prints the blocks.
func (o *Options) Run(ctx context.Context) error {
	j, err := o.FindJob(ctx)
	if err != nil {
		return err
	}
	name, jobArg := j.Object.GetName(), j.String()
	key, err := sshaccess.JobHostKey(ctx, o.Kube, o.Namespace, j)
	var noSSH sshaccess.ErrNoSSH
	if errors.As(err, &noSSH) {
		return exit.WithHint(exit.UsageErrorf("%v", err), fmt.Sprintf("submit it again with --ssh (%s rerun %s --ssh)", o.Factory.ExecutableName, jobArg))
	}
	if err != nil {
		return err
	}
	replicas := j.Replicas
	if o.Task != "" {
		r, err := remote.FindReplica(j.Replicas, o.Task)
		if err != nil {
			return err
		}
		replicas = []jobmodel.Replica{r}
	}
	var targets []sshaccess.Target
	for _, r := range replicas {
		targets = append(targets, o.Target(j, r.Task))
	}
	// Nothing is written, not even the known hosts, for a config that
	// would hold what is not a plain name.
	if err := sshaccess.CheckTargets(o.Proxy, o.Dir, name, targets); err != nil {
		return err
	}
	known, err := sshaccess.WriteKnownHosts(o.Dir, name, o.Namespace, key)
	if err != nil {
		return fmt.Errorf("writing the job's host key: %w", err)
	}
	if err := sshaccess.Config(o.IO.Out, o.Proxy, known, name, targets); err != nil {
		return err
	}
	if o.IO.IsStdoutTTY() && len(targets) > 0 {
		fmt.Fprintf(o.IO.ErrOut, "Add these to ~/.ssh/config (%s ssh-config %s >> ~/.ssh/config), then: ssh %s\n", o.Factory.ExecutableName, jobArg, targets[0].Alias)
	}
	return nil
}
