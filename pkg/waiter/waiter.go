// Package waiter waits for a training job to reach a state: one watch on the
// job (resumed where it left off when the connection drops, restarted from a
// fresh GET when the API server has forgotten that point), each event read
// with the kind's Summarize. It is the engine of "easyai wait" and
// "easyai submit --wait"; it knows nothing of flags or terminals.
package waiter

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// DefaultStuckAfter is how long a pod may stay in a crash loop, or wait for
// a missing Secret or ConfigMap, before wait and submit --wait end (exit 4).
const DefaultStuckAfter = time.Minute

// DefaultTimeout is how long wait and submit --wait wait without --timeout.
const DefaultTimeout = time.Hour

// Condition is what a wait waits for.
type Condition string

const (
	// Running is reached once the job runs (or has already succeeded).
	Running Condition = "running"
	// Finished is reached when the job succeeded or failed.
	Finished Condition = "finished"
	// Succeeded is reached when the job succeeded.
	Succeeded Condition = "succeeded"
	// Suspended is reached once the job is suspended; a job that succeeds
	// first ends the wait with an error.
	Suspended Condition = "suspended"
	// Admitted is reached once Kueue admits the job (its Workload is
	// Admitted): a job in a Kueue LocalQueue only.
	Admitted Condition = "admitted"
)

// Conditions lists the conditions, for help and completion.
var Conditions = []Condition{Running, Finished, Succeeded, Suspended, Admitted}

// ParseCondition reads --for.
func ParseCondition(s string) (Condition, error) {
	for _, c := range Conditions {
		if string(c) == strings.ToLower(s) {
			return c, nil
		}
	}
	return "", exit.UsageErrorf("--for %q: must be running, finished, succeeded, suspended or admitted", s)
}

// Request is one wait.
type Request struct {
	Dynamic     dynamic.Interface
	Kind        kinds.Kind
	GPUResource corev1.ResourceName
	// Object is the job as last read (its resourceVersion starts the watch).
	Object *unstructured.Unstructured
	For    Condition
	// Timeout bounds the wait; 0 waits as long as ctx lets it.
	Timeout time.Duration
	// Now is the clock (elapsed times); nil is time.Now.
	Now func() time.Time
	// Running (when not nil) is told the job as read the first time the
	// wait sees it running without being over (a wait for finished,
	// succeeded or suspended), e.g. to notify that it started.
	Running func(*unstructured.Unstructured)
	// PodStatuses (when not nil) reads the status of each of the job's pods
	// as kubectl shows it (kube.PodStatuses). The wait asks it at once and
	// every PodPollInterval: a pod that cannot start until the job is
	// changed (StuckReasons) ends the wait as a failure, exit 4, since the
	// operator would leave the job Pending until the timeout; so does a pod
	// that stays StuckAfter in a crash loop, or being made while a Secret
	// or ConfigMap it mounts is missing (MountFailures).
	PodStatuses func(ctx context.Context) (map[string]string, error)
	// StuckAfter is how long a pod may stay in a crash loop, or wait for a
	// missing Secret or ConfigMap, before the wait ends; 0 waits them out.
	StuckAfter time.Duration
	// MountFailures (when not nil) reads, for the pods of the namespace
	// that have one, the latest message of a FailedMount that names a
	// missing Secret or ConfigMap (kube.MissingMounts). It is asked only
	// once a pod has been made for StuckAfter without starting.
	MountFailures func(ctx context.Context) (map[string]string, error)
}

// PodPollInterval is how often a wait reads the statuses of the job's pods.
var PodPollInterval = 5 * time.Second

// StuckReasons are the pod statuses that nothing but a change of the job
// ends: an image the node does not have and may not pull, an image name
// that is no name, a container whose environment names a Secret or
// ConfigMap key that does not exist. They end a wait at once.
var StuckReasons = map[string]bool{
	"ErrImageNeverPull":          true,
	"InvalidImageName":           true,
	"CreateContainerConfigError": true,
}

// stuckError is why a pod of the job cannot go on.
type stuckError struct{ pod, why string }

// (The pod's name and why are the cluster's: shown on one line, no control
// character.)
func (e *stuckError) Error() string {
	return "pod " + jobmodel.OneLine(e.pod) + " " + jobmodel.OneLine(e.why)
}

// starting is true of a status kubectl shows while a pod's containers are
// being made: what holds it up is said only by events.
func starting(status string) bool {
	return status == "ContainerCreating" || status == "PodInitializing" ||
		(strings.HasPrefix(status, "Init:") && strings.Contains(status, "/"))
}

// podWatch follows the statuses of the job's pods between polls: since when
// each pod has shown its present status.
type podWatch struct {
	r     *Request
	now   func() time.Time
	since map[string]time.Time // pod + "\x00" + status
}

// check reads the statuses once; it returns why a pod is stuck, or nil.
func (w *podWatch) check(ctx context.Context) (*stuckError, error) {
	got, err := w.r.PodStatuses(ctx)
	if err != nil {
		return nil, err
	}
	now := w.now()
	seen := make(map[string]time.Time, len(got))
	var making []string // pods being made for StuckAfter or more
	for _, pod := range slices.Sorted(maps.Keys(got)) {
		status := got[pod]
		key := pod + "\x00" + status
		since, ok := w.since[key]
		if !ok {
			since = now
		}
		seen[key] = since
		reason := strings.TrimPrefix(status, "Init:")
		switch long := w.r.StuckAfter > 0 && now.Sub(since) >= w.r.StuckAfter; {
		case StuckReasons[reason]:
			return &stuckError{pod: pod, why: "cannot start: " + status}, nil
		case reason == "CrashLoopBackOff" && long:
			return &stuckError{pod: pod, why: "keeps crashing: " + status + " for " + w.r.StuckAfter.String() + " (--stuck-after)"}, nil
		case starting(status) && long:
			making = append(making, pod)
		}
	}
	w.since = seen
	if len(making) == 0 || w.r.MountFailures == nil {
		return nil, nil
	}
	mounts, err := w.r.MountFailures(ctx)
	if err != nil {
		return nil, nil // (events may not be readable: the wait goes on)
	}
	for _, pod := range making {
		if msg, ok := mounts[pod]; ok {
			return &stuckError{pod: pod, why: "cannot start: FailedMount: " + msg}, nil
		}
	}
	return nil, nil
}

// watchPods ends ctx (with a *stuckError as its cause) once a pod of the
// job is stuck; it returns when ctx ends. A read that fails (the user may
// not list pods) ends the watch of pods, not the wait.
func watchPods(ctx context.Context, cancel context.CancelCauseFunc, w *podWatch) {
	ticker := time.NewTicker(PodPollInterval)
	defer ticker.Stop()
	for {
		stuck, err := w.check(ctx)
		if err != nil {
			return
		}
		if stuck != nil {
			cancel(stuck)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// Result is how a wait ended: the job as last seen, its summary and how long
// the wait took. Wait returns it with its error too, except when the job is gone.
type Result struct {
	Object  *unstructured.Unstructured
	Summary jobmodel.Summary
	Elapsed time.Duration
}

// Line is the one-line report of a result: "tf/mnist Succeeded after 3m2s".
func (r *Result) Line(k kinds.Kind) string {
	return fmt.Sprintf("%s/%s %s after %s", k.Name(), r.Object.GetName(), r.Summary.Status.State, r.Elapsed.Round(time.Second))
}

// outcome says whether the state ends a wait for c, and with which error.
func outcome(c Condition, s jobmodel.Status) (done bool, failed bool) {
	switch {
	case s.State == jobmodel.Failed:
		return true, true
	case c == Running:
		return s.State == jobmodel.Running || s.State == jobmodel.Succeeded, false
	case c == Finished:
		return s.State.Final(), false
	case c == Suspended:
		return s.State == jobmodel.Suspended || s.State == jobmodel.Succeeded, false
	default:
		return s.State == jobmodel.Succeeded, false
	}
}

// Wait waits until the job reaches r.For. It returns a JobFailed error (exit
// 4) when the job fails or a pod of it is stuck (r.PodStatuses), a
// Timeout error (5) when r.Timeout runs out, a
// NotFound error (3) when the job is deleted, and ctx's error when cancelled.
func Wait(ctx context.Context, r Request) (*Result, error) {
	now := r.Now
	if now == nil {
		now = time.Now
	}
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	if r.PodStatuses != nil {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		// Nothing of the watch of pods outlives the wait.
		watched := make(chan struct{})
		defer func() { cancel(nil); <-watched }()
		go func() {
			defer close(watched)
			watchPods(ctx, cancel, &podWatch{r: &r, now: now})
		}()
	}
	w := &wait{r: &r, k: r.Kind, name: r.Object.GetName(), now: now, start: now(),
		client: r.Dynamic.Resource(r.Kind.Resource()).Namespace(r.Object.GetNamespace()),
		res:    &Result{Object: r.Object}}
	return w.run(ctx)
}

// wait is one Wait: the job as last seen and whether it was seen running.
type wait struct {
	r      *Request
	k      kinds.Kind
	name   string
	client dynamic.ResourceInterface
	now    func() time.Time
	start  time.Time
	res    *Result
	// sawRunning: r.Running was called.
	sawRunning bool
}

// run checks the job, then watches it from the version read, again after
// each watch that ended without an answer, and reads it again when the
// version a watch resumed from expired.
func (w *wait) run(ctx context.Context) (*Result, error) {
	deleted := exit.NotFoundErrorf("%s/%s was deleted while waiting", w.k.Name(), w.name)
	obj := w.r.Object
	for {
		if done, err := w.check(obj); done || err != nil {
			return w.res, err
		}
		rw, err := watchtools.NewRetryWatcherWithContext(ctx, obj.GetResourceVersion(), &jobWatcher{client: w.client, name: w.name})
		if err != nil {
			return w.res, fmt.Errorf("watching %s/%s: %w", w.k.Name(), w.name, err)
		}
		done, expired, err := follow(ctx, rw, w.check)
		rw.Stop()
		<-rw.Done() // nothing of the watch outlives the wait
		switch {
		case errors.Is(err, errDeleted):
			return nil, deleted
		case done:
			return w.res, err
		case ctx.Err() != nil:
			return w.stopped(ctx)
		case err != nil:
			return w.res, err
		case !expired:
			continue
		}
		// The API server no longer has the version the watch resumed from:
		// read the job again and watch from there.
		obj, err = w.client.Get(ctx, w.name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil, deleted
		case ctx.Err() != nil:
			return w.stopped(ctx)
		case err != nil:
			return w.res, fmt.Errorf("getting %s/%s: %w", w.k.Name(), w.name, err)
		}
	}
}

// check reads one version of the job; done says whether the wait is over.
func (w *wait) check(obj *unstructured.Unstructured) (bool, error) {
	s, err := w.k.Summarize(obj, w.r.GPUResource)
	if err != nil {
		return false, nil // a version the kind cannot read: wait for the next
	}
	w.res.Object, w.res.Summary, w.res.Elapsed = obj, s, w.now().Sub(w.start)
	done, failed := outcome(w.r.For, s.Status)
	if !done && s.Status.State == jobmodel.Running && !w.sawRunning && w.r.Running != nil {
		w.sawRunning = true
		w.r.Running(obj)
	}
	if failed {
		return true, exit.JobFailedErrorf("%s%s", w.res.Line(w.k), why(s.Status))
	}
	if done && w.r.For == Suspended && s.Status.State == jobmodel.Succeeded {
		return true, fmt.Errorf("%s: it finished before it was suspended", w.res.Line(w.k))
	}
	return done, nil
}

// stopped is the error of a wait its context ended: a stuck pod, the
// timeout, or the caller's cancel.
func (w *wait) stopped(ctx context.Context) (*Result, error) {
	w.res.Elapsed = w.now().Sub(w.start)
	if stuck := (*stuckError)(nil); errors.As(context.Cause(ctx), &stuck) {
		return w.res, exit.JobFailedErrorf("%s: %v", w.res.Line(w.k), stuck)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && w.r.Timeout > 0 {
		return w.res, exit.TimeoutErrorf("%s/%s still %s after %s (waiting for %s)", w.k.Name(), w.name, w.res.Summary.Status.State, w.r.Timeout, w.r.For)
	}
	return w.res, ctx.Err()
}

var errDeleted = errors.New("deleted")

// follow reads the watch's events until check says done, the job is deleted,
// the watch's starting point expired, or ctx ends.
func follow(ctx context.Context, w watch.Interface, check func(*unstructured.Unstructured) (bool, error)) (done, expired bool, err error) {
	for {
		select {
		case <-ctx.Done():
			return false, false, ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				if ctx.Err() != nil {
					return false, false, ctx.Err()
				}
				return false, true, nil
			}
			switch ev.Type {
			case watch.Added, watch.Modified:
				obj, ok := ev.Object.(*unstructured.Unstructured)
				if !ok {
					continue
				}
				if done, err := check(obj); done || err != nil {
					return done, false, err
				}
			case watch.Deleted:
				return false, false, errDeleted
			case watch.Error:
				status := apierrors.FromObject(ev.Object)
				if apierrors.IsResourceExpired(status) || apierrors.IsGone(status) {
					return false, true, nil
				}
				return false, false, fmt.Errorf("watching the job: %w", status)
			}
		}
	}
}

// jobWatcher watches one job by name.
type jobWatcher struct {
	client dynamic.ResourceInterface
	name   string
}

func (w *jobWatcher) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", w.name).String()
	return w.client.Watch(ctx, opts)
}

// why is ": Reason: message" of a status, when it has them.
func why(s jobmodel.Status) string {
	var parts []string
	for _, p := range []string{s.Reason, s.Message} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ": ") + ")"
}
