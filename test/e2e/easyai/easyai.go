// Package easyai runs the easyai binary in end-to-end tests, as a user or a
// CI pipeline would: a real process, its stdout, stderr and exit code.
package easyai

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// Binary builds easyai once per test binary (into a temporary directory) and
// returns its path. $EASYAI_BIN, when set, is used instead.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if bin := os.Getenv("EASYAI_BIN"); bin != "" {
			binary = bin
			return
		}
		dir, err := os.MkdirTemp("", "easyai-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "easyai")
		out, err := exec.Command("go", "build", "-o", binary, "github.com/easyai-dev/easyai/cmd/easyai").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building easyai: %v", buildErr)
	}
	return binary
}

// Result is what one easyai run did.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Run runs easyai with args against $KUBECONFIG, with no terminal and no
// configuration file of the user's, and waits at most two minutes, or a
// minute more than the run's own --timeout when that is longer.
func Run(t testing.TB, args ...string) Result {
	t.Helper()
	return RunWith(t, nil, args...)
}

// RunWith is Run with extra environment variables ("K=V").
func RunWith(t testing.TB, env []string, args ...string) Result {
	t.Helper()
	return run(t, env, nil, args)
}

// RunWithStdin is Run with stdin as the process's standard input.
func RunWithStdin(t testing.TB, stdin string, args ...string) Result {
	t.Helper()
	return run(t, nil, strings.NewReader(stdin), args)
}

func run(t testing.TB, env []string, stdin io.Reader, args []string) Result {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = stdin
	return Exec(t, cmd, limitFor(args))
}

// limitFor is how long a run of easyai with args may take: two minutes, or
// a minute more than its --timeout (a wait of 8m must not be cut at two).
// Arguments after "--" are the job's command, not easyai's.
func limitFor(args []string) time.Duration {
	limit := 2 * time.Minute
	for i, arg := range args {
		if arg == "--" {
			break
		}
		value, ok := strings.CutPrefix(arg, "--timeout=")
		if !ok && arg == "--timeout" && i+1 < len(args) {
			value, ok = args[i+1], true
		}
		if d, err := time.ParseDuration(value); ok && err == nil && d+time.Minute > limit {
			limit = d + time.Minute
		}
	}
	return limit
}

// Exec runs cmd (easyai, or kubectl running it as a plugin), with its
// standard output and error collected, for at most limit, and logs what it
// did. The Result's Code is its exit code.
func Exec(t testing.TB, cmd *exec.Cmd, limit time.Duration) Result {
	t.Helper()
	line := strings.Join(append([]string{filepath.Base(cmd.Args[0])}, cmd.Args[1:]...), " ")
	var stdout, stderr LockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		t.Fatalf("%s: still running after %s\nstderr: %s", line, limit, stderr.String())
	}
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s -> %d\nstdout:\n%s\nstderr:\n%s", line, code, stdout.String(), stderr.String())
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}
}

// LockedBuffer collects what a process writes (its output, a terminal's)
// while a test reads it.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// MustSucceed fails the test unless the run exited 0.
func (r Result) MustSucceed(t testing.TB) Result {
	t.Helper()
	if r.Code != 0 {
		t.Fatalf("easyai exited %d: %s", r.Code, r.Stderr)
	}
	return r
}
