package logs

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/job"
)

// retryAfter is how long a broken stream of a running container waits
// before it is reopened.
const retryAfter = time.Second

// stream is one container of one pod being followed.
type stream struct {
	pod       *corev1.Pod
	task      string
	container string
	resume    resumePoint
	restarts  int32
	running   bool
	// gone: the pod was deleted; its stream is not reopened.
	gone bool
}

func (s *stream) key() string { return string(s.pod.UID) + "/" + s.container }

// watcherFunc adapts a watch call to what RetryWatcher needs.
type watcherFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)

func (f watcherFunc) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return f(ctx, opts)
}

// follow streams the selected replicas' containers as their pods run, until
// the job reaches a final state; then it reads what is left of each stream.
func (c *Config) follow(ctx context.Context, selected []job.Replica, pods *corev1.PodList) error {
	ns, name := c.Job.GetNamespace(), c.Job.GetName()
	wantTask := map[string]bool{}
	for _, r := range selected {
		wantTask[r.Task] = true
	}
	selects := func(r job.Replica) bool {
		// Replicas that appear later (a job scaled up) belong to a --role
		// selection, and to no --task one.
		if len(c.Tasks) > 0 {
			return wantTask[r.Task]
		}
		return c.Role == "" || r.Role == c.Role
	}
	var podless []string
	for _, r := range selected {
		if r.Pod == "" {
			podless = append(podless, r.Task)
		}
	}
	if len(podless) > 0 {
		fmt.Fprintf(c.ErrOut, "%s: no pod yet\n", strings.Join(podless, ", "))
	}
	// A gang (PodGroup) that cannot be scheduled gets no pods at all: its
	// Warning events say why.
	gangEvents := metav1.ListOptions{FieldSelector: fields.Set{
		"involvedObject.kind": "PodGroup", "involvedObject.name": name, "type": corev1.EventTypeWarning}.String()}
	events, err := c.Kube.CoreV1().Events(ns).List(ctx, gangEvents)
	if err != nil {
		return fmt.Errorf("listing the events of %s/%s: %w", c.Kind.Name(), name, err)
	}
	lastGang := ""
	onGangEvent := func(ev *corev1.Event) {
		if why := ev.Reason + ": " + strings.TrimSpace(ev.Message); why != lastGang {
			lastGang = why
			fmt.Fprintf(c.ErrOut, "waiting for the job's gang of pods: %s\n", why)
		}
	}
	if n := len(events.Items); n > 0 && len(podless) > 0 {
		sort.SliceStable(events.Items, func(i, j int) bool { return eventTime(&events.Items[i]).Before(eventTime(&events.Items[j])) })
		onGangEvent(&events.Items[n-1])
	}
	eventWatch, err := watchFrom(ctx, events.ResourceVersion, watcherFunc(func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.FieldSelector = gangEvents.FieldSelector
		return c.Kube.CoreV1().Events(ns).Watch(ctx, opts)
	}))
	if err != nil {
		return fmt.Errorf("watching the events of %s/%s: %w", c.Kind.Name(), name, err)
	}
	defer eventWatch.Stop()

	podWatch, err := watchFrom(ctx, pods.ResourceVersion, watcherFunc(func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.LabelSelector = c.Kind.PodSelector(name)
		return c.Kube.CoreV1().Pods(ns).Watch(ctx, opts)
	}))
	if err != nil {
		return fmt.Errorf("watching the pods of %s/%s: %w", c.Kind.Name(), name, err)
	}
	defer podWatch.Stop()
	jobs := c.Dynamic.Resource(c.Kind.Resource()).Namespace(ns)
	jobWatch, err := watchFrom(ctx, c.Job.GetResourceVersion(), watcherFunc(func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		return jobs.Watch(ctx, opts)
	}))
	if err != nil {
		return fmt.Errorf("watching %s/%s: %w", c.Kind.Name(), name, err)
	}
	defer jobWatch.Stop()

	out := &lineWriter{w: c.Out}
	followCtx, stopFollowing := context.WithCancel(ctx)
	defer stopFollowing()
	var wg sync.WaitGroup
	ended := make(chan *stream)
	retry := make(chan *stream)
	streams := map[string]*stream{}
	var order []*stream
	pending := map[string]string{}

	start := func(s *stream) {
		s.running = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.followStream(followCtx, s, out); err != nil && followCtx.Err() == nil && !apierrors.IsBadRequest(err) {
				fmt.Fprintf(c.ErrOut, "%s: %v\n", s.task, err)
			}
			select {
			case ended <- s:
			case <-followCtx.Done():
			}
		}()
	}
	onPod := func(p *corev1.Pod, deleted bool) {
		r, ok := replicaOf(c, p)
		if !ok || !selects(r) {
			return
		}
		if deleted {
			for _, s := range order {
				if s.pod.UID == p.UID {
					s.gone = true
				}
			}
			return
		}
		if p.Status.Phase == corev1.PodPending || p.Status.Phase == "" {
			if why := pendingReason(p); why != pending[string(p.UID)] {
				pending[string(p.UID)] = why
				fmt.Fprintf(c.ErrOut, "%s is Pending: %s\n", r.Task, why)
			}
			return
		}
		for _, container := range containersOf(p, c.Container) {
			restarts := restartsOf(p, container)
			s, known := streams[string(p.UID)+"/"+container]
			if !known {
				s = &stream{pod: p.DeepCopy(), task: streamName(r.Task, p, container, c.Container), container: container, restarts: restarts}
				streams[s.key()] = s
				order = append(order, s)
				if len(streams) > c.MaxLogRequests {
					fmt.Fprintf(c.ErrOut, "%s: not followed: more than --max-log-requests %d streams\n", s.task, c.MaxLogRequests)
					s.gone = true
					continue
				}
				start(s)
				continue
			}
			s.pod = p.DeepCopy()
			if restarts > s.restarts {
				s.restarts = restarts
				fmt.Fprintf(c.ErrOut, "%s restarted (%d restarts)\n", s.task, restarts)
			}
			if !s.running && !s.gone && p.Status.Phase == corev1.PodRunning {
				start(s)
			}
		}
	}
	for i := range pods.Items {
		onPod(&pods.Items[i], false)
	}

	var final job.Status
loop:
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-podWatch.ResultChan():
			if !ok {
				return fmt.Errorf("watching the pods of %s/%s: the watch ended", c.Kind.Name(), name)
			}
			if p, isPod := ev.Object.(*corev1.Pod); isPod {
				onPod(p, ev.Type == watch.Deleted)
			}
		case ev, ok := <-eventWatch.ResultChan():
			if !ok {
				return fmt.Errorf("watching the events of %s/%s: the watch ended", c.Kind.Name(), name)
			}
			if e, isEvent := ev.Object.(*corev1.Event); isEvent && ev.Type != watch.Deleted && len(streams) == 0 {
				onGangEvent(e)
			}
		case ev, ok := <-jobWatch.ResultChan():
			if !ok {
				return fmt.Errorf("watching %s/%s: the watch ended", c.Kind.Name(), name)
			}
			obj, isObj := ev.Object.(*unstructured.Unstructured)
			if !isObj {
				continue
			}
			if ev.Type == watch.Deleted {
				return exit.NotFoundErrorf("%s/%s was deleted", c.Kind.Name(), name)
			}
			c.Job = obj
			if s := jobState(c.Kind, obj); s.State.Final() {
				final = s
				break loop
			}
		case s := <-ended:
			s.running = false
			if !s.gone && s.pod.Status.Phase == corev1.PodRunning {
				time.AfterFunc(retryAfter, func() {
					select {
					case retry <- s:
					case <-followCtx.Done():
					}
				})
			}
		case s := <-retry:
			if !s.running && !s.gone && s.pod.Status.Phase == corev1.PodRunning {
				start(s)
			}
		}
	}
	stopFollowing()
	wg.Wait()
	c.drain(ctx, streams, order, out, selects)
	return outcome(c.Kind, name, final)
}

// drain reads, without following, what each stream of the job's pods has
// not shown yet: the lines written before the job ended.
func (c *Config) drain(ctx context.Context, streams map[string]*stream, order []*stream, out *lineWriter, selects func(job.Replica) bool) {
	name := c.Job.GetName()
	pods, err := c.Kube.CoreV1().Pods(c.Job.GetNamespace()).List(ctx, metav1.ListOptions{LabelSelector: c.Kind.PodSelector(name)})
	if err != nil {
		fmt.Fprintf(c.ErrOut, "listing the pods of %s/%s: %v\n", c.Kind.Name(), name, err)
		return
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		r, ok := replicaOf(c, p)
		if !ok || !selects(r) || p.Status.Phase == corev1.PodPending {
			continue
		}
		for _, container := range containersOf(p, c.Container) {
			if _, known := streams[string(p.UID)+"/"+container]; !known {
				s := &stream{pod: p.DeepCopy(), task: streamName(r.Task, p, container, c.Container), container: container}
				streams[s.key()] = s
				order = append(order, s)
			}
		}
	}
	for _, s := range order {
		if s.gone {
			continue
		}
		opts := c.streamOptions(s)
		opts.Follow = false
		if err := c.copyStream(ctx, s, opts, out); err != nil && !apierrors.IsNotFound(err) {
			fmt.Fprintf(c.ErrOut, "%s: %v\n", s.task, err)
		}
	}
}

// followStream follows one container until its stream ends.
func (c *Config) followStream(ctx context.Context, s *stream, out *lineWriter) error {
	return c.copyStream(ctx, s, c.streamOptions(s), out)
}

func (c *Config) copyStream(ctx context.Context, s *stream, opts *corev1.PodLogOptions, out *lineWriter) error {
	body, err := c.Source.Stream(ctx, s.pod.Namespace, s.pod.Name, opts)
	if err != nil {
		return err
	}
	defer body.Close()
	return copyLines(body, out, prefixOf(s.task, c.Colour), &s.resume, c.Timestamps)
}

// streamOptions asks for stamped lines: from the last one shown when the
// stream resumes, else as --tail and --since say.
func (c *Config) streamOptions(s *stream) *corev1.PodLogOptions {
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

// replicaOf is the replica a pod runs.
func replicaOf(c *Config, p *corev1.Pod) (job.Replica, bool) {
	replicas, err := c.Kind.Replicas(c.Job, []corev1.Pod{*p})
	if err != nil {
		return job.Replica{}, false
	}
	for _, r := range replicas {
		if r.Pod == p.Name {
			return r, true
		}
	}
	return job.Replica{}, false
}

func restartsOf(p *corev1.Pod, container string) int32 {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container {
			return cs.RestartCount
		}
	}
	return 0
}

// pendingReason says why a pod is not running yet: not scheduled (the
// scheduler's reason and message), or its containers waiting.
func pendingReason(p *corev1.Pod) string {
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status != corev1.ConditionTrue {
			if cond.Reason == "" && cond.Message == "" {
				return "not scheduled yet"
			}
			return cond.Reason + ": " + cond.Message
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			if w.Message != "" {
				return w.Reason + ": " + w.Message
			}
			return w.Reason
		}
	}
	if p.Spec.NodeName == "" {
		return "not scheduled yet"
	}
	return "starting on " + p.Spec.NodeName
}

// eventTime is when an event last happened, whichever of its times is set.
func eventTime(ev *corev1.Event) time.Time {
	for _, t := range []time.Time{ev.LastTimestamp.Time, ev.EventTime.Time, ev.FirstTimestamp.Time} {
		if !t.IsZero() {
			return t
		}
	}
	return ev.CreationTimestamp.Time
}

// watchFrom watches from a LIST's resourceVersion, re-opening the watch when
// it breaks; without a resourceVersion (some fakes) it watches once.
func watchFrom(ctx context.Context, resourceVersion string, w watcherFunc) (watch.Interface, error) {
	if resourceVersion == "" || resourceVersion == "0" {
		return w(ctx, metav1.ListOptions{})
	}
	return watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, w)
}
