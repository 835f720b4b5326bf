//go:build e2e

// Package realnode holds the end-to-end tests that only a node running real
// containers can show: the jobs easyai submits train, and the commands that
// reach into a replica (logs, exec, attach, download) work over a real
// kubelet's streams. They run on the local cluster's real node
// (hack/cluster/realnode.sh), as a team member of one namespace.
package realnode

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// ddpScript is the example's training (examples/pytorch-ddp/train.py).
var ddpScript = func() string {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "pytorch-ddp", "train.py"))
	if err != nil {
		panic(err)
	}
	return string(data)
}()

// A PyTorchJob of a master and a worker trains for real with DDP over gloo;
// logs -f shows both ranks as they train, exec and attach reach a replica,
// download gets the model rank 0 saved, and wait exits 0 once it succeeded.
func TestPyTorchDDPTrainsOnTheRealNode(t *testing.T) {
	t.Parallel()
	_, placement, _, alice := onTheRealNode(t)
	as := func(args ...string) easyai.Result { t.Helper(); return easyai.RunWith(t, alice, args...) }

	args := append([]string{"submit", "pytorch", "--name", "ddp", "--workers", "2", "--env", "HOLD_SECONDS=600"}, placement...)
	as(append(args, "--", "python3", "-c", ddpScript)...).MustSucceed(t)

	follow := startFollowing(t, alice, "logs", "-f", "pytorch/ddp")
	for _, replica := range []string{"master-0", "worker-0"} {
		follow.waitFor(t, 6*time.Minute, "["+replica+"] training done")
	}
	out := follow.text()
	for _, replica := range []string{"master-0", "worker-0"} {
		for _, want := range []string{"all_reduce sum 3 (want 3)", "step 0 loss ", "step 29 loss ", ": falls", "the same on every rank"} {
			if !strings.Contains(out, "["+replica+"] ") || !regexp.MustCompile(regexp.QuoteMeta("["+replica+"] ")+"[^\n]*"+regexp.QuoteMeta(want)).MatchString(out) {
				t.Errorf("logs -f shows no line of %s with %q", replica, want)
			}
		}
		// Live: the first step arrived seconds before the last (0.2 s a step).
		if first, last := follow.seen("["+replica+"] step 0 loss "), follow.seen("["+replica+"] step 29 loss "); last.Sub(first) < 3*time.Second {
			t.Errorf("%s's steps arrived within %s of each other: not followed live", replica, last.Sub(first))
		}
	}

	res := as("exec", "ddp", "--", "python3", "-c", "import torch, torch.distributed as d; print('torch', torch.__version__, d.is_gloo_available())").MustSucceed(t)
	if !strings.HasPrefix(res.Stdout, "torch 1.13") || !strings.HasSuffix(res.Stdout, " True\n") {
		t.Errorf("exec python3 in the master: stdout %q", res.Stdout)
	}

	local := t.TempDir()
	as("download", "ddp", "/tmp/out", local).MustSucceed(t)
	model, err := os.ReadFile(filepath.Join(local, "out", "model.pt"))
	if err != nil || !strings.HasPrefix(string(model), "PK") {
		t.Errorf("the downloaded model.pt (a zip, as torch.save writes): %d bytes, %v", len(model), err)
	}
	digest, err := os.ReadFile(filepath.Join(local, "out", "digest"))
	if err != nil || !strings.Contains(out, "[master-0] parameters "+strings.TrimSpace(string(digest))+": ") {
		t.Errorf("the downloaded digest %q is not the one rank 0 printed (%v)", digest, err)
	}

	terminal := attach(t, alice, "ddp", "--task", "worker-0", "--command", "tty; python3 -c 'import os; print(\"isatty\", os.isatty(0), os.environ[\"RANK\"])'")
	if !regexp.MustCompile(`/dev/pts/\d+\r?\n`).MatchString(terminal) || !strings.Contains(terminal, "isatty True 1") {
		t.Errorf("attach --command on worker-0: no terminal of rank 1:\n%q", terminal)
	}

	as("exec", "ddp", "--all", "--", "touch", "/tmp/release").MustSucceed(t)
	res = as("wait", "ddp", "--timeout", "3m")
	if res.Code != 0 || !strings.Contains(res.Stderr, "pytorch/ddp Succeeded after ") {
		t.Errorf("wait: exit %d, stderr %q; want 0 and Succeeded", res.Code, res.Stderr)
	}
	if code := follow.wait(t, time.Minute); code != 0 {
		t.Errorf("logs -f exited %d once the job succeeded; want 0", code)
	}
	res = as("get", "ddp").MustSucceed(t)
	if !strings.Contains(res.Stdout, "Succeeded") {
		t.Errorf("get after success:\n%s", res.Stdout)
	}
}

// onTheRealNode is how each test starts: the cluster, the submit flags that
// put a job on the real node, a namespace of the test's own, and the
// environment that runs easyai as alice, a member of that namespace only.
func onTheRealNode(t *testing.T) (c *cluster.Cluster, placement []string, ns string, alice []string) {
	t.Helper()
	c = cluster.Get(t)
	placement = c.RealNode(t)
	ns = c.Namespace(t)
	return c, placement, ns, c.TeamMember(t, "alice", ns)
}

// following is a long-running easyai process (logs -f) whose output the test
// reads as it comes, with the time each line arrived.
type following struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	buf   strings.Builder
	times map[string]time.Time
	done  chan struct{}
	code  int
}

func startFollowing(t *testing.T, env []string, args ...string) *following {
	t.Helper()
	f := &following{cmd: exec.Command(easyai.Binary(t), args...), times: map[string]time.Time{}, done: make(chan struct{})}
	f.cmd.Env = append(append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1"), env...)
	stdout, err := f.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr easyai.LockedBuffer
	f.cmd.Stderr = &stderr
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		data := make([]byte, 32<<10)
		var partial string
		for {
			n, err := stdout.Read(data)
			now := time.Now()
			f.mu.Lock()
			f.buf.Write(data[:n])
			partial += string(data[:n])
			for {
				i := strings.IndexByte(partial, '\n')
				if i < 0 {
					break
				}
				if _, ok := f.times[partial[:i]]; !ok {
					f.times[partial[:i]] = now
				}
				partial = partial[i+1:]
			}
			f.mu.Unlock()
			if err != nil {
				break
			}
		}
		err := f.cmd.Wait()
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			f.code = exitErr.ExitCode()
		} else if err != nil {
			f.code = -1
		}
		t.Logf("%s -> %d\nstderr:\n%s", strings.Join(f.cmd.Args, " "), f.code, stderr.String())
		close(f.done)
	}()
	t.Cleanup(func() {
		_ = f.cmd.Process.Kill()
		<-f.done
		t.Logf("output of %s:\n%s", strings.Join(f.cmd.Args[1:], " "), f.text())
	})
	return f
}

func (f *following) text() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.String()
}

// seen is when the first line starting with prefix arrived.
func (f *following) seen(prefix string) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	var first time.Time
	for line, at := range f.times {
		if strings.HasPrefix(line, prefix) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}
	return first
}

func (f *following) waitFor(t *testing.T, limit time.Duration, text string) {
	t.Helper()
	deadline := time.After(limit)
	for !strings.Contains(f.text(), text) {
		select {
		case <-f.done:
			if !strings.Contains(f.text(), text) {
				t.Fatalf("%s exited %d before printing %q", strings.Join(f.cmd.Args[1:], " "), f.code, text)
			}
		case <-deadline:
			t.Fatalf("%s printed no %q in %s", strings.Join(f.cmd.Args[1:], " "), text, limit)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (f *following) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-f.done:
		return f.code
	case <-time.After(limit):
		t.Fatalf("%s still running %s later", strings.Join(f.cmd.Args[1:], " "), limit)
		return -1
	}
}

// attach runs easyai attach with args on a pseudo-terminal until it exits,
// and returns what the terminal showed.
func attach(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(easyai.Binary(t), append([]string{"attach"}, args...)...)
	cmd.Env = append(append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1"), env...)
	term, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	var out easyai.LockedBuffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(&out, term) // ends with EIO once attach exits
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("attach still running after 2 minutes; terminal:\n%s", out.String())
	}
	select {
	case <-copied:
	case <-time.After(10 * time.Second):
	}
	t.Logf("attach %s -> %v; terminal:\n%s", strings.Join(args, " "), err, out.String())
	if err != nil {
		t.Errorf("attach exited: %v", err)
	}
	return out.String()
}
