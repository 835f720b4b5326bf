package logs

import (
	"context"
	"errors"
	"io"
	"math"
	"sync"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

// flakySource refuses every stream but one, noting when each was asked for
// on the test's clock; the stream it opens (the holdOpen-th) stays open until
// release is closed.
type flakySource struct {
	clock    *clocktesting.FakeClock
	holdOpen int
	release  chan struct{}

	mu sync.Mutex
	at []time.Time
}

func (s *flakySource) Stream(ctx context.Context, _, _ string, _ *corev1.PodLogOptions) (io.ReadCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.at = append(s.at, s.clock.Now())
	if len(s.at) == s.holdOpen {
		return io.NopCloser(untilClosed{ctx, s.release}), nil
	}
	return nil, errors.New("connection refused")
}

func (s *flakySource) attempts() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.at...)
}

type untilClosed struct {
	ctx     context.Context
	release chan struct{}
}

func (u untilClosed) Read([]byte) (int, error) {
	select {
	case <-u.release:
		return 0, io.EOF
	case <-u.ctx.Done():
		return 0, u.ctx.Err()
	}
}

func eventuallyTrue(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: never", what)
		}
	}
}

func TestABrokenStreamIsRetriedLaterEachTimeUpToACap(t *testing.T) {
	clock := clocktesting.NewFakeClock(jobclienttest.T0)
	src := &flakySource{clock: clock, holdOpen: 7, release: make(chan struct{})}
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.5, Steps: math.MaxInt32, Cap: 8 * time.Second}
	running := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning)
	kube := kubefake.NewClientset(tfPod("worker", 0, corev1.PodRunning))
	dyn := jobclienttest.Dynamic(running)
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Request{Kind: tfjob.New(), Job: running, Kube: kube, Dynamic: dyn, Source: src,
			Follow: true, Tail: -1, MaxLogRequests: 64, Tasks: []string{"worker-0"}, Out: &stdout, ErrOut: &stderr,
			clock: clock, retryBackoff: &backoff})
	}()
	// stepUntil moves the test's clock on by tenths of a second while a
	// retry waits, until the stream was asked for n times.
	const tick = 100 * time.Millisecond
	stepUntil := func(n int) {
		for len(src.attempts()) < n {
			eventuallyTrue(t, "a retry waits", clock.HasWaiters)
			before := len(src.attempts())
			clock.Step(tick)
			if !clock.HasWaiters() {
				eventuallyTrue(t, "the retry", func() bool { return len(src.attempts()) > before })
			}
		}
	}
	// within: the wait from to at is delay, give or take its jitter.
	within := func(what string, from, at time.Time, delay time.Duration) {
		t.Helper()
		if gap := at.Sub(from); gap < delay || gap > delay+delay/2+tick {
			t.Errorf("%s after %v, want %v to %v", what, gap, delay, delay+delay/2)
		}
	}
	eventuallyTrue(t, "the first stream", func() bool { return len(src.attempts()) == 1 })
	stepUntil(7)
	at := src.attempts()
	for i, delay := range []time.Duration{1, 2, 4, 8, 8, 8} {
		within("retry "+string(rune('1'+i)), at[i], at[i+1], delay*time.Second)
	}

	// The 7th stream is healthy for two minutes: the retry after it ends
	// waits the shortest time again.
	clock.Step(2 * time.Minute)
	healthyUntil := clock.Now()
	close(src.release)
	stepUntil(9)
	at = src.attempts()
	within("the retry after a healthy stream", healthyUntil, at[7], time.Second)
	within("the next retry", at[7], at[8], 2*time.Second)

	succeeded := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobSucceeded)
	succeeded.SetResourceVersion("2")
	if _, err := dyn.Resource(tfjob.New().Resource()).Namespace("team-a").Update(context.Background(), succeeded, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("logs -f did not end with the job")
	}
}
