//go:build e2e

// Package disruptive holds the end-to-end tests that restart parts of the
// local cluster (its API server): make test runs them alone, after the other
// suites. They find the cluster's directory, which the restart scripts act
// on, through $EASYAI_CLUSTER_DIR, and refuse to run when $KUBECONFIG is not
// that cluster's.
package disruptive

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	kfclient "github.com/kubeflow/training-operator/pkg/client/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

const timeout = 90 * time.Second

// clusterDir is $EASYAI_CLUSTER_DIR, the directory of the cluster
// $KUBECONFIG points at.
func clusterDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("EASYAI_CLUSTER_DIR")
	if dir == "" {
		t.Fatal("$EASYAI_CLUSTER_DIR is not set: these tests restart the API server of the cluster in that directory (make test sets it)")
	}
	want, err1 := filepath.Abs(filepath.Join(dir, "admin.kubeconfig"))
	got, err2 := filepath.Abs(os.Getenv("KUBECONFIG"))
	if err1 != nil || err2 != nil || want != got {
		t.Fatalf("$KUBECONFIG is %q, not the kubeconfig of the cluster in $EASYAI_CLUSTER_DIR (%s)", os.Getenv("KUBECONFIG"), want)
	}
	return dir
}

// restartAPIServer stops the cluster's kube-apiserver, keeps it down for
// downFor, and starts it again, returning once it is ready.
func restartAPIServer(t *testing.T, dir string, downFor time.Duration) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "..", "hack", "cluster", "restart-apiserver.sh")
	cmd := exec.Command(script, fmt.Sprint(int(downFor.Seconds())))
	cmd.Env = append(os.Environ(), "EASYAI_CLUSTER_DIR="+dir)
	out, err := cmd.CombinedOutput()
	t.Logf("restart-apiserver.sh:\n%s", out)
	if err != nil {
		t.Fatalf("restarting the API server: %v", err)
	}
}

// follower is "easyai logs -f" running in the background.
type follower struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	stdout []string
	stderr bytes.Buffer
	done   chan int
}

func follow(t *testing.T, args ...string) *follower {
	t.Helper()
	f := &follower{done: make(chan int, 1)}
	f.cmd = exec.Command(easyai.Binary(t), append([]string{"logs", "-f"}, args...)...)
	f.cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	f.cmd.Stderr = &lockedWriter{mu: &f.mu, w: &f.stderr}
	stdout, err := f.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.cmd.Process.Kill() })
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			f.mu.Lock()
			f.stdout = append(f.stdout, scanner.Text())
			f.mu.Unlock()
		}
		err := f.cmd.Wait()
		var exitErr *exec.ExitError
		code := 0
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			code = -1
		}
		f.done <- code
	}()
	return f
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (f *follower) output() (stdout []string, stderr string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.stdout...), f.stderr.String()
}

// waitForLine waits until logs -f printed line.
func (f *follower) waitForLine(t *testing.T, line string) {
	t.Helper()
	for deadline := time.Now().Add(timeout); ; time.Sleep(100 * time.Millisecond) {
		stdout, stderr := f.output()
		for _, l := range stdout {
			if l == line {
				return
			}
		}
		select {
		case code := <-f.done:
			f.done <- code
			t.Fatalf("logs -f exited %d before it printed %q\nstdout:\n%s\nstderr:\n%s", code, line, strings.Join(stdout, "\n"), stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("logs -f did not print %q\nstdout:\n%s\nstderr:\n%s", line, strings.Join(stdout, "\n"), stderr)
		}
	}
}

func TestLogsFollowSurvivesAnAPIServerRestart(t *testing.T) {
	dir := clusterDir(t)
	c := cluster.Get(t)
	easyai.Binary(t)
	kf := kfclient.NewForConfigOrDie(c.Config)
	ns := c.Namespace(t)

	tasks := []string{"ps-0", "worker-0", "worker-1"}
	logs := map[string]*cluster.Log{}
	var written []string
	for _, task := range tasks {
		logs[task] = c.PodLog(t, ns, "mnist-"+task, nil)
		logs[task].Println(task + " says hello")
		written = append(written, "["+task+"] "+task+" says hello")
	}
	replica := func(n int32) *kubeflowv1.ReplicaSpec {
		return &kubeflowv1.ReplicaSpec{
			Replicas:      ptr.To(n),
			RestartPolicy: kubeflowv1.RestartPolicyNever,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{
				{Name: "tensorflow", Image: "example.com/train:1", Command: []string{"python", "train.py"}}}}},
		}
	}
	j := &kubeflowv1.TFJob{
		ObjectMeta: metav1.ObjectMeta{Name: "mnist", Namespace: ns},
		Spec: kubeflowv1.TFJobSpec{TFReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.TFJobReplicaTypePS:     replica(1),
			kubeflowv1.TFJobReplicaTypeWorker: replica(2),
		}},
	}
	if _, err := kf.KubeflowV1().TFJobs(ns).Create(cluster.Context(t, 30*time.Second), j, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		c.WaitPodPhase(t, ns, "mnist-"+task, string(corev1.PodRunning), timeout)
	}

	f := follow(t, "-n", ns, "mnist")
	for _, line := range written {
		f.waitForLine(t, line)
	}

	// The workers print a step every 200ms, before, while and after the API
	// server is away.
	stop := make(chan struct{})
	stopped := make(chan []string)
	go func() {
		var lines []string
		for step := 1; ; step++ {
			for _, task := range []string{"worker-0", "worker-1"} {
				text := fmt.Sprintf("%s step %d", task, step)
				logs[task].Println(text)
				lines = append(lines, "["+task+"] "+text)
			}
			select {
			case <-stop:
				stopped <- lines
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	time.Sleep(time.Second)
	restartAPIServer(t, dir, 3*time.Second)
	time.Sleep(3 * time.Second)
	close(stop)
	steps := <-stopped
	written = append(written, steps...)
	// Still followed after the restart: the last step comes while the job runs.
	f.waitForLine(t, steps[len(steps)-1])

	logs["worker-1"].Println("CUDA error: out of memory")
	written = append(written, "[worker-1] CUDA error: out of memory")
	c.EndPod(t, ns, "mnist-worker-1", 1)

	var code int
	select {
	case code = <-f.done:
	case <-time.After(2 * timeout):
		stdout, stderr := f.output()
		t.Fatalf("logs -f did not end after the job did\nstdout:\n%s\nstderr:\n%s", strings.Join(stdout, "\n"), stderr)
	}
	stdout, stderr := f.output()
	t.Logf("logs -f -> %d\nstderr:\n%s", code, stderr)
	if code != 4 {
		t.Errorf("logs -f exited %d, want 4 (the job failed)", code)
	}
	if strings.Contains(stderr, "the watch ended") {
		t.Errorf("logs -f gave up a watch:\n%s", stderr)
	}
	count := map[string]int{}
	for _, line := range stdout {
		count[line]++
	}
	for _, line := range written {
		if count[line] != 1 {
			t.Errorf("%q printed %d times", line, count[line])
		}
		delete(count, line)
	}
	for line, n := range count {
		t.Errorf("%q printed %d times, never written", line, n)
	}
}
