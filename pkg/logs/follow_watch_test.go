package logs

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

// goneOnce makes the first watch of resource a watch the test ends, as the
// API server ends one after a restart (an Error event with 410 Gone, then
// the end of the stream): what changes meanwhile reaches no watch. Later
// watches are the fake's own.
func goneOnce(add func(resource string, reaction clienttesting.WatchReactionFunc), resource string) (end func()) {
	w := watch.NewFakeWithChanSize(1, false)
	first := true
	add(resource, func(clienttesting.Action) (bool, watch.Interface, error) {
		if !first {
			return false, nil, nil
		}
		first = false
		return true, w, nil
	})
	return func() {
		if w.IsStopped() {
			return
		}
		w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
		w.Stop()
	}
}

// stillFollowing fails the test when logs -f has ended.
func stillFollowing(t *testing.T, done <-chan error, stderr *syncBuffer) {
	t.Helper()
	select {
	case err := <-done:
		t.Fatalf("logs -f ended while the job runs: %v\nstderr:\n%s", err, stderr.String())
	case <-time.After(100 * time.Millisecond):
	}
}

func TestFollowListsAgainAndGoesOnWhenItsWatchesEndWith410Gone(t *testing.T) {
	src := &followSource{fakeSource{logs: map[string][]string{
		"mnist-ps-0":     {stamp(1, 0, "ps up")},
		"mnist-worker-0": {stamp(2, 0, "w0 step 1")},
		"mnist-worker-1": {stamp(3, 0, "w1 step 1")},
	}}}
	running := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning)
	kube := kubefake.NewClientset(tfPod("ps", 0, corev1.PodRunning), tfPod("worker", 0, corev1.PodRunning))
	dyn := jobclienttest.Dynamic(running)
	endEvents := goneOnce(kube.PrependWatchReactor, "events")
	endPods := goneOnce(kube.PrependWatchReactor, "pods")
	endJob := goneOnce(dyn.PrependWatchReactor, "tfjobs")
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Request{Kind: tfjob.New(), Job: running, Kube: kube, Dynamic: dyn, Source: src,
			Follow: true, Tail: -1, MaxLogRequests: 64, Out: &stdout, ErrOut: &stderr})
	}()
	waitFor(t, "stdout", &stdout, "[worker-0] w0 step 1\n")

	// The gang's events watch ends: following goes on.
	endEvents()
	stillFollowing(t, done, &stderr)
	// worker-1 starts while the pod watch is gone; the LIST after it ends
	// finds it.
	ctx := context.Background()
	if _, err := kube.CoreV1().Pods("team-a").Create(ctx, tfPod("worker", 1, corev1.PodRunning), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	endPods()
	stillFollowing(t, done, &stderr)
	waitFor(t, "stdout", &stdout, "[worker-1] w1 step 1\n")

	// The job fails while its watch is gone; the LIST after it ends says so.
	src.mu.Lock()
	src.logs["mnist-worker-1"] = append(src.logs["mnist-worker-1"], stamp(4, 0, "w1 CUDA error"))
	src.mu.Unlock()
	failed := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobFailed)
	failed.SetResourceVersion("2")
	if _, err := dyn.Resource(tfjob.New().Resource()).Namespace("team-a").Update(ctx, failed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stillFollowing(t, done, &stderr)
	endJob()

	var err error
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("logs -f did not end with the job\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	if exit.Code(err) != exit.JobFailed {
		t.Errorf("err = %v (exit %d), want exit 4\nstderr:\n%s", err, exit.Code(err), stderr.String())
	}
	if strings.Contains(stderr.String(), "watch") {
		t.Errorf("stderr speaks of a watch:\n%s", stderr.String())
	}
	// The final drain ran: the line written before the job ended came, and
	// no line twice.
	want := []string{"[ps-0] ps up", "[worker-0] w0 step 1", "[worker-1] w1 step 1", "[worker-1] w1 CUDA error"}
	for _, line := range want {
		if n := strings.Count(stdout.String(), line+"\n"); n != 1 {
			t.Errorf("%q printed %d times:\n%s", line, n, stdout.String())
		}
	}
	if n := strings.Count(stdout.String(), "\n"); n != len(want) {
		t.Errorf("%d lines, want %d:\n%s", n, len(want), stdout.String())
	}
}

func TestFollowEndsWhenTheJobWasDeletedWhileItsWatchWasGone(t *testing.T) {
	src := &followSource{fakeSource{logs: map[string][]string{"mnist-ps-0": {stamp(1, 0, "ps up")}}}}
	running := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning)
	kube := kubefake.NewClientset(tfPod("ps", 0, corev1.PodRunning))
	dyn := jobclienttest.Dynamic(running)
	endJob := goneOnce(dyn.PrependWatchReactor, "tfjobs")
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Request{Kind: tfjob.New(), Job: running, Kube: kube, Dynamic: dyn, Source: src,
			Follow: true, Tail: -1, MaxLogRequests: 64, Out: &stdout, ErrOut: &stderr})
	}()
	waitFor(t, "stdout", &stdout, "[ps-0] ps up\n")
	if err := dyn.Resource(tfjob.New().Resource()).Namespace("team-a").Delete(context.Background(), "mnist", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	endJob()
	select {
	case err := <-done:
		if exit.Code(err) != exit.NotFound || err.Error() != "tf/mnist was deleted" {
			t.Errorf("err = %v (exit %d), want tf/mnist was deleted (exit 3)", err, exit.Code(err))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("logs -f did not end after the job was deleted")
	}
}

func TestFollowingPodsThatChangeIsRaceFree(t *testing.T) {
	// The pod is updated while its stream opens, with nothing ordering the
	// two: under -race, a stream reading the loop's pod is reported.
	src := &followSource{fakeSource{logs: map[string][]string{"mnist-worker-0": {stamp(1, 0, "w0 step 1")}}}}
	running := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning)
	kube := kubefake.NewClientset(tfPod("worker", 0, corev1.PodRunning))
	watching := make(chan struct{})
	kube.PrependWatchReactor("pods", func(clienttesting.Action) (bool, watch.Interface, error) {
		close(watching)
		return false, nil, nil
	})
	dyn := jobclienttest.Dynamic(running)
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Request{Kind: tfjob.New(), Job: running, Kube: kube, Dynamic: dyn, Source: src,
			Follow: true, Tail: -1, MaxLogRequests: 64, Out: &stdout, ErrOut: &stderr, Tasks: []string{"worker-0"}})
	}()
	<-watching
	ctx := context.Background()
	for i := int32(1); i <= 3; i++ {
		restarted := tfPod("worker", 0, corev1.PodRunning)
		restarted.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "train", RestartCount: i}}
		if _, err := kube.CoreV1().Pods("team-a").Update(ctx, restarted, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "stderr", &stderr, "worker-0 restarted (3 restarts)\n")
	waitFor(t, "stdout", &stdout, "[worker-0] w0 step 1\n")
	succeeded := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobSucceeded)
	succeeded.SetResourceVersion("2")
	if _, err := dyn.Resource(tfjob.New().Resource()).Namespace("team-a").Update(ctx, succeeded, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("logs -f did not end with the job")
	}
}

func TestStreamsThatEndedDoNotCountAgainstMaxLogRequests(t *testing.T) {
	src := &followSource{fakeSource{logs: map[string][]string{
		"mnist-ps-0":     {stamp(1, 0, "ps up")},
		"mnist-worker-0": {stamp(2, 0, "w0 step 1")},
	}}}
	running := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning)
	ps, w0 := tfPod("ps", 0, corev1.PodRunning), tfPod("worker", 0, corev1.PodRunning)
	kube := kubefake.NewClientset(ps, w0)
	dyn := jobclienttest.Dynamic(running)
	var stdout, stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Request{Kind: tfjob.New(), Job: running, Kube: kube, Dynamic: dyn, Source: src,
			Follow: true, Tail: -1, MaxLogRequests: 2, Role: "worker", Out: &stdout, ErrOut: &stderr})
	}()
	waitFor(t, "stdout", &stdout, "[worker-0] w0 step 1\n")
	ctx := context.Background()
	pods := kube.CoreV1().Pods("team-a")

	// worker-0's pod is replaced twice (evicted, made again by the operator):
	// at most one stream is followed at a time, under the limit of 2.
	for i, line := range []string{"w0 on its second pod", "w0 on its third pod"} {
		if err := pods.Delete(ctx, "mnist-worker-0", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		replaced := tfPod("worker", 0, corev1.PodRunning)
		replaced.UID += types.UID("-" + "abc"[i:i+1])
		src.mu.Lock()
		src.logs["mnist-worker-0"] = []string{stamp(10+i, 0, line)}
		src.mu.Unlock()
		if _, err := pods.Create(ctx, replaced, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "stdout", &stdout, "[worker-0] "+line+"\n")
	}
	// worker-1 ran to its end: its pod appears with its whole log.
	src.mu.Lock()
	src.logs["mnist-worker-1"] = []string{stamp(20, 0, "w1 done")}
	src.mu.Unlock()
	if _, err := pods.Create(ctx, tfPod("worker", 1, corev1.PodSucceeded), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "stdout", &stdout, "[worker-1] w1 done\n")

	succeeded := mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobSucceeded)
	succeeded.SetResourceVersion("2")
	if _, err := dyn.Resource(tfjob.New().Resource()).Namespace("team-a").Update(ctx, succeeded, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("logs -f did not end with the job")
	}
	if strings.Contains(stderr.String(), "not followed") {
		t.Errorf("a stream was not followed:\n%s", stderr.String())
	}
}
