package logs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

// gangOf is the gangWatch of the running mnist job on a cluster with
// events; it is stopped with the test.
func gangOf(t *testing.T, events ...runtime.Object) (*gangWatch, *kubefake.Clientset, *syncBuffer) {
	t.Helper()
	var stderr syncBuffer
	kube := kubefake.NewClientset(events...)
	g := newGangWatch(&Request{Kind: tfjob.New(), Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning), Kube: kube, ErrOut: &stderr})
	t.Cleanup(g.stop)
	return g, kube, &stderr
}

func gangWarning(name, reason, message string, last time.Time) *corev1.Event {
	return jobclienttest.Warning("team-a", name, "PodGroup", "mnist", reason, message, 1, last)
}

func TestTheGangWatchShowsTheLatestReasonWhileWaitingForPods(t *testing.T) {
	older := gangWarning("e0", "Unschedulable", "0/2 nodes are available", jobclienttest.T0)
	latest := gangWarning("e1", "Unschedulable", "0/3 nodes are available ", jobclienttest.T0.Add(time.Minute))
	for _, waiting := range []bool{true, false} {
		g, _, stderr := gangOf(t, latest, older)
		if err := g.open(context.Background(), waiting); err != nil {
			t.Fatal(err)
		}
		want := "waiting for the job's gang of pods: Unschedulable: 0/3 nodes are available\n"
		if !waiting {
			want = ""
		}
		if stderr.String() != want || g.ch == nil {
			t.Errorf("waiting %v: stderr %q, want %q; watching %v", waiting, stderr.String(), want, g.ch != nil)
		}
	}
}

func TestTheGangWatchSaysEachReasonOnceAndOnlyWhileWaiting(t *testing.T) {
	g, _, stderr := gangOf(t)
	full := watch.Event{Type: watch.Added, Object: gangWarning("e0", "Unschedulable", "0/3 nodes are available", jobclienttest.T0)}
	g.onEvent(context.Background(), full, true, false)
	g.onEvent(context.Background(), full, true, true)
	g.onEvent(context.Background(), full, true, true)
	g.onEvent(context.Background(), watch.Event{Type: watch.Deleted, Object: gangWarning("e1", "Other", "deleted", jobclienttest.T0)}, true, true)
	g.onEvent(context.Background(), watch.Event{Type: watch.Error, Object: &metav1.Status{Code: 500}}, true, true)
	g.onEvent(context.Background(), watch.Event{Type: watch.Modified, Object: gangWarning("e2", "Unschedulable", "queue full", jobclienttest.T0)}, true, true)
	want := "waiting for the job's gang of pods: Unschedulable: 0/3 nodes are available\n" +
		"waiting for the job's gang of pods: Unschedulable: queue full\n"
	if stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
}

func TestWhenTheGangWatchEndsTheEventsAreListedAgainOrNoLongerWatched(t *testing.T) {
	ctx := context.Background()
	g, kube, stderr := gangOf(t, gangWarning("e0", "Unschedulable", "0/3 nodes are available", jobclienttest.T0))
	if err := g.open(ctx, true); err != nil {
		t.Fatal(err)
	}
	// A newer event while no watch is open: the LIST after it finds it.
	if _, err := kube.CoreV1().Events("team-a").Create(ctx, gangWarning("e1", "Unschedulable", "queue full", jobclienttest.T0.Add(time.Minute)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	old := g.w
	g.onEvent(ctx, watch.Event{}, false, true)
	if !stopped(old) || g.w == old || g.ch == nil {
		t.Error("the watch that ended was not replaced")
	}
	if !strings.HasSuffix(stderr.String(), "waiting for the job's gang of pods: Unschedulable: queue full\n") {
		t.Errorf("stderr %q", stderr.String())
	}
	// The LIST fails: following goes on without the events.
	kube.PrependReactor("list", "events", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	old = g.w
	g.onEvent(ctx, watch.Event{}, false, true)
	if !stopped(old) || g.ch != nil {
		t.Error("the events are still watched")
	}
}

func TestAGangWatchThatCannotListSaysWhy(t *testing.T) {
	g, kube, _ := gangOf(t)
	kube.PrependReactor("list", "events", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("connection refused")
	})
	if err := g.open(context.Background(), true); err == nil || err.Error() != "listing the events of tf/mnist: connection refused" {
		t.Errorf("err = %v", err)
	}
}
