// Package ssh is "easyai ssh JOB": OpenSSH's client into a replica of a
// job submitted with --ssh, through the Kubernetes API; a shell through
// attach when the replica runs no sshd.
package ssh

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/jobcmd"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/sshaccess"
)

// ProbeTimeout is how long ssh waits for the replica's sshd to answer
// before it attaches instead.
const ProbeTimeout = 10 * time.Second

// Options of ssh.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	jobcmd.SSHOptions

	// Args go to ssh after the host: its options, or a remote command.
	Args []string

	// Set by Complete.
	Config *rest.Config
	// SSH is the OpenSSH client (ssh on $PATH).
	SSH string
}

// NewCmdSSH returns the command; runF replaces Complete and Run in tests.
func NewCmdSSH(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "ssh JOB [--task TASK] [-- SSH ARGS]",
		Short: "ssh into a replica of a job submitted with --ssh",
		Long: `Run OpenSSH's client (ssh on $PATH) into one replica of a job submitted with
--ssh: through the Kubernetes API (the ProxyCommand of "easyai ssh-config",
which prints the same settings for ~/.ssh/config), logged in with your key,
the job's host key checked without asking. Without --task, the first of
chief, master, launcher and worker-0. What follows "--" goes to ssh after
the host: its options (-L 8080:localhost:8080) or a command to run.
ssh's exit code is easyai's.

When the job was not submitted with --ssh, or no sshd answers in the
replica (an image without one), ssh says so on stderr and opens a shell
through "easyai attach" instead (which needs a terminal).`,
		Example: `  easyai ssh mnist
  easyai ssh tf/mnist --task worker-1 -- nvidia-smi
  easyai ssh mnist -- -L 6006:localhost:6006`,
		Args: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			before := args
			if dash >= 0 {
				before = args[:dash]
			}
			if len(before) != 1 {
				return exit.UsageErrorf("give a job: easyai ssh JOB [--task TASK] [-- SSH ARGS]")
			}
			return nil
		},
		ValidArgsFunction: cmdutil.CompleteJob(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JobArg = args[0]
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				o.Args = args[dash:]
			}
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	o.AddSSHFlags(cmd, f, "the replica", cmdutil.DefaultReplica, "the user to log in as")
	return cmd
}

// Validate checks the arguments without reaching the cluster.
func (o *Options) Validate() error { return o.ValidateSSH(o.Factory.Kinds) }

// Complete resolves the clients, the ProxyCommand and the ssh client.
func (o *Options) Complete() error {
	r, err := o.CompleteSSH(o.Factory)
	if err != nil {
		return err
	}
	o.Config = r.Config
	o.SSH, _ = exec.LookPath("ssh")
	return nil
}

// Run finds the replica and runs ssh into it, or attaches.
func (o *Options) Run(ctx context.Context) error {
	j, r, err := o.FindRunnable(ctx, o.IO.ErrOut)
	if err != nil {
		return err
	}
	name, jobArg := j.Object.GetName(), j.String()
	key, err := sshaccess.JobHostKey(ctx, o.Kube, o.Namespace, j)
	var noSSH sshaccess.ErrNoSSH
	if errors.As(err, &noSSH) {
		fmt.Fprintf(o.IO.ErrOut, "%v: attaching to %s instead\n", err, r.Task)
		return o.attach(ctx, r.Pod, r.Task)
	}
	if err != nil {
		return err
	}
	if o.SSH == "" {
		return exit.WithHint(errors.New("easyai ssh runs OpenSSH's client, and there is no ssh on $PATH"),
			fmt.Sprintf("install it (Debian: apt install openssh-client), or open a shell with: %s attach %s --task %s", o.Factory.ExecutableName, jobArg, r.Task))
	}
	if !sshaccess.Answers(ctx, o.Config, o.Kube, o.Namespace, r.Pod, ProbeTimeout) {
		fmt.Fprintf(o.IO.ErrOut, "No sshd answers in %s (an image without one?): attaching instead\n", r.Task)
		return o.attach(ctx, r.Pod, r.Task)
	}
	dir, err := os.MkdirTemp("", "easyai-ssh-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	known, err := sshaccess.WriteKnownHosts(dir, name, o.Namespace, key)
	if err != nil {
		return err
	}
	target := o.Target(j, r.Task)
	config := filepath.Join(dir, "config")
	f, err := os.OpenFile(config, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = sshaccess.Config(f, o.Proxy, known, name, []sshaccess.Target{target})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, o.SSH, append([]string{"-F", config, target.Alias}, o.Args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.IO.In, o.IO.Out, o.IO.ErrOut
	err = cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return &exit.CodedError{Code: exitErr.ExitCode(), Err: fmt.Errorf("%w: ssh exited with code %d", exit.ErrSilent, exitErr.ExitCode())}
	}
	return err
}

// attach opens a shell in the replica through the API server, as "easyai
// attach" does.
func (o *Options) attach(ctx context.Context, pod, task string) error {
	if !(o.IO.IsStdinTTY() && o.IO.IsStdoutTTY()) {
		return exit.UsageErrorf("a shell through attach needs a terminal: use easyai exec JOB --task %s -- COMMAND", task)
	}
	return remote.Attach(ctx, o.Executor, o.Namespace, pod, task, "", remote.InteractiveShell, o.IO.In, o.IO.Out, o.IO.IsStdinTTY())
}
