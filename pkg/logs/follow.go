package logs

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/utils/clock"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// defaultRetryBackoff spaces the retries of a broken stream of a running
// container: 1s, 2s, 4s ... up to 30s, each up to half again at random, so
// that the streams of many replicas do not hammer an API server that is down
// in step.
var defaultRetryBackoff = wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.5, Steps: math.MaxInt32, Cap: 30 * time.Second}

// retryResetAfter: a stream that lasted this long was healthy; its next
// retry starts again from the shortest wait.
const retryResetAfter = time.Minute

// relistBackoff spaces the LISTs that follow a watch that ended, while the
// API server is not back yet (about two minutes in all).
var relistBackoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: 9, Cap: 30 * time.Second}

// stream is one container of one pod being followed. The watch loop owns it;
// the goroutine reading it gets what it needs by value (a streamTarget), and
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

func (s *stream) key() string { return string(s.pod.UID) + "/" + s.container }

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

func (s *stream) target(opts *corev1.PodLogOptions) streamTarget {
	return streamTarget{namespace: s.pod.Namespace, pod: s.pod.Name, task: s.task, opts: opts}
}

// watcherFunc adapts a watch call to what RetryWatcher needs.
type watcherFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)

func (f watcherFunc) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return f(ctx, opts)
}

func (c *Config) retryClock() clock.WithDelayedExecution {
	if c.clock == nil {
		return clock.RealClock{}
	}
	return c.clock
}

func (c *Config) streamBackoff() wait.Backoff {
	if c.retryBackoff != nil {
		return *c.retryBackoff
	}
	return defaultRetryBackoff
}

// follow streams the selected replicas' containers as their pods run, until
// the job reaches a final state; then it reads what is left of each stream.
// A watch that ends (410 Gone after an API server restart, or a long
// disconnection) is replaced: the pods and the job are listed again, what
// changed meanwhile is taken in, and the watch resumes from that LIST.
func (c *Config) follow(ctx context.Context, selected, replicas []jobmodel.Replica, pods *corev1.PodList) error {
	ns, name := c.Job.GetNamespace(), c.Job.GetName()
	clk := c.retryClock()
	wantTask := map[string]bool{}
	for _, r := range selected {
		wantTask[r.Task] = true
	}
	selects := func(r jobmodel.Replica) bool {
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
	latestGangEvent := func(events *corev1.EventList) *corev1.Event {
		if len(events.Items) == 0 {
			return nil
		}
		sort.SliceStable(events.Items, func(i, j int) bool {
			return kube.EventLastSeen(&events.Items[i]).Before(kube.EventLastSeen(&events.Items[j]))
		})
		return &events.Items[len(events.Items)-1]
	}
	if ev := latestGangEvent(events); ev != nil && len(podless) > 0 {
		onGangEvent(ev)
	}
	watchEvents := func(resourceVersion string) (watch.Interface, error) {
		return watchFrom(ctx, resourceVersion, watcherFunc(func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = gangEvents.FieldSelector
			return c.Kube.CoreV1().Events(ns).Watch(ctx, opts)
		}))
	}
	watchPods := func(resourceVersion string) (watch.Interface, error) {
		return watchFrom(ctx, resourceVersion, watcherFunc(func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.LabelSelector = c.Kind.PodSelector(name)
			return c.Kube.CoreV1().Pods(ns).Watch(ctx, opts)
		}))
	}
	jobs := c.Dynamic.Resource(c.Kind.Resource()).Namespace(ns)
	byName := fields.OneTermEqualSelector("metadata.name", name).String()
	watchJob := func(resourceVersion string) (watch.Interface, error) {
		return watchFrom(ctx, resourceVersion, watcherFunc(func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = byName
			return jobs.Watch(ctx, opts)
		}))
	}

	// The watches are replaced when they end: stop whichever is current.
	var eventWatch, podWatch, jobWatch watch.Interface
	defer func() {
		for _, w := range []watch.Interface{eventWatch, podWatch, jobWatch} {
			if w != nil {
				w.Stop()
			}
		}
	}()
	if eventWatch, err = watchEvents(events.ResourceVersion); err != nil {
		return fmt.Errorf("watching the events of %s/%s: %w", c.Kind.Name(), name, err)
	}
	if podWatch, err = watchPods(pods.ResourceVersion); err != nil {
		return fmt.Errorf("watching the pods of %s/%s: %w", c.Kind.Name(), name, err)
	}
	if jobWatch, err = watchJob(c.Job.GetResourceVersion()); err != nil {
		return fmt.Errorf("watching %s/%s: %w", c.Kind.Name(), name, err)
	}
	eventCh := eventWatch.ResultChan()

	out := &lineWriter{w: c.Out, terminal: c.Terminal}
	followCtx, stopFollowing := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// However following ends, the streams stop and what they read is shown.
	defer func() {
		stopFollowing()
		wg.Wait()
		_ = out.flush()
	}()
	ended := make(chan *stream)
	retry := make(chan *stream)
	streams := map[string]*stream{}
	var order []*stream
	pending := map[string]string{}

	start := func(s *stream) {
		s.running = true
		s.started = clk.Now()
		target := s.target(c.streamOptions(s))
		resume := &s.resume
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := c.copyStream(followCtx, target, resume, out); err != nil && followCtx.Err() == nil && !apierrors.IsBadRequest(err) {
				fmt.Fprintf(c.ErrOut, "%s: %v\n", target.task, err)
			}
			select {
			case ended <- s:
			case <-followCtx.Done():
			}
		}()
	}
	// followed counts the streams that hold, or will hold again, one of the
	// --max-log-requests: not those that ended with their container.
	followed := func() int {
		n := 0
		for _, s := range order {
			if !s.gone && (s.running || s.pod.Phase == corev1.PodRunning) {
				n++
			}
		}
		return n
	}
	// The replica of each pod of the first LIST is known (replicas, read
	// from it); a pod seen later is looked up on its own.
	listed := make(map[string]jobmodel.Replica, len(replicas))
	for _, r := range replicas {
		if r.Pod != "" {
			listed[r.Pod] = r
		}
	}
	onPod := func(p *corev1.Pod, deleted bool) {
		r, ok := listed[p.Name]
		if !ok {
			r, ok = replicaOf(c, p)
		}
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
			if why := kube.PendingReason(p); why != pending[string(p.UID)] {
				pending[string(p.UID)] = why
				fmt.Fprintf(c.ErrOut, "%s is Pending: %s\n", r.Task, why)
			}
			return
		}
		for _, container := range containersOf(p, c.Container) {
			restarts := restartsOf(p, container)
			s, known := streams[string(p.UID)+"/"+container]
			if !known {
				s = &stream{pod: stateOf(p), task: streamName(r.Task, p, container, c.Container), container: container,
					restarts: restarts, backoff: c.streamBackoff()}
				full := followed() >= c.MaxLogRequests
				streams[s.key()] = s
				order = append(order, s)
				if full {
					fmt.Fprintf(c.ErrOut, "%s: not followed: more than --max-log-requests %d streams\n", s.task, c.MaxLogRequests)
					s.gone = true
					continue
				}
				start(s)
				continue
			}
			s.pod = stateOf(p)
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
	pods, listed = nil, nil // what is needed of them is in streams; the rest can go

	// relistPods takes in what happened to the pods while no watch was open,
	// and watches them again from there.
	relistPods := func() error {
		podWatch.Stop()
		var pods *corev1.PodList
		err := retryList(ctx, func(ctx context.Context) (err error) {
			pods, err = listPods(ctx, c.Kube, ns, c.Kind.PodSelector(name))
			return err
		})
		if err != nil {
			return fmt.Errorf("listing the pods of %s/%s again: %w", c.Kind.Name(), name, err)
		}
		live := map[string]bool{}
		for i := range pods.Items {
			live[string(pods.Items[i].UID)] = true
		}
		for _, s := range order {
			if !live[string(s.pod.UID)] {
				s.gone = true
			}
		}
		for i := range pods.Items {
			onPod(&pods.Items[i], false)
		}
		if podWatch, err = watchPods(pods.ResourceVersion); err != nil {
			return fmt.Errorf("watching the pods of %s/%s: %w", c.Kind.Name(), name, err)
		}
		return nil
	}
	// relistJob reads the job again after its watch ended, and watches it
	// again from there; done: it has ended meanwhile.
	relistJob := func() (final jobmodel.Status, done bool, err error) {
		jobWatch.Stop()
		var current *unstructured.UnstructuredList
		err = retryList(ctx, func(ctx context.Context) (err error) {
			current, err = jobs.List(ctx, metav1.ListOptions{FieldSelector: byName})
			return err
		})
		if err != nil {
			return final, false, fmt.Errorf("reading %s/%s again: %w", c.Kind.Name(), name, err)
		}
		var obj *unstructured.Unstructured
		for i := range current.Items {
			if current.Items[i].GetName() == name {
				obj = &current.Items[i]
			}
		}
		if obj == nil {
			return final, false, exit.NotFoundErrorf("%s/%s was deleted", c.Kind.Name(), name)
		}
		c.Job = obj
		if s := jobState(c.Kind, obj); s.State.Final() {
			return s, true, nil
		}
		if jobWatch, err = watchJob(current.GetResourceVersion()); err != nil {
			return final, false, fmt.Errorf("watching %s/%s: %w", c.Kind.Name(), name, err)
		}
		return final, false, nil
	}
	// rewatchEvents replaces the events watch; the gang's events only
	// explain a wait, so without them following goes on.
	rewatchEvents := func() {
		eventWatch.Stop()
		eventCh = nil
		events, err := c.Kube.CoreV1().Events(ns).List(ctx, gangEvents)
		if err != nil {
			return
		}
		if ev := latestGangEvent(events); ev != nil && len(streams) == 0 {
			onGangEvent(ev)
		}
		if w, err := watchEvents(events.ResourceVersion); err == nil {
			eventWatch, eventCh = w, w.ResultChan()
		}
	}

	var final jobmodel.Status
loop:
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-podWatch.ResultChan():
			if !ok {
				if err := relistPods(); err != nil {
					return err
				}
				continue
			}
			if p, isPod := ev.Object.(*corev1.Pod); isPod {
				onPod(p, ev.Type == watch.Deleted)
			}
		case ev, ok := <-eventCh:
			if !ok {
				rewatchEvents()
				continue
			}
			if e, isEvent := ev.Object.(*corev1.Event); isEvent && ev.Type != watch.Deleted && len(streams) == 0 {
				onGangEvent(e)
			}
		case ev, ok := <-jobWatch.ResultChan():
			if !ok {
				s, done, err := relistJob()
				if err != nil {
					return err
				}
				if done {
					final = s
					break loop
				}
				continue
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
			if !s.gone && s.pod.Phase == corev1.PodRunning {
				if clk.Since(s.started) >= retryResetAfter {
					s.backoff = c.streamBackoff()
				}
				// (A fake clock runs the function while it holds its lock.)
				clk.AfterFunc(s.backoff.Step(), func() {
					go func() {
						select {
						case retry <- s:
						case <-followCtx.Done():
						}
					}()
				})
			}
		case s := <-retry:
			if !s.running && !s.gone && s.pod.Phase == corev1.PodRunning {
				start(s)
			}
		}
	}
	stopFollowing()
	wg.Wait()
	c.drain(ctx, streams, order, out, selects)
	return outcome(c.Kind, name, final)
}

// retryList runs list until it succeeds, waiting longer each time, while the
// API server is not back; a refusal (forbidden, unauthorized) ends it at once.
func retryList(ctx context.Context, list func(context.Context) error) error {
	var last error
	err := wait.ExponentialBackoffWithContext(ctx, relistBackoff, func(ctx context.Context) (bool, error) {
		last = list(ctx)
		if last == nil {
			return true, nil
		}
		if apierrors.IsForbidden(last) || apierrors.IsUnauthorized(last) {
			return false, last
		}
		return false, nil
	})
	if err != nil && last != nil {
		return last
	}
	return err
}

// drain reads, without following, what each stream of the job's pods has
// not shown yet: the lines written before the job ended.
func (c *Config) drain(ctx context.Context, streams map[string]*stream, order []*stream, out *lineWriter, selects func(jobmodel.Replica) bool) {
	name := c.Job.GetName()
	pods, err := listPods(ctx, c.Kube, c.Job.GetNamespace(), c.Kind.PodSelector(name))
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
				s := &stream{pod: stateOf(p), task: streamName(r.Task, p, container, c.Container), container: container}
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
		if err := c.copyStream(ctx, s.target(opts), &s.resume, out); err != nil && !apierrors.IsNotFound(err) {
			fmt.Fprintf(c.ErrOut, "%s: %v\n", s.task, err)
		}
	}
}

// copyStream reads one stream until it ends.
func (c *Config) copyStream(ctx context.Context, t streamTarget, resume *resumePoint, out *lineWriter) error {
	body, err := c.Source.Stream(ctx, t.namespace, t.pod, t.opts)
	if err != nil {
		return err
	}
	defer body.Close()
	return copyLines(body, out, prefixOf(t.task, c.Colour), resume, c.Timestamps)
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
func replicaOf(c *Config, p *corev1.Pod) (jobmodel.Replica, bool) {
	replicas, err := c.Kind.Replicas(c.Job, []corev1.Pod{*p})
	if err != nil {
		return jobmodel.Replica{}, false
	}
	for _, r := range replicas {
		if r.Pod == p.Name {
			return r, true
		}
	}
	return jobmodel.Replica{}, false
}

func restartsOf(p *corev1.Pod, container string) int32 {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Name == container {
			return cs.RestartCount
		}
	}
	return 0
}

// watchFrom watches from a LIST's resourceVersion, re-opening the watch when
// it breaks; without a resourceVersion (some fakes) it watches once.
func watchFrom(ctx context.Context, resourceVersion string, w watcherFunc) (watch.Interface, error) {
	if resourceVersion == "" || resourceVersion == "0" {
		return w(ctx, metav1.ListOptions{})
	}
	return watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, w)
}
