package storage_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/render"
)

// teeCommand is the persisted-logs wrapper the charts put before a
// replica's command (argv[0..3]: /bin/sh -c SCRIPT NAME), as rendered.
func teeCommand(t *testing.T) []string {
	t.Helper()
	k, _ := registry.Default().Lookup("tf")
	objs, err := render.Render(render.Request{Kind: k, Values: map[string]any{
		"name": "j", "image": "img", "command": []any{"CMD"},
		"storage": map[string]any{"claim": "team", "jobDir": "j-abcde", "dataDir": "data/u", "persistLogs": true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	containers := objs[0].Object["spec"].(map[string]any)["tfReplicaSpecs"].(map[string]any)["Worker"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
	var argv []string
	for _, a := range containers[0].(map[string]any)["command"].([]any) {
		argv = append(argv, a.(string))
	}
	if len(argv) != 5 || argv[0] != "/bin/sh" || argv[4] != "CMD" {
		t.Fatalf("the rendered command is %q, want /bin/sh -c SCRIPT NAME CMD", argv)
	}
	return argv[:4]
}

type teeRun struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	logDir         string
}

func startTee(t *testing.T, logDir string, command ...string) *teeRun {
	t.Helper()
	argv := append(teeCommand(t), command...)
	r := &teeRun{cmd: exec.Command(argv[0], argv[1:]...), logDir: logDir}
	r.cmd.Env = append(os.Environ(), "log_dir="+logDir, "EASYAI_TASK=worker-0")
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *teeRun) wait(t *testing.T) int {
	t.Helper()
	err := r.cmd.Wait()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exitErr):
		return exitErr.ExitCode()
	}
	t.Fatal(err)
	return -1
}

func (r *teeRun) log(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.logDir, "worker-0.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// leftovers are the files the wrapper left in the log dir besides the log.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() != "worker-0.log" {
			out = append(out, e.Name())
		}
	}
	return out
}

func TestTeeKeepsTheExitCodeAndBothStreams(t *testing.T) {
	dir := t.TempDir()
	r := startTee(t, dir, "sh", "-c", `echo to-stdout; echo to-stderr >&2; exit 3`)
	if code := r.wait(t); code != 3 {
		t.Fatalf("exit code %d, want the command's 3 (stderr %q)", code, r.stderr.String())
	}
	if got := r.stdout.String(); got != "to-stdout\n" {
		t.Errorf("stdout %q, want the command's stdout only", got)
	}
	if got := r.stderr.String(); got != "to-stderr\n" {
		t.Errorf("stderr %q, want the command's stderr only", got)
	}
	log := r.log(t)
	if !strings.Contains(log, "to-stdout\n") || !strings.Contains(log, "to-stderr\n") {
		t.Errorf("log %q, want both streams", log)
	}
	if left := leftovers(t, dir); len(left) > 0 {
		t.Errorf("the wrapper left %v in the log dir", left)
	}
	// A second run of the replica (a restart) appends.
	r = startTee(t, dir, "sh", "-c", `echo again`)
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit code %d, want 0", code)
	}
	if log := r.log(t); !strings.HasPrefix(log, "to-") || !strings.HasSuffix(log, "again\n") {
		t.Errorf("log %q after a restart, want the first run's lines then the second's", log)
	}
}

// A program that writes its lines in pieces (Python unbuffered, as the
// training-operator runs it) to both streams: the file holds each line whole.
func TestTeeKeepsTheLinesOfBothStreamsWhole(t *testing.T) {
	dir := t.TempDir()
	r := startTee(t, dir, "sh", "-c", `printf 'out of '; printf 'err of ' >&2; sleep 0.2; printf 'rank 0\n' >&2; sleep 0.2; printf 'rank 0\n'; printf 'no newline'`)
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit code %d (stderr %q)", code, r.stderr.String())
	}
	log := r.log(t)
	lines := strings.Split(strings.TrimSuffix(log, "\n"), "\n")
	slices.Sort(lines)
	if want := []string{"err of rank 0", "no newline", "out of rank 0"}; !slices.Equal(lines, want) {
		t.Errorf("log %q, want the lines %q, each whole", log, want)
	}
	if got := r.stdout.String(); got != "out of rank 0\nno newline\n" {
		t.Errorf("stdout %q", got)
	}
	if got := r.stderr.String(); got != "err of rank 0\n" {
		t.Errorf("stderr %q", got)
	}
}

func TestTeeKeepsAKillBySignal(t *testing.T) {
	r := startTee(t, t.TempDir(), "sh", "-c", `kill -TERM $$`)
	if code := r.wait(t); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit code %d, want %d: the command was killed by SIGTERM", code, 128+int(syscall.SIGTERM))
	}
}

func TestTeePassesSIGTERMToTheCommand(t *testing.T) {
	dir := t.TempDir()
	r := startTee(t, dir, "sh", "-c", `trap 'echo got-term; exit 7' TERM; echo ready; while :; do sleep 0.05; done`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(filepath.Join(dir, "worker-0.log"))
		if strings.Contains(string(data), "ready") {
			break
		}
		if time.Now().After(deadline) {
			_ = r.cmd.Process.Kill()
			t.Fatal("the command did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(t); code != 7 {
		t.Fatalf("exit code %d, want the command's 7 after it handled SIGTERM", code)
	}
	if log := r.log(t); !strings.Contains(log, "got-term") {
		t.Errorf("log %q: the command did not get SIGTERM", log)
	}
}

func TestTeeRunsTheCommandWhenTheLogCannotBeWritten(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir")
	r := startTee(t, missing, "sh", "-c", `echo hello; exit 5`)
	if code := r.wait(t); code != 5 {
		t.Fatalf("exit code %d, want the command's 5", code)
	}
	if r.stdout.String() != "hello\n" || !strings.Contains(r.stderr.String(), "is not kept") {
		t.Errorf("stdout %q, stderr %q: want the command's output and one line saying the log is not kept", r.stdout.String(), r.stderr.String())
	}
}

// The wrapper's fifos are its own, in a directory of the container, never
// on the shared volume: there a replica restarted after a SIGKILL (its
// shell's pid 1 again) would find the last run's fifos and keep no log, and
// a teammate could plant them.
func TestTeeKeepsItsFifosOffTheVolume(t *testing.T) {
	dir := t.TempDir()
	r := startTee(t, dir, "sh", "-c", `ls -A "$log_dir"`)
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit code %d, stderr %q", code, r.stderr.String())
	}
	if got := r.stdout.String(); got != "worker-0.log\n" {
		t.Errorf("while the command ran, log_dir held %q; want the log only", got)
	}
	if left := leftovers(t, dir); len(left) != 0 {
		t.Errorf("left in log_dir: %q", left)
	}
}

// A log path that is a symbolic link (planted on the shared volume by
// someone else) is not written through: the command runs with its output
// not kept, said in one line, and the link's target is untouched.
func TestTeeRefusesALogThatIsASymlink(t *testing.T) {
	dir, other := t.TempDir(), filepath.Join(t.TempDir(), "someone-elses-file")
	if err := os.WriteFile(other, []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(dir, "worker-0.log")); err != nil {
		t.Fatal(err)
	}
	r := startTee(t, dir, "sh", "-c", `echo hello; exit 3`)
	if code := r.wait(t); code != 3 {
		t.Fatalf("exit code %d, want the command's 3", code)
	}
	if data, _ := os.ReadFile(other); string(data) != "theirs\n" {
		t.Errorf("the link's target now holds %q", data)
	}
	if r.stdout.String() != "hello\n" || !strings.Contains(r.stderr.String(), "is a symbolic link") || strings.Count(r.stderr.String(), "\n") != 1 {
		t.Errorf("stdout %q, stderr %q: want the command's output and one line saying why the log is not kept", r.stdout.String(), r.stderr.String())
	}
}
