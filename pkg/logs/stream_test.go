package logs

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

func TestAStreamsRetriesWaitLongerEachTimeUpToTheCapAndStartOverAfterAHealthyStream(t *testing.T) {
	fresh := wait.Backoff{Duration: time.Second, Factor: 2, Steps: math.MaxInt32, Cap: 8 * time.Second}
	t0 := jobclienttest.T0
	s := &stream{backoff: fresh, started: t0}
	for i, want := range []time.Duration{1, 2, 4, 8, 8, 8} {
		if got := s.retryDelay(t0.Add(time.Second), fresh); got != want*time.Second {
			t.Errorf("retry %d waits %v, want %v", i+1, got, want*time.Second)
		}
	}
	// A stream that lasted just short of retryResetAfter goes on at the cap.
	s.started = t0
	if got := s.retryDelay(t0.Add(retryResetAfter-time.Millisecond), fresh); got != 8*time.Second {
		t.Errorf("after a short stream: %v, want 8s", got)
	}
	// One that lasted retryResetAfter was healthy: from the shortest wait.
	for i, want := range []time.Duration{1, 2} {
		if got := s.retryDelay(t0.Add(retryResetAfter), fresh); got != want*time.Second {
			t.Errorf("retry %d after a healthy stream waits %v, want %v", i+1, got, want*time.Second)
		}
		s.started = t0.Add(retryResetAfter)
	}
}

func TestTheDefaultRetriesOfAStreamAreJitteredUpTo30s(t *testing.T) {
	s := &stream{backoff: defaultRetryBackoff, started: jobclienttest.T0}
	for i, base := range []time.Duration{1, 2, 4, 8, 16, 30, 30, 30} {
		base *= time.Second
		if got := s.retryDelay(jobclienttest.T0, defaultRetryBackoff); got < base || got > base+base/2 {
			t.Errorf("retry %d waits %v, want %v to %v", i+1, got, base, base+base/2)
		}
	}
}

func TestWhenAStreamIsDueAndHoldsOneOfMaxLogRequests(t *testing.T) {
	for _, tt := range []struct {
		running, gone bool
		phase         corev1.PodPhase
		due, holds    bool
	}{
		{phase: corev1.PodRunning, due: true, holds: true},
		{running: true, phase: corev1.PodRunning, holds: true},
		{running: true, phase: corev1.PodSucceeded, holds: true},
		{phase: corev1.PodSucceeded},
		{phase: corev1.PodFailed},
		{gone: true, phase: corev1.PodRunning},
		{gone: true, running: true, phase: corev1.PodRunning},
	} {
		s := &stream{running: tt.running, gone: tt.gone, pod: podState{Phase: tt.phase}}
		if s.due() != tt.due || s.holdsRequest() != tt.holds {
			t.Errorf("running %v, gone %v, pod %s: due %v, holds a request %v; want %v, %v",
				tt.running, tt.gone, tt.phase, s.due(), s.holdsRequest(), tt.due, tt.holds)
		}
	}
}

func TestAStreamTakesInItsPodAndSaysWhenItsContainerRestarted(t *testing.T) {
	p := tfPod("worker", 0, corev1.PodRunning)
	p.Spec.Containers = []corev1.Container{{Name: "train"}, {Name: "sidecar"}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "train", RestartCount: 2}, {Name: "sidecar", RestartCount: 5}}
	c := &Request{}
	s := newStream(c, p, jobmodel.Replica{Task: "worker-0", Role: "worker"}, "train", defaultRetryBackoff)
	if s.task != "worker-0/train" || s.restarts != 2 || s.key() != "mnist-worker-0/train" || s.pod.Name != "mnist-worker-0" {
		t.Fatalf("new stream %+v", s)
	}
	if s.update(p) {
		t.Error("a restart without a new one")
	}
	p = p.DeepCopy()
	p.Status.Phase = corev1.PodFailed
	p.Status.ContainerStatuses[0].RestartCount = 3
	if !s.update(p) || s.restarts != 3 || s.pod.Phase != corev1.PodFailed {
		t.Errorf("after a restart: %+v", s)
	}
	// The container asked for with --container needs no name of its own.
	if s := newStream(&Request{Container: "train"}, p, jobmodel.Replica{Task: "worker-0"}, "train", defaultRetryBackoff); s.task != "worker-0" {
		t.Errorf("--container train: task %q", s.task)
	}
}

// runnerOf is a streamRunner as follow makes it, on src; it stops with the
// test.
func runnerOf(t *testing.T, c *Request, src Source) (*streamRunner, *syncBuffer, *syncBuffer) {
	t.Helper()
	var stdout, stderr syncBuffer
	c.Source, c.Out, c.ErrOut = src, &stdout, &stderr
	r := newStreamRunner(context.Background(), c)
	t.Cleanup(r.stop)
	return r, &stdout, &stderr
}

// handedBack is the next stream r hands back on ch.
func handedBack(t *testing.T, what string, ch <-chan *stream) *stream {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no stream was handed back", what)
		return nil
	}
}

func TestAStreamOpenedAgainResumesAfterTheLastLineShown(t *testing.T) {
	// Two lines of one time, the stream broken between them: the second is
	// no repeat of the first.
	src := &fakeSource{
		logs:       map[string][]string{"mnist-worker-0": {stamp(1, 0, "a"), stamp(2, 0, "tick"), stamp(2, 0, "tick"), stamp(3, 0, "b")}},
		breakAfter: map[string]int{"mnist-worker-0": 2},
	}
	c := &Request{Tail: 10}
	r, stdout, stderr := runnerOf(t, c, src)
	s := newStream(c, tfPod("worker", 0, corev1.PodRunning), jobmodel.Replica{Task: "worker-0"}, "train", defaultRetryBackoff)
	r.start(s)
	if !s.running {
		t.Error("an opened stream is not running")
	}
	if got := handedBack(t, "the broken stream", r.ended); got != s {
		t.Fatalf("handed back %+v, want the stream", got)
	}
	s.running = false
	r.start(s)
	handedBack(t, "the resumed stream", r.ended)
	r.stop()
	_ = r.out.flush()
	if want := "[worker-0] a\n[worker-0] tick\n[worker-0] tick\n[worker-0] b\n"; stdout.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout.String(), want)
	}
	if stderr.String() != "worker-0: connection reset\n" {
		t.Errorf("stderr %q", stderr.String())
	}
	first, resumed := src.requests[0], src.requests[1]
	if first.TailLines == nil || *first.TailLines != 10 || first.SinceTime != nil || !first.Follow || !first.Timestamps {
		t.Errorf("first request %+v, want tail 10, follow, timestamps", first)
	}
	if resumed.TailLines != nil || resumed.SinceTime == nil || !resumed.SinceTime.Time.Equal(time.Date(2025, 3, 1, 12, 0, 2, 0, time.UTC)) {
		t.Errorf("resumed with %+v, want sinceTime the last line's, no tail", resumed)
	}
}

// errSource fails every stream with err.
type errSource struct{ err error }

func (s errSource) Stream(context.Context, string, string, *corev1.PodLogOptions) (io.ReadCloser, error) {
	return nil, s.err
}

func TestWhatAStreamThatCouldNotBeOpenedSays(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{errors.New("connection refused"), "worker-0: connection refused\n"},
		// The container's log is not there to read (yet): nothing to say.
		{apierrors.NewBadRequest("container \"train\" in pod \"mnist-worker-0\" is waiting to start"), ""},
	} {
		c := &Request{}
		r, _, stderr := runnerOf(t, c, errSource{tt.err})
		s := newStream(c, tfPod("worker", 0, corev1.PodRunning), jobmodel.Replica{Task: "worker-0"}, "train", defaultRetryBackoff)
		r.start(s)
		handedBack(t, tt.err.Error(), r.ended)
		if stderr.String() != tt.want {
			t.Errorf("%v: stderr %q, want %q", tt.err, stderr.String(), tt.want)
		}
	}
}

func TestStoppingTheStreamsEndsThemSilently(t *testing.T) {
	src := &followSource{fakeSource{logs: map[string][]string{"mnist-worker-0": {stamp(1, 0, "step 1")}}}}
	c := &Request{Tail: -1}
	r, stdout, stderr := runnerOf(t, c, src)
	r.start(newStream(c, tfPod("worker", 0, corev1.PodRunning), jobmodel.Replica{Task: "worker-0"}, "train", defaultRetryBackoff))
	waitFor(t, "stdout", stdout, "[worker-0] step 1\n")
	// No one takes the stream that ended: stop does not wait for that.
	stopped := make(chan struct{})
	go func() { r.stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("stop did not return")
	}
	if stderr.String() != "" {
		t.Errorf("stderr %q", stderr.String())
	}
}

func TestAStreamIsHandedBackForARetryAfterItsBackoff(t *testing.T) {
	clock := clocktesting.NewFakeClock(jobclienttest.T0)
	backoff := wait.Backoff{Duration: 2 * time.Second, Factor: 2, Steps: math.MaxInt32, Cap: time.Minute}
	c := &Request{clock: clock, retryBackoff: &backoff}
	r, _, _ := runnerOf(t, c, errSource{errors.New("unused")})
	s := &stream{backoff: backoff, started: clock.Now()}
	notYet := func(what string) {
		t.Helper()
		select {
		case <-r.retry:
			t.Fatalf("%s: retried too early", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
	for _, delay := range []time.Duration{2 * time.Second, 4 * time.Second} {
		r.retryLater(s)
		clock.Step(delay - time.Millisecond)
		notYet(delay.String())
		clock.Step(time.Millisecond)
		if got := handedBack(t, "after "+delay.String(), r.retry); got != s {
			t.Fatalf("handed back %+v", got)
		}
	}
	// After a healthy stream, the shortest wait again.
	s.started = clock.Now()
	clock.Step(retryResetAfter)
	r.retryLater(s)
	clock.Step(2 * time.Second)
	handedBack(t, "after a healthy stream", r.retry)
}

func TestAStreamOnlyAsksForTailAndSinceWhenItDoesNotResume(t *testing.T) {
	c := &Request{Tail: 5, Since: 90 * time.Second}
	s := &stream{container: "train"}
	opts := c.streamOptions(s)
	if opts.Container != "train" || !opts.Follow || !opts.Timestamps || opts.TailLines == nil || *opts.TailLines != 5 ||
		opts.SinceSeconds == nil || *opts.SinceSeconds != 90 || opts.SinceTime != nil {
		t.Errorf("first opening: %+v", opts)
	}
	if err := copyLines(strings.NewReader(stamp(7, 0, "seen")+"\n"), &lineWriter{w: io.Discard}, "", &s.resume, false); err != nil {
		t.Fatal(err)
	}
	opts = c.streamOptions(s)
	if opts.TailLines != nil || opts.SinceSeconds != nil || opts.SinceTime == nil || opts.SinceTime.Time.Second() != 7 {
		t.Errorf("resuming: %+v", opts)
	}
}
