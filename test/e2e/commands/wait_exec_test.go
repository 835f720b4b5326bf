//go:build e2e

package commands

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// exitingAfter writes a values file that makes every pod of the job run for
// d, then exit with code.
func exitingAfter(t *testing.T, code int, d time.Duration) string {
	t.Helper()
	data, err := yaml.Marshal(map[string]any{"podAnnotations": cluster.ExitAfter(code, d)})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "exit.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// submitTF submits a TFJob of workers; extra are more submit flags.
func submitTF(t *testing.T, ns, name string, workers string, extra ...string) easyai.Result {
	t.Helper()
	args := append([]string{"submit", "tf", "-n", ns, "--name", name, "--workers", workers, "--image", "example.com/train:1"}, extra...)
	return easyai.Run(t, append(args, "--", "python", "train.py")...)
}

func TestWaitExitsWithTheJobsResult(t *testing.T) {
	tests := []struct {
		name   string
		values func(t *testing.T) string // nil: the job runs until the test ends
		args   []string
		code   int
		stderr string
	}{
		{"succeeds", func(t *testing.T) string { return exitingAfter(t, 0, 3*time.Second) }, nil, 0, "tf/succeeds Succeeded after "},
		{"fails", func(t *testing.T) string { return exitingAfter(t, 1, 3*time.Second) }, nil, 4, "Error: tf/fails Failed after "},
		{"runs", nil, []string{"--for", "running"}, 0, "tf/runs Running after "},
		{"outlives", nil, []string{"--timeout", "3s"}, 5, "Error: tf/outlives still Running after 3s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := cluster.Get(t)
			ns := c.Namespace(t)
			var extra []string
			if tt.values != nil {
				extra = []string{"-f", tt.values(t)}
			}
			submitTF(t, ns, tt.name, "1", extra...).MustSucceed(t)
			if tt.name == "outlives" {
				// It is Running before the wait starts, so the timeout is what ends it.
				easyai.Run(t, "wait", tt.name, "-n", ns, "--for", "running", "--timeout", "90s").MustSucceed(t)
			}
			start := time.Now()
			res := easyai.Run(t, append([]string{"wait", "tf/" + tt.name, "-n", ns, "--timeout", "90s"}, tt.args...)...)
			if res.Code != tt.code || !strings.Contains(res.Stderr, tt.stderr) {
				t.Errorf("wait exited %d with stderr %q; want %d and %q", res.Code, res.Stderr, tt.code, tt.stderr)
			}
			if tt.name == "outlives" && time.Since(start) > 30*time.Second {
				t.Errorf("a 3s timeout took %s", time.Since(start))
			}
		})
	}
}

func TestWaitForAJobThatDoesNotExist(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	if res := easyai.Run(t, "wait", "nope", "-n", ns); res.Code != 3 {
		t.Errorf("wait for a missing job exited %d, want 3", res.Code)
	}
}

func TestSubmitWaitExitsWithTheJobsResult(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)

	res := submitTF(t, ns, "good", "2", "-f", exitingAfter(t, 0, 2*time.Second), "--wait", "--timeout", "90s", "-o", "json")
	if res.Code != 0 {
		t.Fatalf("submit --wait of a job that succeeds exited %d: %s", res.Code, res.Stderr)
	}
	var doc struct {
		Kind     string                  `json:"kind"`
		Name     string                  `json:"name"`
		Status   struct{ State string }  `json:"status"`
		Replicas []struct{ Task string } `json:"replicas"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatalf("stdout is not get's document: %v\n%s", err, res.Stdout)
	}
	if doc.Kind != "Job" || doc.Name != "good" || doc.Status.State != "Succeeded" || len(doc.Replicas) != 2 {
		t.Errorf("document %+v", doc)
	}

	res = submitTF(t, ns, "bad", "1", "-f", exitingAfter(t, 1, 2*time.Second), "--wait", "--timeout", "90s")
	if res.Code != 4 || !strings.Contains(res.Stdout, "tf/bad submitted") || !strings.Contains(res.Stderr, "tf/bad Failed after") {
		t.Errorf("submit --wait of a job that fails exited %d (want 4): stdout %q stderr %q", res.Code, res.Stdout, res.Stderr)
	}
}

func TestSubmitWaitLogsStreamsEveryReplicaAndExitsWithTheResult(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	for _, task := range []string{"worker-0", "worker-1"} {
		c.PodLog(t, ns, "loud-"+task, nil).Println(task+" step 1", task+" done")
	}
	res := submitTF(t, ns, "loud", "2", "-f", exitingAfter(t, 0, 3*time.Second), "--wait", "--logs", "--timeout", "90s")
	if res.Code != 0 {
		t.Fatalf("submit --wait --logs of a job that succeeds exited %d: %s", res.Code, res.Stderr)
	}
	for _, line := range []string{"[worker-0] worker-0 step 1", "[worker-0] worker-0 done", "[worker-1] worker-1 step 1", "[worker-1] worker-1 done"} {
		if n := strings.Count(res.Stdout, line+"\n"); n != 1 {
			t.Errorf("%q is on stdout %d times, want once:\n%s", line, n, res.Stdout)
		}
	}
	if !strings.Contains(res.Stderr, "tf/loud Succeeded after") {
		t.Errorf("stderr does not say how the job ended: %s", res.Stderr)
	}

	// With -o json the logs go to stderr; stdout is the final document.
	c.PodLog(t, ns, "sad-worker-0", nil).Println("CUDA error: out of memory")
	res = submitTF(t, ns, "sad", "1", "-f", exitingAfter(t, 1, 3*time.Second), "--wait", "--logs", "--timeout", "90s", "-o", "json")
	if res.Code != 4 {
		t.Fatalf("submit --wait --logs of a job that fails exited %d (want 4): %s", res.Code, res.Stderr)
	}
	var doc struct {
		Status struct{ State string } `json:"status"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || doc.Status.State != "Failed" {
		t.Errorf("stdout is not the failed job's document (%v):\n%s", err, res.Stdout)
	}
	if !strings.Contains(res.Stderr, "[worker-0] CUDA error: out of memory\n") {
		t.Errorf("the failed worker's log is not on stderr:\n%s", res.Stderr)
	}

	if res := submitTF(t, ns, "lazy", "1", "--logs"); res.Code != 2 || !strings.Contains(res.Stderr, "--wait") {
		t.Errorf("--logs without --wait exited %d: %s", res.Code, res.Stderr)
	}
}

// runningWorkers submits a TFJob of two workers that run until the test
// ends, with an exec directory for each, holding a file naming it.
func runningWorkers(t *testing.T, c *cluster.Cluster, ns, name string) map[string]string {
	t.Helper()
	dirs := map[string]string{}
	for _, task := range []string{"worker-0", "worker-1"} {
		dirs[task] = c.PodExecDir(t, ns, name+"-"+task)
		if err := os.WriteFile(filepath.Join(dirs[task], "whoami.txt"), []byte("I am "+task+"\nline two\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	submitTF(t, ns, name, "2").MustSucceed(t)
	for task := range dirs {
		c.WaitPodPhase(t, ns, name+"-"+task, string(corev1.PodRunning), 90*time.Second)
	}
	return dirs
}

func TestExecRunsInAReplica(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	runningWorkers(t, c, ns, "ex")

	res := easyai.Run(t, "exec", "ex", "-n", ns, "--", "cat", "whoami.txt").MustSucceed(t)
	if res.Stdout != "I am worker-0\nline two\n" || !strings.Contains(res.Stderr, "Running in worker-0 of tf/ex") {
		t.Errorf("exec in the default replica: stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	res = easyai.Run(t, "exec", "tf/ex", "-n", ns, "--task", "worker-1", "--", "cat", "whoami.txt").MustSucceed(t)
	if res.Stdout != "I am worker-1\nline two\n" {
		t.Errorf("exec --task worker-1: stdout %q", res.Stdout)
	}

	// The remote command's exit code becomes easyai's, silently.
	res = easyai.Run(t, "exec", "ex", "-n", ns, "--", "sh", "-c", "echo partial; exit 42")
	if res.Code != 42 || res.Stdout != "partial\n" || strings.Contains(res.Stderr, "Error") {
		t.Errorf("a failing command: exit %d, stdout %q, stderr %q; want 42, its output and no error", res.Code, res.Stdout, res.Stderr)
	}

	res = easyai.Run(t, "exec", "ex", "-n", ns, "--task", "ps-0", "--", "true")
	if res.Code != 3 || !strings.Contains(res.Stderr, "the job has worker-0, worker-1") {
		t.Errorf("a replica that does not exist: exit %d, stderr %q", res.Code, res.Stderr)
	}
}

func TestExecAllPrefixesTheLinesOfEveryReplica(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	runningWorkers(t, c, ns, "all")

	res := easyai.Run(t, "exec", "all", "-n", ns, "--all", "--", "cat", "whoami.txt").MustSucceed(t)
	lines := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
	want := map[string]bool{
		"[worker-0] I am worker-0": true, "[worker-0] line two": true,
		"[worker-1] I am worker-1": true, "[worker-1] line two": true,
	}
	if len(lines) != len(want) {
		t.Fatalf("--all printed %q", res.Stdout)
	}
	for _, l := range lines {
		if !want[l] {
			t.Errorf("unexpected line %q", l)
		}
	}

	// The command fails in worker-1 only: exit 1, naming it.
	if err := os.Remove(filepath.Join(runningWorkers(t, c, ns, "all-fail")["worker-1"], "whoami.txt")); err != nil {
		t.Fatal(err)
	}
	res = easyai.Run(t, "exec", "all-fail", "-n", ns, "--all", "--max-parallel", "1", "--", "cat", "whoami.txt")
	if res.Code != 1 || !strings.Contains(res.Stderr, "the command failed in 1 of 2 replicas: worker-1 (exit code 1)") ||
		!strings.Contains(res.Stdout, "[worker-0] I am worker-0\n") {
		t.Errorf("--all with a failure: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
}

func TestAttachRunsAShellOnATerminal(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	runningWorkers(t, c, ns, "sh")

	cmd := exec.Command(easyai.Binary(t), "attach", "sh", "-n", ns)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	term, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	var out easyai.LockedBuffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		// Reading the terminal fails with EIO once easyai exits.
		_, _ = io.Copy(&out, term)
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	for !strings.Contains(out.String(), "Running in worker-0 of tf/sh") {
		select {
		case err := <-exited:
			t.Fatalf("attach exited (%v) before running; terminal:\n%s", err, out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	time.Sleep(time.Second) // for the remote shell to start
	// The pause before exit: the local cluster's fake pods end an exec
	// stream as soon as the shell exits, and may drop the output it wrote
	// just before.
	if _, err := term.Write([]byte("echo hello-from-attach; sleep 1; exit\r")); err != nil {
		t.Fatal(err)
	}
	select {
	case err = <-exited:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("attach still running after the shell exited; terminal:\n%s", out.String())
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatal(err)
	}
	// What the command wrote last may still wait in the terminal: read it
	// all (the read ends with EIO once no process holds the terminal)
	// before closing it.
	select {
	case <-copied:
	case <-time.After(10 * time.Second):
	}
	term.Close()
	<-copied
	t.Logf("terminal:\n%s", out.String())
	if err != nil {
		t.Errorf("attach exited %v", err)
	}
	// The shell's output, not the echo of what was typed: a line of its own
	// (after the shell's escape sequences, ended by a carriage return).
	if !regexp.MustCompile(`[\r\n]hello-from-attach\r?\n`).MatchString(out.String()) {
		t.Errorf("the shell's output is not on the terminal:\n%q", out.String())
	}
}

// A teammate's running pod with the labels of worker-0 of alice's job,
// newer than the replica's: exec, as alice, runs in the replica's own pod
// (the one the operator named), never in the decoy.
func TestExecNeverRunsInADecoy(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	runningWorkers(t, c, ns, "dx")
	decoyDir := c.PodExecDir(t, ns, "decoy")
	if err := os.WriteFile(filepath.Join(decoyDir, "whoami.txt"), []byte("I am the decoy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	decoy := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "decoy", Labels: map[string]string{
			"training.kubeflow.org/job-name": "dx", "training.kubeflow.org/replica-type": "worker", "training.kubeflow.org/replica-index": "0"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "tensorflow", Image: "example.com/decoy:1"}}},
	}
	if _, err := c.Kube.CoreV1().Pods(ns).Create(cluster.Context(t, 30*time.Second), decoy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.WaitPodPhase(t, ns, "decoy", string(corev1.PodRunning), 90*time.Second)
	res := easyai.RunWith(t, alice, "exec", "dx", "-n", ns, "--", "cat", "whoami.txt").MustSucceed(t)
	if res.Stdout != "I am worker-0\nline two\n" {
		t.Errorf("exec ran in %q; want the replica's own pod", res.Stdout)
	}
	res = easyai.RunWith(t, alice, "exec", "dx", "-n", ns, "--task", "worker-0", "--", "cat", "whoami.txt").MustSucceed(t)
	if res.Stdout != "I am worker-0\nline two\n" {
		t.Errorf("exec --task worker-0 ran in %q", res.Stdout)
	}
}
