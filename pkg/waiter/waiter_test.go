package waiter_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

var (
	created   = []kubeflowv1.JobConditionType{kubeflowv1.JobCreated}
	running   = []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning}
	succeeded = []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobSucceeded}
	failed    = []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobFailed}
	suspended = []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobSuspended}
)

func mnist(conds []kubeflowv1.JobConditionType, rv string) *unstructured.Unstructured {
	obj := jobclienttest.Job{Name: "mnist", Created: jobclienttest.T0, Conditions: conds,
		Roles: []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 1}}}.Object()
	obj.SetResourceVersion(rv)
	return obj
}

// wait runs a wait on a fake client whose watch sends events, and records
// the watches' field selectors.
func wait(t *testing.T, initial *unstructured.Unstructured, stored runtime.Object, cond waiter.Condition, timeout time.Duration, events ...watch.Event) (*waiter.Result, []string, error) {
	t.Helper()
	var objs []runtime.Object
	if stored != nil {
		objs = append(objs, stored)
	}
	dyn := jobclienttest.Dynamic(objs...)
	var selectors []string
	dyn.PrependWatchReactor("tfjobs", func(a clienttesting.Action) (bool, watch.Interface, error) {
		selectors = append(selectors, a.(clienttesting.WatchActionImpl).GetWatchRestrictions().Fields.String())
		w := watch.NewFakeWithChanSize(len(events), false)
		for _, ev := range events {
			w.Action(ev.Type, ev.Object)
		}
		events = nil // a second watch (after an expiry) sees nothing new
		return true, w, nil
	})
	k, _ := jobclienttest.Registry().Lookup("tf")
	res, err := waiter.Wait(context.Background(), waiter.Request{
		Dynamic: dyn, Kind: k, GPUResource: config.DefaultGPUResource, Object: initial, For: cond, Timeout: timeout,
	})
	return res, selectors, err
}

func TestWaitEndsWithTheJob(t *testing.T) {
	tests := []struct {
		name    string
		initial []kubeflowv1.JobConditionType
		cond    waiter.Condition
		events  []watch.Event
		code    int
		state   jobmodel.State
		watches int
	}{
		{"succeeds", running, waiter.Finished, []watch.Event{{Type: watch.Modified, Object: mnist(succeeded, "2")}}, exit.OK, jobmodel.Succeeded, 1},
		{"fails", running, waiter.Finished, []watch.Event{{Type: watch.Modified, Object: mnist(failed, "2")}}, exit.JobFailed, jobmodel.Failed, 1},
		{"fails waiting for success", running, waiter.Succeeded, []watch.Event{{Type: watch.Modified, Object: mnist(failed, "2")}}, exit.JobFailed, jobmodel.Failed, 1},
		{"runs after events that do not count", created, waiter.Running, []watch.Event{
			{Type: watch.Modified, Object: mnist(created, "2")}, {Type: watch.Modified, Object: mnist(running, "3")},
		}, exit.OK, jobmodel.Running, 1},
		{"fails before running", created, waiter.Running, []watch.Event{{Type: watch.Modified, Object: mnist(failed, "2")}}, exit.JobFailed, jobmodel.Failed, 1},
		{"already succeeded: no watch", succeeded, waiter.Succeeded, nil, exit.OK, jobmodel.Succeeded, 0},
		{"already failed: no watch", failed, waiter.Finished, nil, exit.JobFailed, jobmodel.Failed, 0},
		{"times out", running, waiter.Finished, nil, exit.Timeout, jobmodel.Running, 1},
		{"suspended", running, waiter.Suspended, []watch.Event{{Type: watch.Modified, Object: mnist(suspended, "2")}}, exit.OK, jobmodel.Suspended, 1},
		{"succeeds before it is suspended", running, waiter.Suspended, []watch.Event{{Type: watch.Modified, Object: mnist(succeeded, "2")}}, exit.Error, jobmodel.Succeeded, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, selectors, err := wait(t, mnist(tt.initial, "1"), nil, tt.cond, 200*time.Millisecond, tt.events...)
			if got := exit.Code(err); got != tt.code {
				t.Fatalf("exit code %d (%v), want %d", got, err, tt.code)
			}
			if res.Summary.Status.State != tt.state {
				t.Errorf("state %s, want %s", res.Summary.Status.State, tt.state)
			}
			if len(selectors) != tt.watches {
				t.Errorf("%d watches, want %d", len(selectors), tt.watches)
			}
			for _, s := range selectors {
				if s != "metadata.name=mnist" {
					t.Errorf("watch field selector %q", s)
				}
			}
			if !strings.HasPrefix(res.Line(mustKind(t)), "tf/mnist "+string(tt.state)+" after ") {
				t.Errorf("line %q", res.Line(mustKind(t)))
			}
		})
	}
}

func TestWaitForADeletedJobIsNotFound(t *testing.T) {
	_, _, err := wait(t, mnist(running, "1"), nil, waiter.Finished, time.Second, watch.Event{Type: watch.Deleted, Object: mnist(running, "2")})
	if exit.Code(err) != exit.NotFound || !strings.Contains(err.Error(), "tf/mnist was deleted") {
		t.Fatalf("err %v (code %d), want not found", err, exit.Code(err))
	}
}

func TestWaitReadsTheJobAgainWhenTheWatchExpires(t *testing.T) {
	gone := &apierrors.NewResourceExpired("too old resource version").ErrStatus
	res, selectors, err := wait(t, mnist(running, "1"), mnist(succeeded, "9"), waiter.Finished, time.Second,
		watch.Event{Type: watch.Error, Object: gone})
	if err != nil || res.Summary.Status.State != jobmodel.Succeeded {
		t.Fatalf("err %v, state %s; want Succeeded from the new GET", err, res.Summary.Status.State)
	}
	if len(selectors) != 1 {
		t.Errorf("%d watches, want 1 (the GET found it finished)", len(selectors))
	}
}

func TestWaitForAJobDeletedBeforeTheWatchExpired(t *testing.T) {
	gone := &apierrors.NewGone("gone").ErrStatus
	_, _, err := wait(t, mnist(running, "1"), nil, waiter.Finished, time.Second, watch.Event{Type: watch.Error, Object: gone})
	if exit.Code(err) != exit.NotFound {
		t.Fatalf("err %v, want not found", err)
	}
}

func TestParseCondition(t *testing.T) {
	for in, want := range map[string]waiter.Condition{"running": waiter.Running, "Finished": waiter.Finished, "succeeded": waiter.Succeeded} {
		if got, err := waiter.ParseCondition(in); err != nil || got != want {
			t.Errorf("ParseCondition(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := waiter.ParseCondition("done"); exit.Code(err) != exit.Usage {
		t.Errorf("ParseCondition(done): %v, want a usage error", err)
	}
}

func mustKind(t *testing.T) kinds.Kind {
	k, ok := jobclienttest.Registry().Lookup("tf")
	if !ok {
		t.Fatal("no tf kind")
	}
	return k
}

// TestRunningIsToldOnce: a wait that goes on past running tells Running
// the first version it sees running, once; a wait that ends at running,
// or sees no running version, does not.
func TestRunningIsToldOnce(t *testing.T) {
	k := mustKind(t)
	for _, tt := range []struct {
		name    string
		initial []kubeflowv1.JobConditionType
		cond    waiter.Condition
		events  []watch.Event
		told    string
	}{
		{"runs, then succeeds", created, waiter.Finished, []watch.Event{
			{Type: watch.Modified, Object: mnist(running, "2")}, {Type: watch.Modified, Object: mnist(running, "3")},
			{Type: watch.Modified, Object: mnist(succeeded, "4")},
		}, "2"},
		{"already running", running, waiter.Succeeded, []watch.Event{{Type: watch.Modified, Object: mnist(succeeded, "2")}}, "1"},
		{"fails before running", created, waiter.Finished, []watch.Event{{Type: watch.Modified, Object: mnist(failed, "2")}}, ""},
		{"running ends the wait", created, waiter.Running, []watch.Event{{Type: watch.Modified, Object: mnist(running, "2")}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dyn := jobclienttest.Dynamic()
			events := tt.events
			dyn.PrependWatchReactor("tfjobs", func(clienttesting.Action) (bool, watch.Interface, error) {
				w := watch.NewFakeWithChanSize(len(events), false)
				for _, ev := range events {
					w.Action(ev.Type, ev.Object)
				}
				events = nil
				return true, w, nil
			})
			var told []string
			_, err := waiter.Wait(context.Background(), waiter.Request{
				Dynamic: dyn, Kind: k, GPUResource: config.DefaultGPUResource, Object: mnist(tt.initial, "1"), For: tt.cond, Timeout: 2 * time.Second,
				Running: func(obj *unstructured.Unstructured) { told = append(told, obj.GetResourceVersion()) },
			})
			if c := exit.Code(err); c != exit.OK && c != exit.JobFailed {
				t.Fatal(err)
			}
			if strings.Join(told, ",") != tt.told {
				t.Errorf("told of versions %q, want %q", told, tt.told)
			}
		})
	}
}

// A pod that cannot start until the job changes (an image the node does not
// have and may not pull) ends the wait as a failure; a pod that may still
// start, or statuses the user may not read, leave the wait to the job.
func TestWaitEndsWhenAPodCannotStart(t *testing.T) {
	waiter.PodPollInterval = 10 * time.Millisecond
	k, _ := jobclienttest.Registry().Lookup("tf")
	run := func(statuses func(context.Context) (map[string]string, error), timeout time.Duration) (*waiter.Result, error) {
		dyn := jobclienttest.Dynamic()
		dyn.PrependWatchReactor("tfjobs", func(clienttesting.Action) (bool, watch.Interface, error) {
			return true, watch.NewFakeWithChanSize(0, false), nil
		})
		return waiter.Wait(context.Background(), waiter.Request{
			Dynamic: dyn, Kind: k, GPUResource: config.DefaultGPUResource, Object: mnist(created, "1"),
			For: waiter.Finished, Timeout: timeout, PodStatuses: statuses,
		})
	}
	calls := 0
	res, err := run(func(context.Context) (map[string]string, error) {
		calls++
		if calls < 3 {
			return map[string]string{"mnist-worker-0": "ContainerCreating"}, nil
		}
		return map[string]string{"mnist-worker-0": "Running", "mnist-worker-1": "Init:ErrImageNeverPull"}, nil
	}, time.Minute)
	if exit.Code(err) != exit.JobFailed || err.Error() != "tf/mnist Pending after 0s: pod mnist-worker-1 cannot start: Init:ErrImageNeverPull" || res == nil {
		t.Errorf("a pod that cannot start: %v (exit %d)", err, exit.Code(err))
	}

	for name, statuses := range map[string]func(context.Context) (map[string]string, error){
		"may start": func(context.Context) (map[string]string, error) {
			return map[string]string{"mnist-worker-0": "ImagePullBackOff"}, nil
		},
		"may not be read": func(context.Context) (map[string]string, error) {
			return nil, apierrors.NewForbidden(schemaPods, "", nil)
		},
	} {
		if _, err := run(statuses, 100*time.Millisecond); exit.Code(err) != exit.Timeout {
			t.Errorf("%s: %v (exit %d), want the wait's timeout", name, err, exit.Code(err))
		}
	}
}

var schemaPods = schema.GroupResource{Resource: "pods"}

// A crash loop, or a pod made while a Secret it mounts is missing, ends the
// wait once it has lasted StuckAfter, by the wait's clock; a pod whose
// status changed starts counting again, and StuckAfter 0 waits them out.
func TestWaitEndsWhenAPodStaysStuck(t *testing.T) {
	waiter.PodPollInterval = 10 * time.Millisecond
	k, _ := jobclienttest.Registry().Lookup("tf")
	run := func(stuckAfter time.Duration, statuses []map[string]string, mounts map[string]string) error {
		dyn := jobclienttest.Dynamic()
		dyn.PrependWatchReactor("tfjobs", func(clienttesting.Action) (bool, watch.Interface, error) {
			return true, watch.NewFakeWithChanSize(0, false), nil
		})
		var mu sync.Mutex
		clock, polls := jobclienttest.T0, 0
		_, err := waiter.Wait(context.Background(), waiter.Request{
			Dynamic: dyn, Kind: k, GPUResource: config.DefaultGPUResource, Object: mnist(created, "1"),
			For: waiter.Finished, Timeout: 300 * time.Millisecond, StuckAfter: stuckAfter,
			Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return clock },
			PodStatuses: func(context.Context) (map[string]string, error) {
				mu.Lock()
				defer mu.Unlock()
				got := statuses[min(polls, len(statuses)-1)]
				polls++
				clock = clock.Add(20 * time.Second) // each poll, 20 s later
				return got, nil
			},
			MountFailures: func(context.Context) (map[string]string, error) {
				mu.Lock()
				defer mu.Unlock()
				if polls < 4 {
					t.Errorf("the events read at poll %d, before a pod was made for StuckAfter", polls)
				}
				return mounts, nil
			},
		})
		return err
	}
	crash := map[string]string{"mnist-worker-0": "CrashLoopBackOff"}
	running := map[string]string{"mnist-worker-0": "Running"}
	err := run(time.Minute, []map[string]string{crash, crash, running, crash}, nil)
	if exit.Code(err) != exit.JobFailed || !strings.HasSuffix(err.Error(), ": pod mnist-worker-0 keeps crashing: CrashLoopBackOff for 1m0s (--stuck-after)") {
		t.Errorf("a crash loop: %v (exit %d)", err, exit.Code(err))
	}
	if err := run(0, []map[string]string{crash}, nil); exit.Code(err) != exit.Timeout {
		t.Errorf("a crash loop with StuckAfter 0: %v (exit %d), want the timeout", err, exit.Code(err))
	}

	making := map[string]string{"mnist-worker-0": "Running", "mnist-worker-1": "Init:0/1"}
	missing := map[string]string{"mnist-worker-1": `MountVolume.SetUp failed for volume "code" : secret "git" not found`}
	err = run(time.Minute, []map[string]string{making}, missing)
	if exit.Code(err) != exit.JobFailed || !strings.HasSuffix(err.Error(), `: pod mnist-worker-1 cannot start: FailedMount: MountVolume.SetUp failed for volume "code" : secret "git" not found`) {
		t.Errorf("a missing Secret: %v (exit %d)", err, exit.Code(err))
	}
	if err := run(time.Minute, []map[string]string{making}, map[string]string{"mnist-worker-0": "not this one"}); exit.Code(err) != exit.Timeout {
		t.Errorf("a pod being made without a missing mount: %v (exit %d), want the timeout", err, exit.Code(err))
	}
}

// A pod's name is the cluster's: the error that names it is one plain line.
func TestWaitNamesAStuckPodOnOneLine(t *testing.T) {
	waiter.PodPollInterval = 10 * time.Millisecond
	k, _ := jobclienttest.Registry().Lookup("tf")
	dyn := jobclienttest.Dynamic()
	dyn.PrependWatchReactor("tfjobs", func(clienttesting.Action) (bool, watch.Interface, error) {
		return true, watch.NewFakeWithChanSize(0, false), nil
	})
	_, err := waiter.Wait(context.Background(), waiter.Request{
		Dynamic: dyn, Kind: k, GPUResource: config.DefaultGPUResource, Object: mnist(created, "1"), For: waiter.Finished, Timeout: time.Minute,
		PodStatuses: func(context.Context) (map[string]string, error) {
			return map[string]string{"evil\x1b[2J\nname": "ErrImageNeverPull"}, nil
		},
	})
	if exit.Code(err) != exit.JobFailed || strings.ContainsAny(err.Error(), "\x1b\n") {
		t.Errorf("the error %q (exit %d)", err, exit.Code(err))
	}
}
