//go:build e2e

package commands

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// replicaLogs sets what the pods of a TFJob of one PS and workers print,
// before the job exists, and writes a first line into each.
func replicaLogs(t *testing.T, c *cluster.Cluster, ns, name string, workers int) map[string]*cluster.Log {
	t.Helper()
	logs := map[string]*cluster.Log{}
	tasks := []string{"ps-0"}
	for i := 0; i < workers; i++ {
		tasks = append(tasks, "worker-"+string(rune('0'+i)))
	}
	for _, task := range tasks {
		logs[task] = c.PodLog(t, ns, name+"-"+task, nil)
		logs[task].Println(task + " says hello")
	}
	return logs
}

// runningJob makes a TFJob of one PS and workers that run until the test
// ends them, and waits for all its pods to run.
func runningJob(t *testing.T, ns, name string, workers int32) {
	t.Helper()
	c, kf := clients(t)
	createTFJob(t, kf, ns, name, workers, 0, "alice", "")
	c.WaitPodPhase(t, ns, name+"-ps-0", string(corev1.PodRunning), timeout)
	for i := int32(0); i < workers; i++ {
		c.WaitPodPhase(t, ns, name+"-worker-"+string(rune('0'+i)), string(corev1.PodRunning), timeout)
	}
}

func TestLogsOfEveryReplicaArePrefixedAndShownOnce(t *testing.T) {
	t.Parallel()
	c, _ := clients(t)
	ns := c.Namespace(t)
	logs := replicaLogs(t, c, ns, "mnist", 2)
	logs["worker-1"].Println("epoch 1 loss 0.9", "epoch 2 loss 0.5")
	runningJob(t, ns, "mnist", 2)

	r := easyai.Run(t, "logs", "-n", ns, "mnist").MustSucceed(t)
	want := "[ps-0] ps-0 says hello\n[worker-0] worker-0 says hello\n[worker-1] worker-1 says hello\n[worker-1] epoch 1 loss 0.9\n[worker-1] epoch 2 loss 0.5\n"
	if r.Stdout != want {
		t.Errorf("logs:\n%s\nwant:\n%s", r.Stdout, want)
	}

	r = easyai.Run(t, "logs", "-n", ns, "tf/mnist", "--task", "worker-1", "--tail", "1", "--timestamps").MustSucceed(t)
	stamp, text, _ := strings.Cut(strings.TrimPrefix(r.Stdout, "[worker-1] "), " ")
	if _, err := time.Parse(time.RFC3339Nano, stamp); err != nil || text != "epoch 2 loss 0.5\n" {
		t.Errorf("--task worker-1 --tail 1 --timestamps: %q", r.Stdout)
	}

	r = easyai.Run(t, "logs", "-n", ns, "mnist", "--task", "worker-7")
	if r.Code != 3 || !strings.Contains(r.Stderr, "the job has no task worker-7 (its tasks: ps-0, worker-0, worker-1)") {
		t.Errorf("--task worker-7: exit %d, %s", r.Code, r.Stderr)
	}

	r = easyai.Run(t, "logs", "-n", ns, "mnist", "-f", "--max-log-requests", "2")
	if r.Code != 2 || !strings.Contains(r.Stderr, "following 3 log streams is more than --max-log-requests 2") {
		t.Errorf("-f --max-log-requests 2: exit %d, %s", r.Code, r.Stderr)
	}
}

// follower is "easyai logs -f" running in the background.
type follower struct {
	cmd    *exec.Cmd
	lines  chan string
	mu     sync.Mutex
	all    []string
	stderr easyai.LockedBuffer
	done   chan int
}

func follow(t *testing.T, args ...string) *follower {
	t.Helper()
	f := &follower{lines: make(chan string, 1000), done: make(chan int, 1)}
	f.cmd = exec.Command(easyai.Binary(t), append([]string{"logs", "-f"}, args...)...)
	f.cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	f.cmd.Stderr = &f.stderr
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
			f.all = append(f.all, scanner.Text())
			f.mu.Unlock()
			f.lines <- scanner.Text()
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

// expect waits for each line, in any order.
func (f *follower) expect(t *testing.T, lines ...string) {
	t.Helper()
	want := map[string]bool{}
	for _, l := range lines {
		want[l] = true
	}
	deadline := time.After(timeout)
	for len(want) > 0 {
		select {
		case l := <-f.lines:
			delete(want, l)
		case <-deadline:
			t.Fatalf("logs -f did not print %v\nstderr: %s", want, f.stderr.String())
		}
	}
}

// exit waits for the command to end and checks that no line came twice.
func (f *follower) exit(t *testing.T) int {
	t.Helper()
	select {
	case code := <-f.done:
		f.mu.Lock()
		defer f.mu.Unlock()
		seen := map[string]bool{}
		for _, l := range f.all {
			if seen[l] {
				t.Errorf("logs -f printed %q twice", l)
			}
			seen[l] = true
		}
		t.Logf("logs -f -> %d\nstdout:\n%s\nstderr:\n%s", code, strings.Join(f.all, "\n"), f.stderr.String())
		return code
	case <-time.After(timeout):
		t.Fatalf("logs -f did not end after the job did\nstderr: %s", f.stderr.String())
	}
	return -1
}

func TestLogsFollowUntilTheJobSucceeds(t *testing.T) {
	t.Parallel()
	c, _ := clients(t)
	ns := c.Namespace(t)
	logs := replicaLogs(t, c, ns, "mnist", 2)
	runningJob(t, ns, "mnist", 2)

	f := follow(t, "-n", ns, "mnist")
	f.expect(t, "[ps-0] ps-0 says hello", "[worker-0] worker-0 says hello", "[worker-1] worker-1 says hello")
	logs["worker-0"].Println("step 1 loss 0.7")
	logs["worker-1"].Println("step 1 loss 0.8")
	f.expect(t, "[worker-0] step 1 loss 0.7", "[worker-1] step 1 loss 0.8")
	logs["worker-0"].Println("saving the model")
	c.EndPod(t, ns, "mnist-worker-0", 0)
	c.EndPod(t, ns, "mnist-worker-1", 0)
	f.expect(t, "[worker-0] saving the model")
	if code := f.exit(t); code != 0 {
		t.Errorf("logs -f exited %d after the job succeeded, want 0", code)
	}
}

func TestLogsFollowExits4WhenAWorkerFails(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	logs := replicaLogs(t, c, ns, "bert", 2)
	createTFJob(t, kf, ns, "bert", 2, 0, "alice", "")

	// Started before the job has pods: they are picked up as they run.
	f := follow(t, "-n", ns, "bert", "--role", "worker")
	f.expect(t, "[worker-0] worker-0 says hello", "[worker-1] worker-1 says hello")
	logs["worker-1"].Println("CUDA error: out of memory")
	c.EndPod(t, ns, "bert-worker-1", 1)
	f.expect(t, "[worker-1] CUDA error: out of memory")
	if code := f.exit(t); code != 4 {
		t.Errorf("logs -f exited %d after a worker failed, want 4", code)
	}
	if strings.Contains(strings.Join(f.all, "\n"), "[ps-0]") {
		t.Errorf("--role worker printed the PS's log")
	}
}

// restartCountAnnotation is read by the cluster's easyai-pod-restart kwok
// Stage: a running pod's first container "restarts" (its last run ended with
// exit code 1) until its restartCount is the annotation's value.
const restartCountAnnotation = "test.easyai.io/restart-count"

func TestLogsFollowARestartedReplicaAndItsPreviousRun(t *testing.T) {
	t.Parallel()
	c, _ := clients(t)
	ns := c.Namespace(t)
	previous := cluster.NewLog(t, "previous")
	previous.Println("crashed at step 7")
	log := c.PodLog(t, ns, "gpt-worker-0", previous)
	log.Println("started")
	runningJob(t, ns, "gpt", 1)

	f := follow(t, "-n", ns, "gpt", "--task", "worker-0")
	f.expect(t, "[worker-0] started")
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:"1"}}}`, restartCountAnnotation)
	if _, err := c.Kube.CoreV1().Pods(ns).Patch(cluster.Context(t, 30*time.Second), "gpt-worker-0", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	cluster.Eventually(t, timeout, "gpt-worker-0 restarted", func(ctx context.Context) (bool, error) {
		p, err := c.Kube.CoreV1().Pods(ns).Get(ctx, "gpt-worker-0", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cs := p.Status.ContainerStatuses
		return p.Status.Phase == corev1.PodRunning && len(cs) > 0 && cs[0].RestartCount == 1 &&
			cs[0].LastTerminationState.Terminated != nil && cs[0].LastTerminationState.Terminated.ExitCode == 1, nil
	})
	eventually(t, "logs -f reports the restart", func() string {
		if !strings.Contains(f.stderr.String(), "worker-0 restarted (1 restarts)") {
			return "stderr: " + f.stderr.String()
		}
		return ""
	})
	log.Println("resumed at step 7")
	f.expect(t, "[worker-0] resumed at step 7")

	r := easyai.Run(t, "logs", "-n", ns, "gpt", "--task", "worker-0", "--previous").MustSucceed(t)
	if r.Stdout != "[worker-0] crashed at step 7\n" {
		t.Errorf("--previous: %q", r.Stdout)
	}

	c.EndPod(t, ns, "gpt-worker-0", 0)
	if code := f.exit(t); code != 0 {
		t.Errorf("logs -f exited %d after the job succeeded, want 0", code)
	}
}

func TestLogsFollowSaysWhyAGangIsPendingAndEndsWhenTheJobIsDeleted(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	j := &kubeflowv1.TFJob{
		ObjectMeta: metav1.ObjectMeta{Name: "huge", Namespace: ns},
		Spec: kubeflowv1.TFJobSpec{TFReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.TFJobReplicaTypePS:     replica(1, 0, 0, "tensorflow"),
			kubeflowv1.TFJobReplicaTypeWorker: replica(1, 1000, 0, "tensorflow"),
		}},
	}
	if _, err := kf.KubeflowV1().TFJobs(ns).Create(cluster.Context(t, 30*time.Second), j, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	f := follow(t, "-n", ns, "huge")
	eventually(t, "logs -f says why the replicas have no pods", func() string {
		if stderr := f.stderr.String(); !strings.Contains(stderr, "ps-0, worker-0: no pod yet\n") ||
			!strings.Contains(stderr, "waiting for the job's gang of pods: Unschedulable: ") {
			return "stderr: " + f.stderr.String()
		}
		return ""
	})
	if err := kf.KubeflowV1().TFJobs(ns).Delete(cluster.Context(t, 30*time.Second), "huge", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if code := f.exit(t); code != 3 {
		t.Errorf("logs -f exited %d after the job was deleted, want 3", code)
	}
}
