//go:build e2e

package commands

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// echoServer accepts connections; each sends a 4-byte big-endian length
// and that many bytes, which the server sends back before closing it (the
// server, not the end of the client's input, ends the connection, as an
// ssh server does).
func echoServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(time.Minute))
				var n uint32
				if binary.Read(conn, binary.BigEndian, &n) != nil {
					return
				}
				_, _ = io.CopyN(conn, conn, int64(n))
			}()
		}
	}()
	return l.Addr().String()
}

// TestPortForwardStdioCarriesOneConnection: --stdio carries bytes both
// ways between stdin/stdout and a server behind the pod's port, as an ssh
// ProxyCommand uses it, for a namespace's user too.
func TestPortForwardStdioCarriesOneConnection(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}

	c.PodPortForward(t, ns, "stdio-worker-1", 22, echoServer(t))
	submitTF(t, ns, "stdio", "2").MustSucceed(t)
	c.WaitPodPhase(t, ns, "stdio-worker-1", string(corev1.PodRunning), 90*time.Second)

	payload := make([]byte, 1<<20)
	if _, err := rand.Read(payload); err != nil {
		t.Fatal(err)
	}
	for _, who := range []struct {
		name string
		env  []string
	}{{"admin", nil}, {"alice", alice}} {
		r := runStdio(t, who.env, append(binary.BigEndian.AppendUint32(nil, uint32(len(payload))), payload...), "port-forward", "stdio", "--task", "worker-1", "--stdio", "22", "-n", ns)
		if r.code != 0 || !bytes.Equal(r.stdout, payload) {
			t.Errorf("%s: --stdio exited %d, %d of %d bytes came back intact (%v); stderr %q",
				who.name, r.code, len(r.stdout), len(payload), bytes.Equal(r.stdout, payload), r.stderr)
		}
	}

	res := easyai.Run(t, "port-forward", "stdio", "--stdio", "8080:22", "-n", ns)
	if res.Code != 2 || !strings.Contains(res.Stderr, "--stdio carries one connection") {
		t.Errorf("--stdio LOCAL:REMOTE: exit %d, stderr %q; want 2", res.Code, res.Stderr)
	}
}

type stdioResult struct {
	code   int
	stdout []byte
	stderr string
}

// runStdio runs easyai with stdin and returns its exit code and output.
func runStdio(t *testing.T, env []string, stdin []byte, args ...string) stdioResult {
	t.Helper()
	cmd := exec.Command(easyai.Binary(t), args...)
	cmd.Env = append(append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1"), env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Errorf("easyai %s still running after 90s", strings.Join(args, " "))
	}
	return stdioResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.Bytes(), stderr: stderr.String()}
}
