package logs

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/easyai-dev/easyai/pkg/kube"
)

// gangWatch watches the Warning events of the job's gang of pods (its
// PodGroup): a gang that cannot be scheduled gets no pods at all, and its
// events say why. It shows each new reason once, on ErrOut, while the job
// has no stream yet. Its watch is replaced when it ends; without it
// following goes on, since the events only explain a wait.
type gangWatch struct {
	c    *Request
	ns   string
	opts metav1.ListOptions
	// last is the reason last shown.
	last string
	// w is the current watch; ch its events, nil once it could not be
	// replaced.
	w  watch.Interface
	ch <-chan watch.Event
}

// newGangWatch is the gang's watch of c.Job, opened by open.
func newGangWatch(c *Request) *gangWatch {
	return &gangWatch{c: c, ns: c.Job.GetNamespace(), opts: metav1.ListOptions{FieldSelector: fields.Set{
		"involvedObject.kind": "PodGroup", "involvedObject.name": c.Job.GetName(), "type": corev1.EventTypeWarning}.String()}}
}

// open lists the gang's events, shows the latest when waiting (for pods
// that are not there yet), and watches them from that LIST.
func (g *gangWatch) open(ctx context.Context, waiting bool) error {
	name := g.c.Job.GetName()
	events, err := g.c.Kube.CoreV1().Events(g.ns).List(ctx, g.opts)
	if err != nil {
		return fmt.Errorf("listing the events of %s/%s: %w", g.c.Kind.Name(), name, err)
	}
	if ev := latestEvent(events); ev != nil && waiting {
		g.show(ev)
	}
	if g.w, err = g.watch(ctx, events.ResourceVersion); err != nil {
		return fmt.Errorf("watching the events of %s/%s: %w", g.c.Kind.Name(), name, err)
	}
	g.ch = g.w.ResultChan()
	return nil
}

// watch watches the gang's events from a LIST's resourceVersion.
func (g *gangWatch) watch(ctx context.Context, resourceVersion string) (watch.Interface, error) {
	return watchFrom(ctx, resourceVersion, watcherFunc(func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
		opts.FieldSelector = g.opts.FieldSelector
		return g.c.Kube.CoreV1().Events(g.ns).Watch(ctx, opts)
	}))
}

// show says why the gang waits, unless that was the last thing it said.
func (g *gangWatch) show(ev *corev1.Event) {
	if why := ev.Reason + ": " + strings.TrimSpace(ev.Message); why != g.last {
		g.last = why
		fmt.Fprintf(g.c.ErrOut, "waiting for the job's gang of pods: %s\n", why)
	}
}

// onEvent takes in what the watch sent (ok: the watch goes on), an event
// shown only while waiting; a watch that ended is replaced.
func (g *gangWatch) onEvent(ctx context.Context, ev watch.Event, ok, waiting bool) {
	if !ok {
		g.rewatch(ctx, waiting)
		return
	}
	if e, isEvent := ev.Object.(*corev1.Event); isEvent && ev.Type != watch.Deleted && waiting {
		g.show(e)
	}
}

// rewatch replaces the watch that ended: the events are listed again, the
// latest shown when waiting, and watched from there. When that fails, the
// events are no longer watched.
func (g *gangWatch) rewatch(ctx context.Context, waiting bool) {
	g.w.Stop()
	g.ch = nil
	events, err := g.c.Kube.CoreV1().Events(g.ns).List(ctx, g.opts)
	if err != nil {
		return
	}
	if ev := latestEvent(events); ev != nil && waiting {
		g.show(ev)
	}
	if w, err := g.watch(ctx, events.ResourceVersion); err == nil {
		g.w, g.ch = w, w.ResultChan()
	}
}

// stop stops the current watch.
func (g *gangWatch) stop() {
	if g.w != nil {
		g.w.Stop()
	}
}

// latestEvent is the event last seen of events (sorted by it); nil when
// there is none.
func latestEvent(events *corev1.EventList) *corev1.Event {
	if len(events.Items) == 0 {
		return nil
	}
	sort.SliceStable(events.Items, func(i, j int) bool {
		return kube.EventLastSeen(&events.Items[i]).Before(kube.EventLastSeen(&events.Items[j]))
	})
	return &events.Items[len(events.Items)-1]
}
