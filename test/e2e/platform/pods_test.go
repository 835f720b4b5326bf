//go:build e2e

package platform

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
	"k8s.io/utils/exec"
	"k8s.io/utils/ptr"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
)

// runningTFJob submits a TFJob of workers that run until the test ends them and
// waits for its first worker to run.
func runningTFJob(t *testing.T, ns, name string, workers int32) string {
	t.Helper()
	c, kf, _ := clients(t)
	job := &kubeflowv1.TFJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: kubeflowv1.TFJobSpec{TFReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.TFJobReplicaTypeWorker: replica(workers, -1, 0, 0, "tensorflow"),
		}},
	}
	ctx := cluster.Context(t, time.Minute)
	if _, err := kf.KubeflowV1().TFJobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := name + "-worker-0"
	c.WaitPodPhase(t, ns, pod, string(corev1.PodRunning), jobTimeout)
	return pod
}

func TestLogsOfAPodAndFollowingThem(t *testing.T) {
	t.Parallel()
	c, _, _ := clients(t)
	ns := c.Namespace(t)
	// Set before the pod exists: kwok finds the Logs object by the pod's name.
	log := c.PodLog(t, ns, "printer-worker-0", nil)
	log.Println("epoch 1 loss 0.9", "epoch 2 loss 0.5")
	pod := runningTFJob(t, ns, "printer", 1)
	ctx := cluster.Context(t, time.Minute)

	raw, err := c.Kube.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{}).DoRaw(ctx)
	if err != nil {
		t.Fatalf("logs: %v", err)
	}
	if got, want := string(raw), "epoch 1 loss 0.9\nepoch 2 loss 0.5\n"; got != want {
		t.Fatalf("logs = %q, want %q", got, want)
	}

	stream, err := c.Kube.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Follow: true, Timestamps: true}).Stream(ctx)
	if err != nil {
		t.Fatalf("logs -f: %v", err)
	}
	defer stream.Close()
	lines := bufio.NewScanner(stream)
	for i := 0; i < 2; i++ {
		if !lines.Scan() {
			t.Fatalf("logs -f ended early: %v", lines.Err())
		}
	}
	log.Println("epoch 3 loss 0.2") // written after following started
	if !lines.Scan() {
		t.Fatalf("logs -f ended before the new line: %v", lines.Err())
	}
	stamp, text, _ := strings.Cut(lines.Text(), " ")
	if text != "epoch 3 loss 0.2" {
		t.Errorf("followed line = %q, want the line written after -f started", text)
	}
	if _, err := time.Parse(time.RFC3339Nano, stamp); err != nil {
		t.Errorf("followed line has no timestamp: %q", lines.Text())
	}
}

func TestLogsOfThePreviousRun(t *testing.T) {
	t.Parallel()
	c, _, _ := clients(t)
	ns := c.Namespace(t)
	previous := cluster.NewLog(t, "previous")
	previous.Println("crashed at step 7")
	c.PodLog(t, ns, "again-worker-0", previous).Println("resumed at step 7")
	pod := runningTFJob(t, ns, "again", 1)
	ctx := cluster.Context(t, time.Minute)
	raw, err := c.Kube.CoreV1().Pods(ns).GetLogs(pod, &corev1.PodLogOptions{Previous: true}).DoRaw(ctx)
	if err != nil {
		t.Fatalf("logs --previous: %v", err)
	}
	if got := string(raw); got != "crashed at step 7\n" {
		t.Errorf("previous logs = %q", got)
	}
}

func execIn(t *testing.T, c *cluster.Cluster, ns, pod string, cmd ...string) (string, error) {
	t.Helper()
	req := c.Kube.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "tensorflow", Command: cmd, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	executor, err := remotecommand.NewSPDYExecutor(c.Config, http.MethodPost, req.URL())
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = executor.StreamWithContext(cluster.Context(t, 30*time.Second), remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr})
	return stdout.String(), err
}

func TestExecInAPod(t *testing.T) {
	t.Parallel()
	c, _, _ := clients(t)
	ns := c.Namespace(t)
	dir := c.PodExecDir(t, ns, "shell-worker-0")
	if err := os.WriteFile(filepath.Join(dir, "checkpoint.txt"), []byte("step 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pod := runningTFJob(t, ns, "shell", 1)

	out, err := execIn(t, c, ns, pod, "cat", "checkpoint.txt")
	if err != nil || out != "step 42\n" {
		t.Fatalf("exec cat = %q, %v; want the file of the pod's working directory", out, err)
	}
	// The command's exit code arrives typed, as a kubelet sends it (kwok is
	// built with the project's fix for that, docs/development.md).
	_, err = execIn(t, c, ns, pod, "sh", "-c", "exit 3")
	var exitErr exec.ExitError
	if !errors.As(err, &exitErr) || !exitErr.Exited() || exitErr.ExitStatus() != 3 {
		t.Fatalf("exec 'exit 3' = %v, want the typed exit status 3", err)
	}
}

func TestPortForwardToAPod(t *testing.T) {
	t.Parallel()
	c, _, _ := clients(t)
	ns := c.Namespace(t)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "tensorboard here")
	}))
	defer server.Close()
	c.PodPortForward(t, ns, "board-worker-0", 6006, strings.TrimPrefix(server.URL, "http://"))
	pod := runningTFJob(t, ns, "board", 1)

	transport, upgrader, err := spdy.RoundTripperFor(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	u := c.Kube.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, u)
	stop, ready := make(chan struct{}), make(chan struct{})
	defer close(stop)
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{"0:6006"}, stop, ready, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- fw.ForwardPorts() }()
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("port-forward: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("port-forward not ready in 30s")
	}
	ports, err := fw.GetPorts()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get((&url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[0].Local)}).String())
	if err != nil {
		t.Fatalf("GET through the forward: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "tensorboard here" {
		t.Errorf("body through the forward = %q", body)
	}
}

func TestDeletingAJobRemovesItsPods(t *testing.T) {
	t.Parallel()
	c, kf, _ := clients(t)
	ns := c.Namespace(t)
	runningTFJob(t, ns, "doomed", 2)
	ctx := cluster.Context(t, 2*time.Minute)
	selector := metav1.ListOptions{LabelSelector: "training.kubeflow.org/job-name=doomed"}
	cluster.Eventually(t, jobTimeout, "both workers created", func(ctx context.Context) (bool, error) {
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, selector)
		return err == nil && len(pods.Items) == 2, err
	})

	err := kf.KubeflowV1().TFJobs(ns).Delete(ctx, "doomed", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
	if err != nil {
		t.Fatal(err)
	}
	cluster.Eventually(t, jobTimeout, "the job's pods and services garbage-collected", func(ctx context.Context) (bool, error) {
		if _, err := kf.KubeflowV1().TFJobs(ns).Get(ctx, "doomed", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, nil
		}
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, selector)
		if err != nil {
			return false, err
		}
		svcs, err := c.Kube.CoreV1().Services(ns).List(ctx, selector)
		return err == nil && len(pods.Items) == 0 && len(svcs.Items) == 0, err
	})
}

func TestAPodEndsAsItsEnvSays(t *testing.T) {
	t.Parallel()
	c, _, _ := clients(t)
	ns := c.Namespace(t)
	ctx := cluster.Context(t, time.Minute)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "by-env", Namespace: ns},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{
				Name: "main", Image: "example.com/train:1",
				Env: []corev1.EnvVar{{Name: cluster.ExitCodeEnv, Value: "7"}, {Name: cluster.RunForEnv, Value: "1s"}},
			}},
		},
	}
	if _, err := c.Kube.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.WaitPodPhase(t, ns, "by-env", string(corev1.PodFailed), 30*time.Second)
	got, err := c.Kube.CoreV1().Pods(ns).Get(ctx, "by-env", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if term := got.Status.ContainerStatuses[0].State.Terminated; term == nil || term.ExitCode != 7 || term.Reason != "Error" {
		t.Errorf("terminated state = %+v, want exit code 7", term)
	}
}
