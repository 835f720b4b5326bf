package logs

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

// watched is a jobWatch on a fake cluster, made as follow makes it.
type watched struct {
	*jobWatch
	kube           *kubefake.Clientset
	stdout, stderr *syncBuffer
}

// watchOf makes the jobWatch of logs -f with c (the running mnist job by
// default) on a cluster with objs, its streams read from src; it is closed
// with the test. Its watches are not open yet.
func watchOf(t *testing.T, c Request, src Source, objs ...runtime.Object) watched {
	t.Helper()
	ctx := context.Background()
	kube := kubefake.NewClientset(objs...)
	var stdout, stderr syncBuffer
	c.Kind, c.Kube, c.Source, c.Out, c.ErrOut = tfjob.New(), kube, src, &stdout, &stderr
	if c.Job == nil {
		c.Job = mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning)
	}
	if c.Dynamic == nil {
		c.Dynamic = jobclienttest.Dynamic(c.Job)
	}
	if c.MaxLogRequests == 0 {
		c.MaxLogRequests = 64
	}
	c.Tail = -1
	if c.clock == nil {
		c.clock = clocktesting.NewFakeClock(jobclienttest.T0)
	}
	pods := listed(t, kube)
	replicas, err := c.Kind.Replicas(c.Job, pods.Items)
	if err != nil {
		t.Fatal(err)
	}
	selected, err := Select(replicas, c.Tasks, c.Role)
	if err != nil {
		t.Fatal(err)
	}
	w := newJobWatch(ctx, &c, selected, replicas)
	t.Cleanup(w.close)
	return watched{jobWatch: w, kube: kube, stdout: &stdout, stderr: &stderr}
}

func listed(t *testing.T, kube *kubefake.Clientset) *corev1.PodList {
	t.Helper()
	pods, err := listPods(context.Background(), kube, "team-a", tfjob.New().PodSelector("mnist"))
	if err != nil {
		t.Fatal(err)
	}
	return pods
}

// streamOf is the stream of a pod's train container; nil when there is none.
func (w watched) streamOf(pod string) *stream {
	for _, s := range w.order {
		if s.pod.Name == pod && s.container == "train" {
			return s
		}
	}
	return nil
}

// mnistLogs serves a line for each of mnist's replicas, and follows them.
func mnistLogs() *followSource {
	return &followSource{fakeSource{logs: map[string][]string{
		"mnist-ps-0":     {stamp(1, 0, "ps up")},
		"mnist-worker-0": {stamp(2, 0, "w0 step 1")},
		"mnist-worker-1": {stamp(3, 0, "w1 step 1")},
	}}}
}

func TestTheWatchFollowsEachContainerOfAPodOnceAndOnlyOfTheReplicasSelected(t *testing.T) {
	w := watchOf(t, Request{Role: "worker"}, mnistLogs(), tfPod("ps", 0, corev1.PodRunning), tfPod("worker", 0, corev1.PodRunning))
	w.takeIn(listed(t, w.kube))
	if w.listed != nil {
		t.Error("the first LIST's replicas are kept")
	}
	waitFor(t, "stdout", w.stdout, "[worker-0] w0 step 1\n")
	// The pod again (the watch's first event), and a pod seen only now.
	w.onPod(tfPod("worker", 0, corev1.PodRunning), false)
	w.onPod(tfPod("worker", 1, corev1.PodRunning), false)
	waitFor(t, "stdout", w.stdout, "[worker-1] w1 step 1\n")
	if len(w.order) != 2 || len(w.streams) != 2 || w.streamOf("mnist-ps-0") != nil {
		t.Errorf("streams %+v, want worker-0's and worker-1's", w.order)
	}
	for _, s := range w.order {
		if !s.running || s.gone {
			t.Errorf("%s: running %v, gone %v", s.task, s.running, s.gone)
		}
	}
}

func TestTheWatchSaysWhyAPodIsPendingEachTimeTheReasonChanges(t *testing.T) {
	w := watchOf(t, Request{}, mnistLogs())
	pending := tfPod("worker", 0, corev1.PodPending)
	pending.Spec.NodeName = ""
	pending.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/3 nodes are available"}}
	w.onPod(pending, false)
	w.onPod(pending, false)
	pending = pending.DeepCopy()
	pending.Status.Phase = ""
	pending.Status.Conditions[0].Message = "0/4 nodes are available"
	w.onPod(pending, false)
	want := "worker-0 is Pending: Unschedulable: 0/3 nodes are available\nworker-0 is Pending: Unschedulable: 0/4 nodes are available\n"
	if w.stderr.String() != want || len(w.order) != 0 {
		t.Errorf("stderr %q, %d streams; want %q, none", w.stderr.String(), len(w.order), want)
	}
}

// mnistEnds serves a line for each of mnist's replicas; every stream ends
// after it, as the stream of a container that ended does.
func mnistEnds() *fakeSource { return &mnistLogs().fakeSource }

// ended waits until the streams of pods have ended (in any order), and
// hands them back to w's loop in the order of pods.
func (w watched) ended(t *testing.T, pods ...string) {
	t.Helper()
	got := map[string]*stream{}
	for range pods {
		s := handedBack(t, "a stream that ended", w.runner.ended)
		got[s.pod.Name] = s
	}
	for _, pod := range pods {
		if got[pod] == nil {
			t.Fatalf("the stream of %s did not end", pod)
		}
		w.onStreamEnded(got[pod])
	}
}

func TestTheWatchLeavesOutStreamsBeyondMaxLogRequests(t *testing.T) {
	w := watchOf(t, Request{MaxLogRequests: 1}, mnistEnds(), tfPod("worker", 0, corev1.PodRunning))
	w.takeIn(listed(t, w.kube))
	w.onPod(tfPod("worker", 1, corev1.PodRunning), false)
	if s := w.streamOf("mnist-worker-1"); s == nil || !s.gone || s.running {
		t.Errorf("worker-1's stream %+v, want gone", s)
	}
	if want := "worker-1: not followed: more than --max-log-requests 1 streams\n"; w.stderr.String() != want {
		t.Errorf("stderr %q, want %q", w.stderr.String(), want)
	}
	// worker-0 ran to its end: its stream holds no request any more.
	w.onPod(tfPod("worker", 0, corev1.PodSucceeded), false)
	w.ended(t, "mnist-worker-0")
	w.onPod(tfPod("ps", 0, corev1.PodRunning), false)
	if s := w.streamOf("mnist-ps-0"); s == nil || s.gone || !s.running {
		t.Errorf("ps-0's stream %+v, want followed", s)
	}
	// Nor is a stream left out followed later.
	w.onPod(tfPod("worker", 1, corev1.PodRunning), false)
	if s := w.streamOf("mnist-worker-1"); !s.gone || s.running {
		t.Errorf("worker-1's stream %+v, want still gone", s)
	}
}

func TestTheWatchSaysWhenAContainerRestartedAndOpensItsStreamAgain(t *testing.T) {
	w := watchOf(t, Request{}, mnistEnds(), tfPod("worker", 0, corev1.PodRunning))
	w.takeIn(listed(t, w.kube))
	s := w.streamOf("mnist-worker-0")
	// The stream ended; its retry waits on the test's clock.
	w.ended(t, "mnist-worker-0")
	restarted := tfPod("worker", 0, corev1.PodRunning)
	restarted.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "train", RestartCount: 2}}
	w.onPod(restarted, false)
	if w.stderr.String() != "worker-0 restarted (2 restarts)\n" || !s.running {
		t.Errorf("stderr %q, running %v", w.stderr.String(), s.running)
	}
	w.onPod(restarted, false)
	if strings.Count(w.stderr.String(), "restarted") != 1 {
		t.Errorf("one restart said twice:\n%s", w.stderr.String())
	}
	// The retry that comes meanwhile finds the stream open.
	w.c.clock.(*clocktesting.FakeClock).Step(time.Minute)
	if got := handedBack(t, "the retry", w.runner.retry); got != s || got.due() {
		t.Errorf("retried %+v, due %v", got, got.due())
	}
}

func TestAStreamThatEndedIsRetriedOnlyWhileItsPodRuns(t *testing.T) {
	for _, tt := range []struct {
		what    string
		pod     *corev1.Pod
		deleted bool
		retried bool
	}{
		{what: "a running pod's", pod: tfPod("worker", 0, corev1.PodRunning), retried: true},
		{what: "a pod that ended's", pod: tfPod("worker", 0, corev1.PodSucceeded)},
		{what: "a deleted pod's", pod: tfPod("worker", 0, corev1.PodRunning), deleted: true},
	} {
		w := watchOf(t, Request{}, mnistEnds(), tfPod("worker", 0, corev1.PodRunning))
		w.takeIn(listed(t, w.kube))
		clock := w.c.clock.(*clocktesting.FakeClock)
		s := w.streamOf("mnist-worker-0")
		w.onPod(tt.pod, tt.deleted)
		w.ended(t, "mnist-worker-0")
		if s.running || clock.HasWaiters() != tt.retried || s.gone != tt.deleted {
			t.Errorf("%s stream: running %v, gone %v, retried %v", tt.what, s.running, s.gone, clock.HasWaiters())
		}
		if !tt.retried {
			continue
		}
		clock.Step(defaultRetryBackoff.Duration * 2)
		if got := handedBack(t, "the retry", w.runner.retry); got != s || !got.due() {
			t.Errorf("retried %+v", got)
		}
	}
}

// stopped reports whether a watch was stopped: its channel closed (after
// what it still held).
func stopped(wi watch.Interface) bool {
	for {
		select {
		case _, ok := <-wi.ResultChan():
			if !ok {
				return true
			}
		case <-time.After(time.Second):
			return false
		}
	}
}

func TestWhenThePodWatchEndsThePodsAreListedAgain(t *testing.T) {
	w := watchOf(t, Request{}, mnistLogs(), tfPod("ps", 0, corev1.PodRunning), tfPod("worker", 0, corev1.PodRunning))
	ctx := context.Background()
	if err := w.open(ctx, "", false); err != nil {
		t.Fatal(err)
	}
	w.takeIn(listed(t, w.kube))
	// While no watch is open (410 Gone): worker-0's pod goes, worker-1's
	// comes.
	pods := w.kube.CoreV1().Pods("team-a")
	if err := pods.Delete(ctx, "mnist-worker-0", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Create(ctx, tfPod("worker", 1, corev1.PodRunning), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	old := w.pods
	if err := w.onPodEvent(ctx, watch.Event{}, false); err != nil {
		t.Fatal(err)
	}
	if !stopped(old) || w.pods == old {
		t.Error("the watch that ended was not replaced")
	}
	if s := w.streamOf("mnist-worker-0"); !s.gone {
		t.Error("the stream of a pod no longer listed is not gone")
	}
	if s := w.streamOf("mnist-ps-0"); s.gone || !s.running {
		t.Errorf("ps-0's stream %+v, want followed still", s)
	}
	waitFor(t, "stdout", w.stdout, "[worker-1] w1 step 1\n")

	// A pod the new watch sees.
	if _, err := pods.Update(ctx, tfPod("worker", 1, corev1.PodSucceeded), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.pods.ResultChan():
		if err := w.onPodEvent(ctx, ev, true); err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the new watch saw nothing")
	}
	if s := w.streamOf("mnist-worker-1"); s.pod.Phase != corev1.PodSucceeded {
		t.Errorf("worker-1's stream %+v, want its pod Succeeded", s)
	}
}

func TestAFailedListOfThePodsEndsFollowing(t *testing.T) {
	w := watchOf(t, Request{}, mnistLogs())
	if err := w.open(context.Background(), "", false); err != nil {
		t.Fatal(err)
	}
	w.kube.PrependReactor("list", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("alice may not"))
	})
	err := w.onPodEvent(context.Background(), watch.Event{}, false)
	if !apierrors.IsForbidden(err) || !strings.HasPrefix(err.Error(), "listing the pods of tf/mnist again: ") {
		t.Errorf("err = %v", err)
	}
}

func TestWhenTheJobWatchEndsTheJobIsReadAgain(t *testing.T) {
	w := watchOf(t, Request{}, mnistLogs())
	ctx := context.Background()
	if err := w.open(ctx, "", false); err != nil {
		t.Fatal(err)
	}
	jobs := w.c.Dynamic.Resource(tfjob.New().Resource()).Namespace("team-a")
	// Still running: watched again.
	old := w.job
	if _, done, err := w.onJobEvent(ctx, watch.Event{}, false); done || err != nil {
		t.Fatalf("done %v, %v", done, err)
	}
	if !stopped(old) || w.job == old {
		t.Error("the watch that ended was not replaced")
	}
	// It failed meanwhile: following ends with its state.
	failed := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobFailed)
	failed.SetResourceVersion("2")
	if _, err := jobs.Update(ctx, failed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	final, done, err := w.onJobEvent(ctx, watch.Event{}, false)
	if !done || err != nil || final.State != jobmodel.Failed || w.c.Job.GetResourceVersion() != "2" {
		t.Errorf("final %+v, done %v, %v; job version %s", final, done, err, w.c.Job.GetResourceVersion())
	}
	// It was deleted meanwhile.
	if err := jobs.Delete(ctx, "mnist", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, done, err := w.onJobEvent(ctx, watch.Event{}, false); done || exit.Code(err) != exit.NotFound || err.Error() != "tf/mnist was deleted" {
		t.Errorf("done %v, err %v (exit %d)", done, err, exit.Code(err))
	}
}

func TestWhatTheJobWatchSendsEndsFollowingOrNot(t *testing.T) {
	running := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning)
	succeeded := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobSucceeded)
	for _, tt := range []struct {
		what  string
		ev    watch.Event
		done  bool
		state jobmodel.State
		code  int
	}{
		{what: "running", ev: watch.Event{Type: watch.Modified, Object: running}},
		{what: "an error", ev: watch.Event{Type: watch.Error, Object: &metav1.Status{Code: 500}}},
		{what: "succeeded", ev: watch.Event{Type: watch.Modified, Object: succeeded}, done: true, state: jobmodel.Succeeded},
		{what: "deleted", ev: watch.Event{Type: watch.Deleted, Object: running}, code: exit.NotFound},
	} {
		w := watchOf(t, Request{}, mnistLogs())
		final, done, err := w.onJobEvent(context.Background(), tt.ev, true)
		if done != tt.done || exit.Code(err) != tt.code || (done && final.State != tt.state) {
			t.Errorf("%s: final %+v, done %v, %v (exit %d)", tt.what, final, done, err, exit.Code(err))
		}
	}
}

func TestTheWatchLoopEndsWithItsContext(t *testing.T) {
	w := watchOf(t, Request{}, mnistLogs())
	if err := w.open(context.Background(), "", false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}

func TestTheDrainReadsWhatEachStreamHasNotShown(t *testing.T) {
	src := &followSource{fakeSource{logs: map[string][]string{
		"mnist-ps-0":     {stamp(1, 0, "ps up")},
		"mnist-worker-0": {stamp(2, 0, "w0 step 1"), stamp(3, 0, "w0 step 2")},
		"mnist-worker-1": {stamp(4, 0, "w1 done")},
	}}}
	w := watchOf(t, Request{}, src, tfPod("ps", 0, corev1.PodRunning), tfPod("worker", 0, corev1.PodRunning))
	// ps-0's stream is gone; worker-0's showed its first line; worker-1
	// ran while no watch saw it.
	ps := newStream(w.c, tfPod("ps", 0, corev1.PodRunning), jobmodel.Replica{Task: "ps-0"}, "train", wait.Backoff{})
	ps.gone = true
	w0 := newStream(w.c, tfPod("worker", 0, corev1.PodRunning), jobmodel.Replica{Task: "worker-0"}, "train", wait.Backoff{})
	if err := copyLines(strings.NewReader(stamp(2, 0, "w0 step 1")+"\n"), &lineWriter{w: io.Discard}, "", &w0.resume, false); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*stream{ps, w0} {
		w.streams[s.key()] = s
		w.order = append(w.order, s)
	}
	if _, err := w.kube.CoreV1().Pods("team-a").Create(context.Background(), tfPod("worker", 1, corev1.PodSucceeded), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.drain(context.Background())
	_ = w.runner.out.flush()
	if want := "[worker-0] w0 step 2\n[worker-1] w1 done\n"; w.stdout.String() != want || w.stderr.String() != "" {
		t.Errorf("stdout %q, stderr %q; want %q", w.stdout.String(), w.stderr.String(), want)
	}
	for _, r := range src.requests {
		if r.Follow {
			t.Errorf("the drain followed: %+v", r)
		}
	}
}

func TestTheSelectionFollowsReplicasThatAppearLaterByRoleNotByTask(t *testing.T) {
	// The job had ps-0 and worker-0 at the start; worker-1 appears later.
	for _, tt := range []struct {
		c    Request
		want string
	}{
		{Request{}, "ps-0 worker-0 worker-1"},
		{Request{Role: "worker"}, "worker-0 worker-1"},
		{Request{Tasks: []string{"worker-0"}}, "worker-0"},
		{Request{Tasks: []string{"worker-0"}, Role: "ps"}, ""},
	} {
		selected, err := Select(replicasOf("ps-0", "worker-0"), tt.c.Tasks, tt.c.Role)
		if err != nil {
			t.Fatal(err)
		}
		sel := newSelection(&tt.c, selected)
		var got []string
		for _, r := range replicasOf("ps-0", "worker-0", "worker-1") {
			if sel.has(r) {
				got = append(got, r.Task)
			}
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("tasks %v, role %q: %v, want %s", tt.c.Tasks, tt.c.Role, got, tt.want)
		}
	}
}

func TestAListIsTriedAgainUntilTheAPIServerIsBackButNotWhenRefused(t *testing.T) {
	calls := 0
	err := retryList(context.Background(), func(context.Context) error {
		if calls++; calls == 1 {
			return errors.New("connection refused")
		}
		return nil
	})
	if err != nil || calls != 2 {
		t.Errorf("a LIST that failed once: %v after %d calls", err, calls)
	}
	calls = 0
	refused := apierrors.NewUnauthorized("token expired")
	err = retryList(context.Background(), func(context.Context) error { calls++; return refused })
	if !errors.Is(err, refused) || calls != 1 {
		t.Errorf("a refused LIST: %v after %d calls", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	down := errors.New("connection refused")
	err = retryList(ctx, func(context.Context) error { cancel(); return down })
	if !errors.Is(err, down) {
		t.Errorf("a LIST while following stops: %v, want its last error", err)
	}
}
