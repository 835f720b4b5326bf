package submit_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// sshPod renders a tf job with --ssh and returns the main container's
// command.
func sshPod(t *testing.T, command ...any) []string {
	t.Helper()
	k, _ := registry.Default().Lookup("tf")
	objs, err := render.Render(render.Request{Kind: k, Values: map[string]any{
		"name": "j", "image": "img", "command": command,
		"roles":    map[string]any{"worker": map[string]any{"replicas": 1}},
		"devtools": map[string]any{"ssh": map[string]any{"enabled": true, "secret": "j-ssh"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	spec := objs[0].Object["spec"].(map[string]any)["tfReplicaSpecs"].(map[string]any)["Worker"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	var argv []string
	for _, a := range spec["containers"].([]any)[0].(map[string]any)["command"].([]any) {
		argv = append(argv, a.(string))
	}
	return argv
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestTheWrapperStartsSSHDWithTheJobsKeys runs the rendered wrapper here,
// with this machine's OpenSSH server, as a replica would: sshd lets in the
// key of authorized_keys, shows the job's host key, and the command runs.
func TestTheWrapperStartsSSHDWithTheJobsKeys(t *testing.T) {
	if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
		t.Skip("no /usr/sbin/sshd here (Debian's openssh-server; .ci/run installs it)")
	}
	keys := t.TempDir()
	_, clientKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(clientKey)
	if err != nil {
		t.Fatal(err)
	}
	authorized, err := submit.ParsePublicKey("test", ssh.MarshalAuthorizedKey(signer.PublicKey()))
	if err != nil {
		t.Fatal(err)
	}
	hostPrivate, hostPublic, err := submit.HostKey()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{submit.SSHAuthorizedKeys: authorized + "\n", submit.SSHHostKey: hostPrivate} {
		if err := os.WriteFile(filepath.Join(keys, name), []byte(data), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	tmp := t.TempDir()
	argv := sshPod(t, "sh", "-c", "echo command ran; exit 7")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "EASYAI_SSH_DIR="+keys, "EASYAI_SSH_PORT="+strconv.Itoa(port), "TMPDIR="+tmp)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Cleanup(func() {
		pids, _ := filepath.Glob(filepath.Join(tmp, "easyai-ssh.*", "sshd.pid"))
		for _, p := range pids {
			b, _ := os.ReadFile(p)
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGTERM)
			}
		}
	})
	if code := cmd.ProcessState.ExitCode(); code != 7 || !strings.Contains(out.String(), "command ran") {
		t.Fatalf("the wrapper: exit %d (%v), output %q; want the command's 7 and its output", code, err, out.String())
	}
	if !strings.Contains(out.String(), "easyai: sshd listens on port "+strconv.Itoa(port)) {
		t.Fatalf("output %q: sshd did not start", out.String())
	}

	wantHost, _, _, _, err := ssh.ParseAuthorizedKey([]byte(hostPublic))
	if err != nil {
		t.Fatal(err)
	}
	user := os.Getenv("USER")
	if user == "" {
		user = "root"
	}
	var client *ssh.Client
	deadline := time.Now().Add(10 * time.Second)
	for {
		client, err = ssh.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), &ssh.ClientConfig{
			User: user, Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
			HostKeyCallback: ssh.FixedHostKey(wantHost), Timeout: 5 * time.Second,
		})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("ssh to the wrapper's sshd with the authorized key and the job's host key: %v", err)
	}
	defer client.Close()
	session, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	got, err := session.Output("echo hello from the replica")
	if err != nil || strings.TrimSpace(string(got)) != "hello from the replica" {
		t.Errorf("a command over ssh: %q, %v", got, err)
	}

	// Another key is not let in, nor a password.
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	other, _ := ssh.NewSignerFromKey(otherKey)
	if _, err := ssh.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), &ssh.ClientConfig{
		User: user, Auth: []ssh.AuthMethod{ssh.PublicKeys(other), ssh.Password("x")},
		HostKeyCallback: ssh.FixedHostKey(wantHost), Timeout: 5 * time.Second,
	}); err == nil {
		t.Error("a key not in authorized_keys was let in")
	}
}

// Without an sshd, the wrapper says so and runs the command.
func TestTheWrapperWithoutSSHDRunsTheCommand(t *testing.T) {
	argv := sshPod(t, "sh", "-c", "echo command ran")
	script := strings.ReplaceAll(argv[2], "/usr/sbin/sshd /usr/local/sbin/sshd /sbin/sshd", "/nonexistent/sshd")
	out, err := exec.Command(argv[0], append([]string{argv[1], script}, argv[3:]...)...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "no sshd in this image: easyai ssh attaches instead") || !strings.Contains(string(out), "command ran") {
		t.Errorf("got %q, %v", out, err)
	}
}

func TestPublicKeys(t *testing.T) {
	good := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop\n"
	if line, err := submit.ParsePublicKey("--ssh-key k", []byte(good)); err != nil || line != strings.TrimSpace(good) {
		t.Errorf("a public key: %q, %v", line, err)
	}
	for data, want := range map[string]string{
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n": "is a private key",
		"hello":            "not a public key",
		good + good:        "more than one key",
		`command="rm -rf"`: "not a public key",
	} {
		if _, err := submit.ParsePublicKey("--ssh-key k", []byte(data)); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--ssh-key k") {
			t.Errorf("%q: %v, want an error saying %s", data, err, want)
		}
	}
	dir := t.TempDir()
	if _, err := submit.ReadPublicKey(filepath.Join(dir, "missing.pub")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing key file: %v", err)
	}
	unreadable := filepath.Join(dir, "k.pub")
	if err := os.WriteFile(unreadable, []byte(good), 0o000); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		if _, err := submit.ReadPublicKey(unreadable); err == nil {
			t.Error("an unreadable key file was read")
		}
	}
}
