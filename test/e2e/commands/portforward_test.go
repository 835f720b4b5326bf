//go:build e2e

package commands

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

func TestPortForwardReachesAReplica(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "tensorboard of worker-0")
	}))
	defer srv.Close()
	c.PodPortForward(t, ns, "pf-worker-0", 6006, srv.Listener.Addr().String())
	submitTF(t, ns, "pf", "1").MustSucceed(t)
	c.WaitPodPhase(t, ns, "pf-worker-0", string(corev1.PodRunning), 90*time.Second)

	cmd := exec.Command(easyai.Binary(t), "port-forward", "pf", ":6006", "-n", ns)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	defer func() {
		_ = cmd.Process.Kill()
	}()

	lines := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			if strings.HasPrefix(s.Text(), "Forwarding http://") {
				lines <- s.Text()
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		done <- cmd.Wait()
	}()
	var line string
	select {
	case line = <-lines:
	case err := <-done:
		t.Fatalf("port-forward exited early (%v): %s", err, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("no Forwarding line after 60s; stderr: %s", stderr.String())
	}
	url, target, ok := strings.Cut(strings.TrimPrefix(line, "Forwarding "), " -> ")
	if !ok || target != "worker-0:6006" || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("line %q", line)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v; stderr: %s", url, err, stderr.String())
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "tensorboard of worker-0" {
		t.Errorf("GET %s = %q", url, body)
	}

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if code := cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("after SIGINT port-forward exited %d (%v), want 130; stderr: %s", code, err, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Errorf("port-forward still running 5s after SIGINT; stderr: %s", stderr.String())
	}
}

func TestPortForwardBadPort(t *testing.T) {
	t.Parallel()
	res := easyai.Run(t, "port-forward", "pf", "nope:6006", "-n", "default")
	if res.Code != 2 || !strings.Contains(res.Stderr, `"nope:6006"`) {
		t.Errorf("bad port exited %d with stderr %q; want 2 naming it", res.Code, res.Stderr)
	}
}
