package logs

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/clock"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// defaultRetryBackoff spaces the retries of a broken stream of a running
// container: 1s, 2s, 4s ... up to 30s, each up to half again at random, so
// that the streams of many replicas do not hammer an API server that is down
// in step.
var defaultRetryBackoff = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.5, Steps: math.MaxInt32, Cap: 30 * time.Second}

// retryResetAfter: a stream that lasted this long was healthy; its next
// retry starts again from the shortest wait.
const retryResetAfter = time.Minute

// stream is one container of one pod being followed. The watch loop
// (jobWatch) owns it and alone calls its methods; the goroutine reading it
// (streamRunner.copy) gets what it needs by value (a streamTarget), and
// resume, which no one else touches while it runs.
type stream struct {
	// pod is the pod as last seen by the watch loop.
	pod       podState
	task      string
	container string
	resume    resumePoint
	restarts  int32
	running   bool
	// gone: the stream is not opened again, neither when it ends nor at the
	// job's end to read what is left, and holds none of --max-log-requests.
	// Its pod was deleted (or was missing when the pods were listed again),
	// or the stream was left out for --max-log-requests. A stream open when
	// it goes is read until the API server ends it.
	gone bool
	// backoff spaces its retries; started is when it was last opened.
	backoff wait.Backoff
	started time.Time
}

// newStream is the stream of one container of the pod of replica r, its
// restarts as the pod counts them and its retries spaced by backoff.
func newStream(c *Request, p *corev1.Pod, r jobmodel.Replica, container string, backoff wait.Backoff) *stream {
	return &stream{pod: stateOf(p), task: streamName(r.Task, p, container, c.Container), container: container,
		restarts: restartsOf(p, container), backoff: backoff}
}

// key names the stream among the job's: its pod's UID and its container.
func (s *stream) key() string { return string(s.pod.UID) + "/" + s.container }

// holdsRequest reports whether the stream holds, or will hold again, one of
// --max-log-requests: it is open, or will be opened again as its pod runs.
// A stream that ended with its container, or is gone, holds none.
func (s *stream) holdsRequest() bool {
	return !s.gone && (s.running || s.pod.Phase == corev1.PodRunning)
}

// due reports whether the stream is to be opened (again) now: it is not
// open, not gone, and its pod runs.
func (s *stream) due() bool {
	return !s.running && !s.gone && s.pod.Phase == corev1.PodRunning
}

// update takes in the pod as the watch now sees it; restarted says its
// container restarted since it was last seen.
func (s *stream) update(p *corev1.Pod) (restarted bool) {
	s.pod = stateOf(p)
	if restarts := restartsOf(p, s.container); restarts > s.restarts {
		s.restarts = restarts
		return true
	}
	return false
}

// opened records that the stream was opened at now.
func (s *stream) opened(now time.Time) {
	s.running = true
	s.started = now
}

// retryDelay is how long to wait, at now, before the stream that just ended
// is opened again: longer after each retry, up to its backoff's cap; after a
// stream that lasted retryResetAfter (a healthy one), from fresh again.
func (s *stream) retryDelay(now time.Time, fresh wait.Backoff) time.Duration {
	if now.Sub(s.started) >= retryResetAfter {
		s.backoff = fresh
	}
	return s.backoff.Step()
}

// podState is what a stream keeps of its pod: not the pod itself, since the
// pod of a big job can carry every replica's address in its environment
// (TF_CONFIG), tens of KB for each of hundreds of pods.
type podState struct {
	UID             types.UID
	Namespace, Name string
	Phase           corev1.PodPhase
}

func stateOf(p *corev1.Pod) podState {
	return podState{UID: p.UID, Namespace: p.Namespace, Name: p.Name, Phase: p.Status.Phase}
}

// streamTarget is what reading one stream needs, fixed when it is opened.
type streamTarget struct {
	namespace, pod, task string
	opts                 *corev1.PodLogOptions
}

// target is what reading the stream with opts needs.
func (s *stream) target(opts *corev1.PodLogOptions) streamTarget {
	return streamTarget{namespace: s.pod.Namespace, pod: s.pod.Name, task: s.task, opts: opts}
}

// restartsOf is how many times a container of the pod restarted.
func restartsOf(p *corev1.Pod, container string) int32 {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container {
			return cs.RestartCount
		}
	}
	return 0
}

// streamRunner reads the followed streams, each in a goroutine of its own,
// into the one lineWriter they share. It hands a stream back to the watch
// loop on ended when it ends, and on retry when, after its backoff, it may
// be opened again; the loop decides what to do with it. stop ends every
// stream and waits for their goroutines.
type streamRunner struct {
	c   *Request
	clk clock.WithDelayedExecution
	// ctx is the streams' own: cancelled by stop, or with the caller's.
	ctx    context.Context
	cancel context.CancelFunc
	out    *lineWriter
	wg     sync.WaitGroup
	ended  chan *stream
	retry  chan *stream
}

// newStreamRunner is the runner of c's streams, stopped with ctx at the
// latest.
func newStreamRunner(ctx context.Context, c *Request) *streamRunner {
	r := &streamRunner{c: c, clk: c.retryClock(), out: &lineWriter{w: c.Out, terminal: c.Terminal},
		ended: make(chan *stream), retry: make(chan *stream)}
	r.ctx, r.cancel = context.WithCancel(ctx)
	return r
}

// start opens the stream and reads it in a goroutine of its own: from the
// last line shown when it resumes, else as --tail and --since say.
func (r *streamRunner) start(s *stream) {
	s.opened(r.clk.Now())
	target := s.target(r.c.streamOptions(s))
	r.wg.Add(1)
	go r.copy(s, target, &s.resume)
}

// copy reads one stream until it ends, says why it broke unless following
// stopped (or the container's log is not there to read: a 400), and hands
// the stream back on ended.
func (r *streamRunner) copy(s *stream, t streamTarget, resume *resumePoint) {
	defer r.wg.Done()
	if err := r.c.copyStream(r.ctx, t, resume, r.out); err != nil && r.ctx.Err() == nil && !apierrors.IsBadRequest(err) {
		fmt.Fprintf(r.c.ErrOut, "%s: %v\n", t.task, err)
	}
	r.hand(r.ended, s)
}

// retryLater hands the stream that ended back on retry after its backoff.
func (r *streamRunner) retryLater(s *stream) {
	delay := s.retryDelay(r.clk.Now(), r.c.streamBackoff())
	// (A fake clock runs the function while it holds its lock.)
	r.clk.AfterFunc(delay, func() { go r.hand(r.retry, s) })
}

// hand gives s to the watch loop on ch, unless following stopped.
func (r *streamRunner) hand(ch chan<- *stream, s *stream) {
	select {
	case ch <- s:
	case <-r.ctx.Done():
	}
}

// stop ends every stream and waits until none is read any more.
func (r *streamRunner) stop() {
	r.cancel()
	r.wg.Wait()
}

func (c *Request) retryClock() clock.WithDelayedExecution {
	if c.clock == nil {
		return clock.RealClock{}
	}
	return c.clock
}

func (c *Request) streamBackoff() wait.Backoff {
	if c.retryBackoff != nil {
		return *c.retryBackoff
	}
	return defaultRetryBackoff
}

// copyStream reads one stream until it ends.
func (c *Request) copyStream(ctx context.Context, t streamTarget, resume *resumePoint, out *lineWriter) error {
	body, err := c.Source.Stream(ctx, t.namespace, t.pod, t.opts)
	if err != nil {
		return err
	}
	defer body.Close()
	return copyLines(body, out, prefixOf(c.Prefix+t.task, c.Colour), resume, c.Timestamps)
}

// streamOptions asks for stamped lines: from the last one shown when the
// stream resumes, else as --tail and --since say.
func (c *Request) streamOptions(s *stream) *corev1.PodLogOptions {
	opts := &corev1.PodLogOptions{Container: s.container, Follow: true, Timestamps: true}
	if !s.resume.last.IsZero() {
		since := metav1.NewTime(s.resume.last)
		opts.SinceTime = &since
		return opts
	}
	if c.Tail >= 0 {
		tail := c.Tail
		opts.TailLines = &tail
	}
	if c.Since > 0 {
		secs := int64(c.Since.Seconds())
		opts.SinceSeconds = &secs
	}
	return opts
}
