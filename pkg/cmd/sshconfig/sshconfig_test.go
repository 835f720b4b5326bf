package sshconfig

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/submit"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.ExecuteContext(context.Background())
}

func TestCommandLine(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *Options
	if err := run(NewCmdSSHConfig(f, func(o *Options) error { got = o; return nil }), "tf/mnist", "--task", "worker-1", "-l", "jovyan"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "tf/mnist" || got.Task != "worker-1" || got.User != "jovyan" {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{{}, {"a", "b"}, {"mnist", "--user", "x y"}} {
		if err := run(NewCmdSSHConfig(f, func(*Options) error { return nil }), args...); exit.Code(err) != exit.Usage {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// factory serves tf/mnist submitted with --ssh (its Secret owned by it),
// with ps-0 and worker-0 running, and tf/old without --ssh.
func factory(t *testing.T) (*cmdutil.Factory, *strings.Builder) {
	t.Helper()
	_, pub, err := submit.HostKey()
	if err != nil {
		t.Fatal(err)
	}
	var objects []runtime.Object
	for _, o := range jobclienttest.Fixtures() {
		if job := o.(interface{ GetName() string }); job.GetName() == "mnist" {
			u := jobclienttest.Job{Name: "mnist", Created: jobclienttest.T0, Roles: []jobclienttest.Role{{Type: "PS", Replicas: 1}, {Type: "Worker", Replicas: 1}}}.Object()
			u.SetUID("uid-mnist")
			u.SetAnnotations(map[string]string{jobmodel.SSHAnnotation: "mnist-ssh"})
			o = u
		}
		objects = append(objects, o)
	}
	kube := kubefake.NewClientset(
		jobclienttest.Pod("team-a", "mnist", "ps", 0, corev1.PodRunning, jobclienttest.T0),
		jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, jobclienttest.T0),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "mnist-ssh", OwnerReferences: []metav1.OwnerReference{{UID: "uid-mnist"}}},
			Data: map[string][]byte{submit.SSHHostPublicKey: []byte(pub)}},
	)
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(objects...), kube)
	f.RESTConfig = func() (*rest.Config, error) { return &rest.Config{}, nil }
	var out strings.Builder
	f.IOStreams.Out = &out
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	return f, &out
}

// The blocks name every replica, or --task's, as TASK.JOB.NAMESPACE, log in
// as --user and trust the job's key, written beside easyai's settings.
func TestPrintsTheHostBlocks(t *testing.T) {
	f, out := factory(t)
	if err := run(NewCmdSSHConfig(f, nil), "mnist", "-l", "jovyan"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Host ps-0.mnist.team-a\n", "Host worker-0.mnist.team-a\n", "  User jovyan\n", "port-forward tf/mnist -n team-a --task worker-0 --stdio 2222"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the config lacks %q:\n%s", want, out)
		}
	}
	known := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "easyai", "ssh", "team-a.mnist.known_hosts")
	if data, err := os.ReadFile(known); err != nil || !strings.HasPrefix(string(data), "easyai.team-a.mnist ssh-ed25519 ") {
		t.Errorf("known hosts %q, %v", data, err)
	}

	f, out = factory(t)
	if err := run(NewCmdSSHConfig(f, nil), "mnist", "--task", "worker-0"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "Host ps-0.") || !strings.Contains(out.String(), "Host worker-0.mnist.team-a\n  HostName worker-0.mnist.team-a\n  User root\n") {
		t.Errorf("--task worker-0:\n%s", out)
	}

	f, _ = factory(t)
	err := run(NewCmdSSHConfig(f, nil), "old")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "tf/old was not submitted with --ssh") || !strings.Contains(exit.Hint(err), "easyai rerun tf/old --ssh") {
		t.Errorf("a job without --ssh: %v (hint %q)", err, exit.Hint(err))
	}
}
