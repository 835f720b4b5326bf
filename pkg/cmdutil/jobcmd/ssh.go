package jobcmd

import (
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/sshaccess"
)

// SSHOptions are the options ssh and ssh-config share: the job and
// --task (ReplicaOptions), --user, and what reaches a replica's sshd
// through the Kubernetes API: the client that reads the job's host key
// and the ProxyCommand that runs this easyai.
type SSHOptions struct {
	ReplicaOptions
	// User is --user: who logs in to the replica's sshd.
	User string

	// Set by CompleteSSH.
	Kube  kubernetes.Interface
	Proxy sshaccess.Proxy
}

// AddSSHFlags adds --kind, --task (AddReplicaFlags' what and byDefault)
// and --user (-l, root unless given), user being its help.
func (o *SSHOptions) AddSSHFlags(cmd *cobra.Command, f *cmdutil.Factory, what, byDefault, user string) {
	o.AddReplicaFlags(cmd, f, what, byDefault)
	cmd.Flags().StringVarP(&o.User, "user", "l", "root", user)
}

// ValidateSSH checks --user, which goes into an ssh config, and the job
// argument, without reaching the cluster.
func (o *SSHOptions) ValidateSSH(reg *kinds.Registry) error {
	if err := sshaccess.CheckUser(o.User); err != nil {
		return err
	}
	return o.ParseJob(reg)
}

// CompleteSSH resolves the replicas' clients (CompleteReplicas, whose
// clients it returns) and the ProxyCommand.
func (o *SSHOptions) CompleteSSH(f *cmdutil.Factory) (*remote.Clients, error) {
	r, err := o.CompleteReplicas(f)
	if err != nil {
		return nil, err
	}
	o.Kube = r.Kube
	if o.Proxy, err = sshaccess.ProxyOf(f.ConfigFlags); err != nil {
		return nil, err
	}
	return r, nil
}

// Target is the replica task of job j as an ssh host, TASK.JOB.NAMESPACE,
// logged in to as --user.
func (o *SSHOptions) Target(j *remote.Job, task string) sshaccess.Target {
	name := j.Object.GetName()
	return sshaccess.Target{Alias: sshaccess.Alias(task, name, o.Namespace), Task: task, JobArg: j.String(), Namespace: o.Namespace, User: o.User}
}
