//go:build e2e

package realnode

import (
	"bytes"
	"crypto/rand"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// submit --ssh starts the image's real sshd in the replica; OpenSSH's own
// ssh and scp reach it through easyai port-forward --stdio, with the host
// key ssh-config pins, and easyai ssh runs a command there.
func TestSSHIntoARealReplica(t *testing.T) {
	t.Parallel()
	_, placement, ns, alice := onTheRealNode(t)
	home := t.TempDir()
	env := append([]string{"XDG_CONFIG_HOME=" + home}, alice...)
	keys := t.TempDir()
	identity := filepath.Join(keys, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "alice@laptop", "-f", identity).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v: %s", err, out)
	}
	args := append([]string{"submit", "pytorch", "--name", "dev", "--ssh-key", identity + ".pub"}, placement...)
	easyai.RunWith(t, env, append(args, "--", "sleep", "600")...).MustSucceed(t)
	if res := easyai.RunWith(t, env, "wait", "dev", "--for", "running", "--timeout", "3m"); res.Code != 0 {
		t.Fatalf("wait --for running: exit %d, stderr %q", res.Code, res.Stderr)
	}

	res := easyai.RunWith(t, env, "ssh-config", "dev", "--user", "root").MustSucceed(t)
	config := filepath.Join(keys, "config")
	if err := os.WriteFile(config, []byte(res.Stdout+"Host *\n  IdentityFile "+identity+"\n  IdentitiesOnly yes\n  BatchMode yes\n  ConnectTimeout 20\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	host := "master-0.dev." + ns
	sshEnv := append(append(os.Environ(), "XDG_CONFIG_HOME="+home), alice...)
	run := func(name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Env = sshEnv
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Logf("%s %s: %v\nstderr: %s", name, strings.Join(args, " "), err, stderr.String())
		}
		return string(out), err
	}
	// The sshd starts beside the command: try until it answers.
	var out string
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var err error
		if out, err = run("ssh", "-F", config, host, "hostname; echo \"$SSH_CONNECTION\""); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || lines[0] != "dev-master-0" || !strings.HasSuffix(lines[1], " 2222") {
		t.Errorf("ssh to the replica printed %q; want its hostname and a connection to port 2222", out)
	}

	data := make([]byte, 256<<10)
	_, _ = rand.Read(data)
	local, back := filepath.Join(keys, "data.bin"), filepath.Join(keys, "back.bin")
	if err := os.WriteFile(local, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run("scp", "-F", config, "-q", local, host+":/tmp/on-the-replica.bin"); err != nil {
		t.Fatalf("scp to the replica: %v", err)
	}
	if res := easyai.RunWith(t, env, "exec", "dev", "--", "sha256sum", "/tmp/on-the-replica.bin"); res.Code != 0 || len(res.Stdout) < 64 {
		t.Errorf("exec sha256sum of the copied file: exit %d, %q", res.Code, res.Stdout)
	}
	if _, err := run("scp", "-F", config, "-q", host+":/tmp/on-the-replica.bin", back); err != nil {
		t.Fatalf("scp from the replica: %v", err)
	}
	if got, err := os.ReadFile(back); err != nil || !bytes.Equal(got, data) {
		t.Errorf("scp round trip: %d bytes back of %d (%v)", len(got), len(data), err)
	}

	res = easyai.RunWith(t, env, "ssh", "dev", "--user", "root", "--", "-i", identity, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
		"sh", "-c", "'echo via easyai ssh on $(hostname); exit 3'")
	if res.Code != 3 || strings.TrimSpace(res.Stdout) != "via easyai ssh on dev-master-0" {
		t.Errorf("easyai ssh: exit %d, stdout %q, stderr %q; want the remote command's 3 and output", res.Code, res.Stdout, res.Stderr)
	}
}

// Debug mode: the replicas start and wait instead of running the command;
// easyai run starts it there, with its output and exit code.
func TestDebugModeRunsTheCommandOnDemand(t *testing.T) {
	t.Parallel()
	_, placement, _, alice := onTheRealNode(t)
	args := append([]string{"submit", "pytorch", "--name", "dbg", "--workers", "2", "--debug"}, placement...)
	easyai.RunWith(t, alice, append(args, "--", "python3", "-c", "import os, sys; print('rank', os.environ['RANK'], 'ran'); sys.exit(int(os.environ['RANK']) + 5)")...).MustSucceed(t)
	if res := easyai.RunWith(t, alice, "wait", "dbg", "--for", "running", "--timeout", "3m"); res.Code != 0 {
		t.Fatalf("wait --for running: exit %d, stderr %q", res.Code, res.Stderr)
	}
	getShows(t, alice, "dbg", time.Minute, regexp.MustCompile(`DEBUG \(Running; easyai run dbg starts the command\)`), "")
	// The worker starts once the master's name resolves (the operator's
	// init container waits for it).
	getShows(t, alice, "dbg", 2*time.Minute, regexp.MustCompile(`(?m)^worker-0 +Running `), "")
	res := easyai.RunWith(t, alice, "run", "dbg", "--task", "worker-0")
	if res.Code != 6 || res.Stdout != "rank 1 ran\n" {
		t.Errorf("run --task worker-0: exit %d, stdout %q, stderr %q; want the command's 6 and its line", res.Code, res.Stdout, res.Stderr)
	}
}

// --jupyter runs a real Jupyter server beside the command (Debian has
// Jupyter Server, not JupyterLab: the image's jupyter-lab starts the
// server); easyai open hands over the token it accepts, and it refuses a
// wrong one and none.
func TestJupyterAcceptsTheTokenOpenHandsOver(t *testing.T) {
	t.Parallel()
	_, placement, _, alice := onTheRealNode(t)
	args := append([]string{"submit", "pytorch", "--name", "nb", "--jupyter"}, placement...)
	easyai.RunWith(t, alice, append(args, "--", "sleep", "600")...).MustSucceed(t)
	if res := easyai.RunWith(t, alice, "wait", "nb", "--for", "running", "--timeout", "3m"); res.Code != 0 {
		t.Fatalf("wait --for running: exit %d, stderr %q", res.Code, res.Stderr)
	}
	open := startFollowing(t, alice, "open", "nb", "jupyter", "--no-browser", "--show-token")
	open.waitFor(t, 2*time.Minute, "?token=")
	url := strings.TrimSpace(strings.SplitN(open.text(), "\n", 2)[0])
	base, token, ok := strings.Cut(url, "/lab?token=")
	if !ok || len(token) < 16 {
		t.Fatalf("open --show-token printed %q", url)
	}
	status := func(query string) (int, string) {
		resp, err := http.Get(base + "/api/status" + query)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return resp.StatusCode, string(body)
	}
	// The server starts beside the command: ask until it answers.
	deadline := time.Now().Add(2 * time.Minute)
	code, body := status("?token=" + token)
	for code != http.StatusOK && time.Now().Before(deadline) {
		time.Sleep(2 * time.Second)
		code, body = status("?token=" + token)
	}
	if code != http.StatusOK || !strings.Contains(body, `"started"`) {
		t.Errorf("Jupyter's /api/status with the token: %d %q; want 200 and its status", code, body)
	}
	for _, query := range []string{"?token=not-" + token, ""} {
		if code, body := status(query); code != http.StatusForbidden {
			t.Errorf("Jupyter's /api/status with %q: %d %q; want 403", query, code, body)
		}
	}
}
