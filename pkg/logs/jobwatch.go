package logs

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// jobWatch is the watch loop of logs -f. It watches the job's pods, the job
// and its gang's events (gangWatch), and decides which streams are read:
// a stream for each container of each selected pod, opened as the pod runs
// (streamRunner), again after a restart or a broken stream, never more than
// --max-log-requests at once; a deleted pod's streams are gone. A watch that
// ends is replaced after a LIST that takes in what changed meanwhile. The
// job's final state ends the loop, its deletion ends it with an error. It
// owns the streams: only its goroutine reads or changes them.
type jobWatch struct {
	c        *Request
	ns, name string
	sel      selection
	// listed is the replica of each pod of the first LIST, until those pods
	// are taken in; a pod seen later is looked up on its own.
	listed map[string]jobmodel.Replica
	// pending is the reason last shown for each Pending pod.
	pending map[string]string
	streams map[string]*stream
	order   []*stream

	jobs   dynamic.ResourceInterface
	byName string
	// pods and job are the current watches, replaced when they end.
	pods, job watch.Interface
	gang      *gangWatch
	runner    *streamRunner
}

// newJobWatch is the watch loop of following c.Job: selected are the
// replicas asked for, replicas all those of the first LIST of its pods. Its
// watches are opened by open.
func newJobWatch(ctx context.Context, c *Request, selected, replicas []jobmodel.Replica) *jobWatch {
	ns, name := c.Job.GetNamespace(), c.Job.GetName()
	w := &jobWatch{c: c, ns: ns, name: name, sel: newSelection(c, selected),
		listed: make(map[string]jobmodel.Replica, len(replicas)), pending: map[string]string{}, streams: map[string]*stream{},
		jobs:   c.Dynamic.Resource(c.Kind.Resource()).Namespace(ns),
		byName: fields.OneTermEqualSelector("metadata.name", name).String(),
		gang:   newGangWatch(c), runner: newStreamRunner(ctx, c)}
	for _, r := range replicas {
		if r.Pod != "" {
			w.listed[r.Pod] = r
		}
	}
	return w
}

// open watches the gang's events (showing the latest when waiting for pods),
// the pods from the first LIST's resourceVersion and the job from the
// version it was read at.
func (w *jobWatch) open(ctx context.Context, podsVersion string, waiting bool) error {
	if err := w.gang.open(ctx, waiting); err != nil {
		return err
	}
	var err error
	if w.pods, err = w.watchPods(ctx, podsVersion); err != nil {
		return fmt.Errorf("watching the pods of %s/%s: %w", w.c.Kind.Name(), w.name, err)
	}
	if w.job, err = w.watchJob(ctx, w.c.Job.GetResourceVersion()); err != nil {
		return fmt.Errorf("watching %s/%s: %w", w.c.Kind.Name(), w.name, err)
	}
	return nil
}

// watchPods watches the job's pods from a LIST's resourceVersion.
func (w *jobWatch) watchPods(ctx context.Context, resourceVersion string) (watch.Interface, error) {
	return watchFrom(ctx, resourceVersion, watcherFunc(func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.LabelSelector = w.c.Kind.PodSelector(w.name)
		return w.c.Kube.CoreV1().Pods(w.ns).Watch(ctx, opts)
	}))
}

// watchJob watches the job from a resourceVersion it was read at.
func (w *jobWatch) watchJob(ctx context.Context, resourceVersion string) (watch.Interface, error) {
	return watchFrom(ctx, resourceVersion, watcherFunc(func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.FieldSelector = w.byName
		return w.jobs.Watch(ctx, opts)
	}))
}

// close stops the streams, shows what they read, and stops the watches.
func (w *jobWatch) close() {
	w.runner.stop()
	_ = w.runner.out.flush()
	w.gang.stop()
	for _, wi := range []watch.Interface{w.pods, w.job} {
		if wi != nil {
			wi.Stop()
		}
	}
}

// takeIn takes in the pods of the first LIST, whose replicas are known.
func (w *jobWatch) takeIn(pods *corev1.PodList) {
	for i := range pods.Items {
		w.onPod(&pods.Items[i], false)
	}
	w.listed = nil
}

// run is the watch loop: it takes in what each watch sends and what the
// streams do until the job ends (its final state) or following fails.
func (w *jobWatch) run(ctx context.Context) (jobmodel.Status, error) {
	for {
		select {
		case <-ctx.Done():
			return jobmodel.Status{}, ctx.Err()
		case ev, ok := <-w.pods.ResultChan():
			if err := w.onPodEvent(ctx, ev, ok); err != nil {
				return jobmodel.Status{}, err
			}
		case ev, ok := <-w.gang.ch:
			w.gang.onEvent(ctx, ev, ok, len(w.streams) == 0)
		case ev, ok := <-w.job.ResultChan():
			if final, done, err := w.onJobEvent(ctx, ev, ok); done || err != nil {
				return final, err
			}
		case s := <-w.runner.ended:
			w.onStreamEnded(s)
		case s := <-w.runner.retry:
			if s.due() {
				w.runner.start(s)
			}
		}
	}
}

// onPodEvent takes in what the pod watch sent (ok: the watch goes on);
// a watch that ended is replaced (relistPods).
func (w *jobWatch) onPodEvent(ctx context.Context, ev watch.Event, ok bool) error {
	if !ok {
		return w.relistPods(ctx)
	}
	if p, isPod := ev.Object.(*corev1.Pod); isPod {
		w.onPod(p, ev.Type == watch.Deleted)
	}
	return nil
}

// onPod takes in a pod of the job as it is now, or its deletion: a pod of a
// replica not followed is ignored; a deleted pod's streams are gone; a
// Pending pod's reason is shown once; each container of a pod that runs or
// ran is followed.
func (w *jobWatch) onPod(p *corev1.Pod, deleted bool) {
	r, ok := w.listed[p.Name]
	if !ok {
		r, ok = replicaOf(w.c, p)
	}
	if !ok || !w.sel.has(r) {
		return
	}
	switch {
	case deleted:
		w.podGone(p.UID)
	case p.Status.Phase == corev1.PodPending || p.Status.Phase == "":
		w.showPending(p, r)
	default:
		for _, container := range containersOf(p, w.c.Container) {
			w.followContainer(p, r, container)
		}
	}
}

// podGone marks the streams of a pod that is no more as gone.
func (w *jobWatch) podGone(uid types.UID) {
	for _, s := range w.order {
		if s.pod.UID == uid {
			s.gone = true
		}
	}
}

// showPending says why a Pending pod waits, unless it said so last.
func (w *jobWatch) showPending(p *corev1.Pod, r jobmodel.Replica) {
	if why := kube.PendingReason(p); why != w.pending[string(p.UID)] {
		w.pending[string(p.UID)] = why
		fmt.Fprintf(w.c.ErrOut, "%s is Pending: %s\n", r.Task, why)
	}
}

// followContainer follows a container of a pod that is not Pending: a new
// stream is opened (or left out beyond --max-log-requests), a known one
// takes in the pod, says when the container restarted and is opened again
// when it is due.
func (w *jobWatch) followContainer(p *corev1.Pod, r jobmodel.Replica, container string) {
	s, known := w.streams[string(p.UID)+"/"+container]
	if !known {
		w.add(newStream(w.c, p, r, container, w.c.streamBackoff()))
		return
	}
	if s.update(p) {
		fmt.Fprintf(w.c.ErrOut, "%s restarted (%d restarts)\n", s.task, s.restarts)
	}
	if s.due() {
		w.runner.start(s)
	}
}

// add follows a new stream, unless --max-log-requests streams are followed
// already: it is then left out (gone), and said so.
func (w *jobWatch) add(s *stream) {
	full := w.followed() >= w.c.MaxLogRequests
	w.streams[s.key()] = s
	w.order = append(w.order, s)
	if full {
		fmt.Fprintf(w.c.ErrOut, "%s: not followed: more than --max-log-requests %d streams\n", s.task, w.c.MaxLogRequests)
		s.gone = true
		return
	}
	w.runner.start(s)
}

// followed counts the streams that hold, or will hold again, one of the
// --max-log-requests: not those that ended with their container.
func (w *jobWatch) followed() int {
	n := 0
	for _, s := range w.order {
		if s.holdsRequest() {
			n++
		}
	}
	return n
}

// onStreamEnded takes back a stream that ended: one whose pod still runs
// is opened again after its backoff.
func (w *jobWatch) onStreamEnded(s *stream) {
	s.running = false
	if s.due() {
		w.runner.retryLater(s)
	}
}

// relistPods takes in what happened to the pods while no watch was open,
// and watches them again from there: the streams of pods no longer listed
// are gone.
func (w *jobWatch) relistPods(ctx context.Context) error {
	w.pods.Stop()
	var pods *corev1.PodList
	err := retryList(ctx, func(ctx context.Context) (err error) {
		pods, err = listPods(ctx, w.c.Kube, w.ns, w.c.Kind.PodSelector(w.name))
		return err
	})
	if err != nil {
		return fmt.Errorf("listing the pods of %s/%s again: %w", w.c.Kind.Name(), w.name, err)
	}
	live := map[types.UID]bool{}
	for i := range pods.Items {
		live[pods.Items[i].UID] = true
	}
	for _, s := range w.order {
		if !live[s.pod.UID] {
			s.gone = true
		}
	}
	for i := range pods.Items {
		w.onPod(&pods.Items[i], false)
	}
	if w.pods, err = w.watchPods(ctx, pods.ResourceVersion); err != nil {
		return fmt.Errorf("watching the pods of %s/%s: %w", w.c.Kind.Name(), w.name, err)
	}
	return nil
}

// onJobEvent takes in what the job watch sent (ok: the watch goes on);
// done: the job reached final, its final state. A watch that ended is
// replaced (relistJob); a deleted job is a not-found error.
func (w *jobWatch) onJobEvent(ctx context.Context, ev watch.Event, ok bool) (final jobmodel.Status, done bool, err error) {
	if !ok {
		return w.relistJob(ctx)
	}
	obj, isObj := ev.Object.(*unstructured.Unstructured)
	if !isObj {
		return final, false, nil
	}
	if ev.Type == watch.Deleted {
		return final, false, exit.NotFoundErrorf("%s/%s was deleted", w.c.Kind.Name(), w.name)
	}
	return w.jobIs(obj)
}

// jobIs takes in the job as it is now; done: it reached final.
func (w *jobWatch) jobIs(obj *unstructured.Unstructured) (final jobmodel.Status, done bool, err error) {
	w.c.Job = obj
	if s := jobState(w.c.Kind, obj); s.State.Final() {
		return s, true, nil
	}
	return final, false, nil
}

// relistJob reads the job again after its watch ended, and watches it
// again from there; done: it has ended meanwhile.
func (w *jobWatch) relistJob(ctx context.Context) (final jobmodel.Status, done bool, err error) {
	w.job.Stop()
	var current *unstructured.UnstructuredList
	err = retryList(ctx, func(ctx context.Context) (err error) {
		current, err = w.jobs.List(ctx, metav1.ListOptions{FieldSelector: w.byName})
		return err
	})
	if err != nil {
		return final, false, fmt.Errorf("reading %s/%s again: %w", w.c.Kind.Name(), w.name, err)
	}
	var obj *unstructured.Unstructured
	for i := range current.Items {
		if current.Items[i].GetName() == w.name {
			obj = &current.Items[i]
		}
	}
	if obj == nil {
		return final, false, exit.NotFoundErrorf("%s/%s was deleted", w.c.Kind.Name(), w.name)
	}
	if final, done, _ = w.jobIs(obj); done {
		return final, true, nil
	}
	if w.job, err = w.watchJob(ctx, current.GetResourceVersion()); err != nil {
		return final, false, fmt.Errorf("watching %s/%s: %w", w.c.Kind.Name(), w.name, err)
	}
	return final, false, nil
}

// drain reads, without following, what each stream of the job's pods has
// not shown yet: the lines written before the job ended. It runs once the
// streams stopped.
func (w *jobWatch) drain(ctx context.Context) {
	pods, err := listPods(ctx, w.c.Kube, w.ns, w.c.Kind.PodSelector(w.name))
	if err != nil {
		fmt.Fprintf(w.c.ErrOut, "listing the pods of %s/%s: %v\n", w.c.Kind.Name(), w.name, err)
		return
	}
	for i := range pods.Items {
		w.addUnfollowed(&pods.Items[i])
	}
	for _, s := range w.order {
		if s.gone {
			continue
		}
		opts := w.c.streamOptions(s)
		opts.Follow = false
		if err := w.c.copyStream(ctx, s.target(opts), &s.resume, w.runner.out); err != nil && !apierrors.IsNotFound(err) {
			fmt.Fprintf(w.c.ErrOut, "%s: %v\n", s.task, err)
		}
	}
}

// addUnfollowed adds, for drain, a stream for each container of a selected
// pod that was never followed (one that ran while no watch saw it); a
// Pending pod has nothing to read.
func (w *jobWatch) addUnfollowed(p *corev1.Pod) {
	r, ok := replicaOf(w.c, p)
	if !ok || !w.sel.has(r) || p.Status.Phase == corev1.PodPending {
		return
	}
	for _, container := range containersOf(p, w.c.Container) {
		if _, known := w.streams[string(p.UID)+"/"+container]; !known {
			s := newStream(w.c, p, r, container, wait.Backoff{})
			w.streams[s.key()] = s
			w.order = append(w.order, s)
		}
	}
}
