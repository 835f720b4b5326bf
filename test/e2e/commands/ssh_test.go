//go:build e2e

package commands

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// hostSSHD runs this machine's OpenSSH server with the job's keys (as the
// replica's would: its Secret's authorized_keys and host key) on a free
// port of 127.0.0.1 until the test ends, and returns its address.
func hostSSHD(t *testing.T, secret *corev1.Secret) string {
	t.Helper()
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		sshd = "/usr/sbin/sshd"
	}
	if _, err := os.Stat(sshd); err != nil {
		t.Fatalf("no OpenSSH server here (%v): .ci/run installs Debian's openssh-server", err)
	}
	dir := t.TempDir()
	for name, data := range map[string][]byte{submit.SSHAuthorizedKeys: secret.Data[submit.SSHAuthorizedKeys], submit.SSHHostKey: secret.Data[submit.SSHHostKey]} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	config := strings.Join([]string{
		"ListenAddress 127.0.0.1", "Port " + port,
		"HostKey " + filepath.Join(dir, submit.SSHHostKey), "AuthorizedKeysFile " + filepath.Join(dir, submit.SSHAuthorizedKeys),
		"PasswordAuthentication no", "PermitRootLogin prohibit-password", "StrictModes no",
		"PidFile " + filepath.Join(dir, "sshd.pid"), "Subsystem sftp internal-sftp",
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		_ = os.MkdirAll("/run/sshd", 0o755)
	}
	var log bytes.Buffer
	cmd := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	cmd.Stdout, cmd.Stderr = &log, &log
	// sshd's sessions are its children: all of them go with the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("sshd's log:\n%s", log.String())
		}
	})
	cluster.Eventually(t, 10*time.Second, "sshd listens", func(context.Context) (bool, error) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil, nil
	})
	return addr
}

// TestSSHThroughTheAPI: a namespace's user submits a job with --ssh; the
// Host blocks of ssh-config let OpenSSH's ssh and scp reach the replica's
// sshd (here one run by the test behind a kwok port-forward) through the
// API server, its host key known without asking; easyai ssh runs ssh
// itself; a job without --ssh is attached to instead.
func TestSSHThroughTheAPI(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	aliceKubeconfig := c.UserKubeconfig(t, "alice", ns)
	home := t.TempDir()
	env := []string{"KUBECONFIG=" + aliceKubeconfig, "XDG_CONFIG_HOME=" + home}

	keys := t.TempDir()
	identity := filepath.Join(keys, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice@laptop", "-f", identity).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	res := easyai.RunWith(t, env, "submit", "tf", "-n", ns, "--name", "sh", "--image", "example.com/train:1",
		"--ssh", "--ssh-key", identity+".pub", "--", "python", "train.py").MustSucceed(t)
	if !strings.Contains(res.Stderr, "secret/sh-ssh") {
		t.Errorf("submit does not say it made the Secret: %s", res.Stderr)
	}
	ctx := cluster.Context(t, 30*time.Second)
	secret, err := c.Kube.CoreV1().Secrets(ns).Get(ctx, "sh-ssh", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := os.ReadFile(identity + ".pub")
	if strings.TrimSpace(string(secret.Data[submit.SSHAuthorizedKeys])) != strings.TrimSpace(string(pub)) || len(secret.OwnerReferences) != 1 {
		t.Errorf("Secret sh-ssh: authorized_keys %q, owners %v", secret.Data[submit.SSHAuthorizedKeys], secret.OwnerReferences)
	}
	c.PodPortForward(t, ns, "sh-worker-0", int32(submit.SSHPort), hostSSHD(t, secret))
	c.WaitPodPhase(t, ns, "sh-worker-0", string(corev1.PodRunning), 90*time.Second)

	me := "root"
	if u, err := user.Current(); err == nil {
		me = u.Username
	}
	res = easyai.RunWith(t, env, "ssh-config", "sh", "-n", ns, "--user", me).MustSucceed(t)
	host := "worker-0.sh." + ns
	if !strings.Contains(res.Stdout, "Host "+host+"\n") || !strings.Contains(res.Stdout, "--stdio 2222") || !strings.Contains(res.Stdout, "StrictHostKeyChecking yes") {
		t.Fatalf("ssh-config printed:\n%s", res.Stdout)
	}
	known, err := os.ReadFile(filepath.Join(home, "easyai", "ssh", ns+".sh.known_hosts"))
	if err != nil || !strings.HasPrefix(string(known), "easyai."+ns+".sh ssh-ed25519 ") {
		t.Errorf("known hosts %q, %v", known, err)
	}
	config := filepath.Join(keys, "config")
	if err := os.WriteFile(config, []byte(res.Stdout+"Host *\n  IdentityFile "+identity+"\n  IdentitiesOnly yes\n  BatchMode yes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sshEnv := append(os.Environ(), "KUBECONFIG="+aliceKubeconfig)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = sshEnv
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v\nstdout: %s\nstderr: %s", name, strings.Join(args, " "), err, out, stderr.String())
		}
		return string(out)
	}
	if out := run("ssh", "-F", config, host, "echo", "hello", "over", "ssh"); strings.TrimSpace(out) != "hello over ssh" {
		t.Errorf("ssh printed %q", out)
	}

	// scp of a file, there and back.
	data := make([]byte, 256<<10)
	_, _ = rand.Read(data)
	local, back := filepath.Join(keys, "data.bin"), filepath.Join(keys, "back.bin")
	remote := filepath.Join(t.TempDir(), "on-the-replica.bin")
	if err := os.WriteFile(local, data, 0o644); err != nil {
		t.Fatal(err)
	}
	run("scp", "-F", config, "-q", local, host+":"+remote)
	run("scp", "-F", config, "-q", host+":"+remote, back)
	if got, err := os.ReadFile(back); err != nil || !bytes.Equal(got, data) {
		t.Errorf("scp round trip: %d bytes back of %d (%v)", len(got), len(data), err)
	}

	// easyai ssh: ssh with the same settings, its exit code easyai's.
	res = easyai.RunWith(t, env, "ssh", "sh", "-n", ns, "--user", me, "--", "-i", identity, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "sh", "-c", "'echo via easyai; exit 3'")
	if res.Code != 3 || strings.TrimSpace(res.Stdout) != "via easyai" {
		t.Errorf("easyai ssh: exit %d, stdout %q, stderr %q; want the remote command's 3 and output", res.Code, res.Stdout, res.Stderr)
	}

	// A job without --ssh: attach instead, which needs a terminal here.
	submitTF(t, ns, "plain", "1").MustSucceed(t)
	c.WaitPodPhase(t, ns, "plain-worker-0", string(corev1.PodRunning), 90*time.Second)
	res = easyai.RunWith(t, env, "ssh", "plain", "-n", ns)
	if !strings.Contains(res.Stderr, "tf/plain was not submitted with --ssh: it runs no sshd: attaching to worker-0 instead") || res.Code != 2 {
		t.Errorf("ssh to a job without --ssh: exit %d, stderr %q", res.Code, res.Stderr)
	}
	res = easyai.RunWith(t, env, "ssh-config", "plain", "-n", ns)
	if res.Code != 2 || !strings.Contains(res.Stderr, "was not submitted with --ssh") {
		t.Errorf("ssh-config of a job without --ssh: exit %d, stderr %q", res.Code, res.Stderr)
	}

	// Bad keys exit 2 and create nothing.
	for _, tt := range []struct{ file, want string }{
		{filepath.Join(keys, "missing.pub"), "no such file"},
		{identity, "is a private key"},
	} {
		res := easyai.RunWith(t, env, "submit", "tf", "-n", ns, "--name", "badkey", "--image", "img", "--ssh-key", tt.file, "--", "x")
		if res.Code != 2 || !strings.Contains(res.Stderr, tt.want) || strings.Contains(res.Stderr, "PRIVATE KEY") {
			t.Errorf("--ssh-key %s: exit %d, stderr %q", tt.file, res.Code, res.Stderr)
		}
	}
	if _, err := c.Kube.CoreV1().Secrets(ns).Get(ctx, "badkey-ssh", metav1.GetOptions{}); err == nil {
		t.Error("a refused submission left its Secret")
	}
}

// A teammate's pod that names itself worker-0 of alice's Volcano job (its
// labels and a task name holding a newline and a Host block of its own) is
// not taken for the replica: the replica is the pod Volcano named. get and
// ssh-config, as alice, see only the real one, and the config holds only
// easyai's own block. (A task name that is not a plain name is refused by
// ssh-config itself: TestConfigRefusesWhatIsNotAPlainName.)
func TestADecoyPodIsNotTakenForAReplica(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	home := t.TempDir()
	env := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns), "XDG_CONFIG_HOME=" + home}
	identity := filepath.Join(t.TempDir(), "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", identity).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	easyai.RunWith(t, env, "submit", "volcano", "-n", ns, "--name", "vj", "--task", "worker=1", "--image", "example.com/train:1",
		"--ssh", "--ssh-key", identity+".pub", "--", "python", "train.py").MustSucceed(t)
	c.WaitPodPhase(t, ns, "vj-worker-0", string(corev1.PodRunning), 90*time.Second)

	// bob's pods, as an editor of the namespace may make them (here as admin), newer than the replica's.
	for name, task := range map[string]string{"decoy": "worker", "vj-worker-0-x": "x\nHost *\n  ProxyCommand sh -c 'touch /tmp/owned'"} {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"volcano.sh/job-name": "vj", "volcano.sh/task-index": "0"},
				Annotations: map[string]string{"volcano.sh/task-spec": task}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.com/decoy:1"}}},
		}
		if _, err := c.Kube.CoreV1().Pods(ns).Create(cluster.Context(t, 30*time.Second), pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	res := easyai.RunWith(t, env, "get", "volcano/vj", "-n", ns, "-o", "json").MustSucceed(t)
	var doc struct {
		Replicas []struct{ Task, Pod string } `json:"replicas"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || len(doc.Replicas) != 1 || doc.Replicas[0].Task != "worker-0" || doc.Replicas[0].Pod != "vj-worker-0" {
		t.Errorf("get: replicas %+v (%v); want worker-0 on vj-worker-0 only", doc.Replicas, err)
	}
	res = easyai.RunWith(t, env, "ssh-config", "volcano/vj", "-n", ns).MustSucceed(t)
	if strings.Count(res.Stdout, "\nHost ")+strings.Count(res.Stdout[:min(5, len(res.Stdout))], "Host ") != 1 ||
		!strings.Contains(res.Stdout, "Host worker-0.vj."+ns+"\n") || strings.Contains(res.Stdout, "Host *") || strings.Contains(res.Stdout, "owned") {
		t.Errorf("ssh-config:\n%s", res.Stdout)
	}
}
