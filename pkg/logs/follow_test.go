package logs

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

// followSource serves each pod's lines; a followed stream then stays open
// until it is cancelled, as a running container's does.
type followSource struct{ fakeSource }

func (f *followSource) Stream(ctx context.Context, ns, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	body, err := f.fakeSource.Stream(ctx, ns, pod, opts)
	if err != nil || !opts.Follow {
		return body, err
	}
	return io.NopCloser(io.MultiReader(body, blockUntil{ctx})), nil
}

type blockUntil struct{ ctx context.Context }

func (b blockUntil) Read([]byte) (int, error) { <-b.ctx.Done(); return 0, b.ctx.Err() }

type syncBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}

func waitFor(t *testing.T, what string, buf *syncBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(buf.String(), want) {
			return
		}
	}
	t.Fatalf("%s: %q never came:\n%s", what, want, buf.String())
}

func TestFollowPicksUpNewAndRestartedPodsAndExitsAsTheJobEnds(t *testing.T) {
	src := &followSource{fakeSource{logs: map[string][]string{
		"mnist-ps-0":     {stamp(1, 0, "ps up")},
		"mnist-worker-0": {stamp(2, 0, "w0 step 1")},
		"mnist-worker-1": {stamp(3, 0, "w1 step 1")},
	}}}
	running := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning)
	kube := kubefake.NewClientset(tfPod("ps", 0, corev1.PodRunning), tfPod("worker", 0, corev1.PodRunning))
	dyn := jobclienttest.Dynamic(running)
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Request{Kind: tfjob.New(), Job: running, Kube: kube, Dynamic: dyn, Source: src,
			Follow: true, Tail: -1, MaxLogRequests: 64, Out: &stdout, ErrOut: &stderr})
	}()
	waitFor(t, "stderr", &stderr, "worker-1: no pod yet\n")
	waitFor(t, "stdout", &stdout, "[ps-0] ps up\n")
	waitFor(t, "stdout", &stdout, "[worker-0] w0 step 1\n")

	ctx := context.Background()
	// A pod that appears later.
	pending := tfPod("worker", 1, corev1.PodPending)
	pending.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/3 nodes are available"}}
	if _, err := kube.CoreV1().Pods("team-a").Create(ctx, pending, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "stderr", &stderr, "worker-1 is Pending: Unschedulable: 0/3 nodes are available\n")
	if _, err := kube.CoreV1().Pods("team-a").Update(ctx, tfPod("worker", 1, corev1.PodRunning), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "stdout", &stdout, "[worker-1] w1 step 1\n")

	// A restart, and a line written after it.
	restarted := tfPod("worker", 0, corev1.PodRunning)
	restarted.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "train", RestartCount: 1}}
	src.mu.Lock()
	src.logs["mnist-worker-0"] = append(src.logs["mnist-worker-0"], stamp(4, 0, "w0 after the restart"))
	src.mu.Unlock()
	if _, err := kube.CoreV1().Pods("team-a").Update(ctx, restarted, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "stderr", &stderr, "worker-0 restarted (1 restarts)\n")

	failed := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobFailed)
	failed.SetResourceVersion("2")
	if _, err := dyn.Resource(tfjob.New().Resource()).Namespace("team-a").Update(ctx, failed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("logs -f did not end with the job\nstdout:\n%s", stdout.String())
	}
	if exit.Code(err) != exit.JobFailed {
		t.Errorf("err = %v (exit %d), want exit 4", err, exit.Code(err))
	}
	// The drain after the job ended read the line written after the restart,
	// and no line twice.
	for _, line := range []string{"[ps-0] ps up", "[worker-0] w0 step 1", "[worker-1] w1 step 1", "[worker-0] w0 after the restart"} {
		if n := strings.Count(stdout.String(), line+"\n"); n != 1 {
			t.Errorf("%q printed %d times:\n%s", line, n, stdout.String())
		}
	}
	if n := strings.Count(stdout.String(), "\n"); n != 4 {
		t.Errorf("%d lines, want 4:\n%s", n, stdout.String())
	}
}
