// Package logs is the engine of "easyai logs": the logs of a job's replicas,
// one stream per container, merged line by line under a [ROLE-INDEX] prefix;
// and, when following, a watch on the job's pods that picks up replicas as
// they start, restart or are replaced, until the job ends. It knows nothing
// of flags or terminals.
package logs

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// Source opens the log stream of one container.
type Source interface {
	Stream(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error)
}

// KubeSource reads logs from the API server.
type KubeSource struct{ Kube kubernetes.Interface }

// Stream opens the log of the container opts names.
func (s KubeSource) Stream(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	return s.Kube.CoreV1().Pods(namespace).GetLogs(pod, opts).Stream(ctx)
}

// DefaultMaxLogRequests is how many log streams are followed at once unless
// the user says otherwise (logs --max-log-requests).
const DefaultMaxLogRequests = 64

// Workload is what logs reads the pods of: a job's kind (kinds.Kind), or
// a serving's versions. Its Summarize says when following ends (a final
// state), Replicas names each pod's replica, PodSelector finds the pods.
type Workload interface {
	Name() string
	Resource() schema.GroupVersionResource
	PodSelector(name string) string
	Replicas(obj *unstructured.Unstructured, pods []corev1.Pod) ([]jobmodel.Replica, error)
	Summarize(obj *unstructured.Unstructured, gpu corev1.ResourceName) (jobmodel.Summary, error)
}

// Request is one run of logs.
type Request struct {
	Kind Workload
	// Job is the job as found; its namespace is the pods'.
	Job     *unstructured.Unstructured
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	// Source defaults to KubeSource on Kube.
	Source Source

	// Tasks ("worker-0") and Role ("worker") select replicas; none: all.
	Tasks []string
	Role  string
	// Container is the one container to read; "": every container of a pod.
	Container  string
	Follow     bool
	Previous   bool
	Timestamps bool
	// Tail is the number of last lines to show of each container (<0: all).
	Tail int64
	// Since shows only lines newer than this (0: all).
	Since time.Duration
	// MaxLogRequests caps the streams followed at once
	// (DefaultMaxLogRequests unless the user says otherwise).
	MaxLogRequests int

	// Persisted, when set, reads the logs a job with --storage kept on it
	// for the replicas whose pods are gone (not with -f on a job that has
	// not ended, nor with --previous).
	Persisted *Persisted

	Colour bool
	// Prefix comes before each replica's name in the prefix of its lines
	// ("train/" of a pipeline step's job: "[train/worker-0] ").
	Prefix string
	// Terminal: Out is a terminal. The lines containers wrote are then made
	// safe for it: their colours kept, other escape sequences and control
	// characters not passed on (terminalSafe).
	Terminal bool
	Out      io.Writer
	ErrOut   io.Writer

	// clock and retryBackoff time the retries of broken streams (tests set
	// them; nil: the real clock, defaultRetryBackoff).
	clock        clock.WithDelayedExecution
	retryBackoff *wait.Backoff
}

// Run prints the logs; with Follow it returns when the job has ended: nil
// when it succeeded, a job-failed error (exit 4) when it failed.
func Run(ctx context.Context, c Request) error {
	if c.Source == nil {
		c.Source = KubeSource{Kube: c.Kube}
	}
	ns, name := c.Job.GetNamespace(), c.Job.GetName()
	pods, err := listPods(ctx, c.Kube, ns, c.Kind.PodSelector(name))
	if err != nil {
		return fmt.Errorf("listing the pods of %s/%s: %w", c.Kind.Name(), name, err)
	}
	replicas, err := c.Kind.Replicas(c.Job, pods.Items)
	if err != nil {
		return err
	}
	selected, err := Select(replicas, c.Tasks, c.Role)
	if err != nil {
		return err
	}
	state := jobState(c.Kind, c.Job)
	if !c.Follow || state.State.Final() {
		pl := c.persisted(ctx, replicas, selected, pods.Items, state.State)
		if pl != nil {
			defer func() {
				if err := pl.close(ctx); err != nil {
					fmt.Fprintf(c.ErrOut, "Warning: %v\n", err)
				}
			}()
		}
		if err := c.printAll(ctx, selected, pods.Items, pl); err != nil {
			return err
		}
		if c.Follow {
			return outcome(c.Kind, name, state)
		}
		return nil
	}
	if n := countStreams(selected, pods.Items, c.Container); n > c.MaxLogRequests {
		return TooManyStreamsError(n, c.MaxLogRequests)
	}
	return c.follow(ctx, selected, replicas, pods)
}

// TooManyStreamsError is the usage error of following more streams than allowed.
func TooManyStreamsError(streams, limit int) error {
	return exit.UsageErrorf("following %d log streams is more than --max-log-requests %d: raise --max-log-requests, or select replicas with --task or --role", streams, limit)
}

// Select keeps the replicas named by tasks and of role (none given: all),
// in ROLE-INDEX order. A task the job does not have is a not-found error
// listing those it has.
func Select(replicas []jobmodel.Replica, tasks []string, role string) ([]jobmodel.Replica, error) {
	have := map[string]bool{}
	var names, roles []string
	roleSeen := map[string]bool{}
	for _, r := range replicas {
		have[r.Task] = true
		names = append(names, r.Task)
		if !roleSeen[r.Role] {
			roleSeen[r.Role] = true
			roles = append(roles, r.Role)
		}
	}
	want := map[string]bool{}
	for _, t := range tasks {
		t = strings.ToLower(t)
		if !have[t] {
			return nil, exit.NotFoundErrorf("the job has no task %s (its tasks: %s)", t, strings.Join(names, ", "))
		}
		want[t] = true
	}
	role = strings.ToLower(role)
	if role != "" && !roleSeen[role] {
		return nil, exit.NotFoundErrorf("the job has no role %s (its roles: %s)", role, strings.Join(roles, ", "))
	}
	var out []jobmodel.Replica
	for _, r := range replicas {
		if (len(want) == 0 || want[r.Task]) && (role == "" || r.Role == role) {
			out = append(out, r)
		}
	}
	return out, nil
}

// containersOf are the containers to read of a pod: the one asked for, else all.
func containersOf(p *corev1.Pod, container string) []string {
	if container != "" {
		return []string{container}
	}
	var names []string
	for _, c := range p.Spec.Containers {
		names = append(names, c.Name)
	}
	return names
}

// countStreams is how many container streams following the replicas opens
// (a replica without a pod yet counts as one).
func countStreams(replicas []jobmodel.Replica, pods []corev1.Pod, container string) int {
	byName := podsByName(pods)
	n := 0
	for _, r := range replicas {
		if p, ok := byName[r.Pod]; ok {
			n += len(containersOf(p, container))
		} else {
			n++
		}
	}
	return n
}

func podsByName(pods []corev1.Pod) map[string]*corev1.Pod {
	m := make(map[string]*corev1.Pod, len(pods))
	for i := range pods {
		m[pods[i].Name] = &pods[i]
	}
	return m
}

// streamName is a stream's prefix: the task, and the container when the pod
// has more than one.
func streamName(task string, p *corev1.Pod, container string, asked string) string {
	if asked != "" || len(p.Spec.Containers) <= 1 {
		return task
	}
	return task + "/" + container
}

// printAll prints each replica's log in full, one after another in
// ROLE-INDEX order; a replica without a pod from pl, when given.
func (c *Request) printAll(ctx context.Context, replicas []jobmodel.Replica, pods []corev1.Pod, pl *persistedLogs) error {
	out := &lineWriter{w: c.Out, terminal: c.Terminal}
	defer func() { _ = out.flush() }()
	byName := podsByName(pods)
	failed, opened := 0, 0
	printKept := func(name, file string) {
		opened++
		if err := pl.print(ctx, file, prefixOf(c.Prefix+name, c.Colour), c.Tail, out); err != nil && ctx.Err() == nil {
			failed++
			fmt.Fprintf(c.ErrOut, "%s: %v\n", name, err)
		}
	}
	for _, r := range replicas {
		p, ok := byName[r.Pod]
		switch {
		case !ok && pl != nil && pl.files[r.Task] != "":
			printKept(r.Task, pl.files[r.Task])
			continue
		case !ok && pl != nil:
			fmt.Fprintf(c.ErrOut, "%s: no pod, and no log kept on the storage\n", r.Task)
			continue
		case !ok:
			fmt.Fprintf(c.ErrOut, "%s: no pod yet\n", r.Task)
			continue
		}
		if p.Spec.NodeName == "" {
			// Nothing to read before the pod is on a node: say why it is not.
			opened++
			failed++
			fmt.Fprintf(c.ErrOut, "%s is Pending: %s\n", r.Task, jobmodel.OneLine(kube.PendingReason(p)))
			continue
		}
		for _, container := range containersOf(p, c.Container) {
			opened++
			ok, err := c.printContainer(ctx, r.Task, p, container, out)
			if err != nil {
				return err
			}
			if !ok {
				failed++
			}
		}
	}
	if pl != nil && len(c.Tasks) == 0 && c.Role == "" {
		// Logs of replicas the job no longer has (scaled down, elastic).
		for _, file := range pl.others {
			printKept(strings.TrimSuffix(file, ".log"), file)
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if opened > 0 && failed == opened {
		return exit.ErrSilent
	}
	return nil
}

// printContainer prints in full the log of one container of the pod of
// task, then, when the container failed, why. ok: its log could be read
// (else it says why not); err: ctx ended.
func (c *Request) printContainer(ctx context.Context, task string, p *corev1.Pod, container string, out *lineWriter) (ok bool, err error) {
	readErr := c.copyOnce(ctx, p, container, c.printOptions(container), out, nil)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	name := streamName(task, p, container, c.Container)
	switch {
	case readErr != nil && p.Status.Phase == corev1.PodPending:
		fmt.Fprintf(c.ErrOut, "%s is Pending: %s\n", name, c.pendingReason(ctx, p))
		return false, nil
	case readErr != nil:
		fmt.Fprintf(c.ErrOut, "%s: %v\n", name, readErr)
		return false, nil
	}
	if why := containerFailure(p, container, c.Previous); why != "" {
		_ = out.flush()
		fmt.Fprintf(c.ErrOut, "%s: %s\n", name, why)
	}
	return true, nil
}

// printOptions asks for a container's log as --previous, --timestamps,
// --tail and --since say, without following it.
func (c *Request) printOptions(container string) *corev1.PodLogOptions {
	opts := &corev1.PodLogOptions{Container: container, Previous: c.Previous, Timestamps: c.Timestamps}
	if c.Tail >= 0 {
		opts.TailLines = &c.Tail
	}
	if c.Since > 0 {
		secs := int64(c.Since.Seconds())
		opts.SinceSeconds = &secs
	}
	return opts
}

// pendingReason says in one line why a pod on a node is still Pending: its
// containers' state, or, while they are only being made, the latest Warning
// event about it (a volume that cannot be mounted).
func (c *Request) pendingReason(ctx context.Context, p *corev1.Pod) string {
	why := kube.PendingReason(p)
	if kube.Starting(p) {
		if ev, err := kube.LatestWarning(ctx, c.Kube, p.Namespace, p.Name); err == nil && ev != "" {
			why = ev
		}
	}
	return jobmodel.OneLine(why)
}

// containerFailure says in one line how a container whose log was read
// failed: it is in a crash loop, or ended with a non-zero code; "" when it
// did not fail.
func containerFailure(p *corev1.Pod, container string, previous bool) string {
	for _, cs := range append(append([]corev1.ContainerStatus(nil), p.Status.InitContainerStatuses...), p.Status.ContainerStatuses...) {
		if cs.Name != container {
			continue
		}
		if w := cs.State.Waiting; w != nil && w.Reason == "CrashLoopBackOff" {
			why := fmt.Sprintf("CrashLoopBackOff, %d restarts", cs.RestartCount)
			if t := cs.LastTerminationState.Terminated; t != nil {
				why += fmt.Sprintf(", the last run ended with exit code %d", t.ExitCode)
				if t.Reason != "" && t.Reason != "Error" {
					why += " (" + t.Reason + ")"
				}
			}
			if !previous {
				why += "; --previous shows that run's log"
			}
			return jobmodel.OneLine(why)
		}
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 && !previous {
			why := fmt.Sprintf("ended with exit code %d", t.ExitCode)
			if t.Reason != "" && t.Reason != "Error" {
				why += " (" + t.Reason + ")"
			}
			return jobmodel.OneLine(why)
		}
	}
	return ""
}

// copyOnce reads one stream to its end.
func (c *Request) copyOnce(ctx context.Context, p *corev1.Pod, container string, opts *corev1.PodLogOptions, out *lineWriter, resume *resumePoint) error {
	stream, err := c.Source.Stream(ctx, p.Namespace, p.Name, opts)
	if err != nil {
		return err
	}
	defer stream.Close()
	task := replicaTask(c.Kind, c.Job, p)
	return copyLines(stream, out, prefixOf(c.Prefix+streamName(task, p, container, c.Container), c.Colour), resume, c.Timestamps)
}

// replicaTask names the replica a pod runs, as the kind names it; the pod's
// name when the kind does not know it.
func replicaTask(k Workload, obj *unstructured.Unstructured, p *corev1.Pod) string {
	replicas, err := k.Replicas(obj, []corev1.Pod{*p})
	if err == nil {
		for _, r := range replicas {
			if r.Pod == p.Name {
				return r.Task
			}
		}
	}
	return p.Name
}

// jobState reads a job's state; Unknown when its status cannot be read.
func jobState(k Workload, obj *unstructured.Unstructured) jobmodel.Status {
	s, err := k.Summarize(obj, "")
	if err != nil {
		return jobmodel.Status{State: jobmodel.Unknown}
	}
	return s.Status
}

// outcome maps a final state to logs -f's result: nil, or exit 4 when it failed.
func outcome(k Workload, name string, s jobmodel.Status) error {
	if s.State != jobmodel.Failed {
		return nil
	}
	why := ""
	if s.Reason != "" || s.Message != "" {
		why = ": " + strings.TrimPrefix(strings.Trim(s.Reason+": "+s.Message, ": "), ": ")
	}
	return exit.JobFailedErrorf("%s/%s failed%s", k.Name(), name, why)
}
