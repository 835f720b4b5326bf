package logs

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// relistBackoff spaces the LISTs that follow a watch that ended, while the
// API server is not back yet (about two minutes in all).
var relistBackoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Jitter: 0.2, Steps: 9, Cap: 30 * time.Second}

// watcherFunc adapts a watch call to what RetryWatcher needs.
type watcherFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)

func (f watcherFunc) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return f(ctx, opts)
}

// follow streams the selected replicas' containers as their pods run, until
// the job reaches a final state; then it reads what is left of each stream.
// A watch that ends (410 Gone after an API server restart, or a long
// disconnection) is replaced: the pods and the job are listed again, what
// changed meanwhile is taken in, and the watch resumes from that LIST.
func (c *Request) follow(ctx context.Context, selected, replicas []jobmodel.Replica, pods *corev1.PodList) error {
	podless := podlessTasks(selected)
	if len(podless) > 0 {
		fmt.Fprintf(c.ErrOut, "%s: no pod yet\n", strings.Join(podless, ", "))
	}
	w := newJobWatch(ctx, c, selected, replicas)
	// However following ends, the streams stop, what they read is shown and
	// the watches stop.
	defer w.close()
	if err := w.open(ctx, pods.ResourceVersion, len(podless) > 0); err != nil {
		return err
	}
	w.takeIn(pods)
	pods = nil // what is needed of them is in the streams; the rest can go
	final, err := w.run(ctx)
	if err != nil {
		return err
	}
	w.runner.stop()
	w.drain(ctx)
	return outcome(c.Kind, w.name, final)
}

// podlessTasks are the selected replicas that have no pod yet.
func podlessTasks(selected []jobmodel.Replica) []string {
	var podless []string
	for _, r := range selected {
		if r.Pod == "" {
			podless = append(podless, r.Task)
		}
	}
	return podless
}

// selection says which replicas logs -f follows, those that appear later (a
// job scaled up) included: with --task, the tasks selected at the start;
// else those of --role, or all.
type selection struct {
	byTask bool
	tasks  map[string]bool
	role   string
}

// newSelection is what c selects; selected are the replicas it selected at
// the start, those --task keeps to.
func newSelection(c *Request, selected []jobmodel.Replica) selection {
	sel := selection{byTask: len(c.Tasks) > 0, tasks: map[string]bool{}, role: c.Role}
	for _, r := range selected {
		sel.tasks[r.Task] = true
	}
	return sel
}

// has reports whether replica r is followed.
func (sel selection) has(r jobmodel.Replica) bool {
	if sel.byTask {
		return sel.tasks[r.Task]
	}
	return sel.role == "" || r.Role == sel.role
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

// replicaOf is the replica a pod runs.
func replicaOf(c *Request, p *corev1.Pod) (jobmodel.Replica, bool) {
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

// watchFrom watches from a LIST's resourceVersion, re-opening the watch when
// it breaks; without a resourceVersion (some fakes) it watches once.
func watchFrom(ctx context.Context, resourceVersion string, w watcherFunc) (watch.Interface, error) {
	if resourceVersion == "" || resourceVersion == "0" {
		return w(ctx, metav1.ListOptions{})
	}
	return watchtools.NewRetryWatcherWithContext(ctx, resourceVersion, w)
}
