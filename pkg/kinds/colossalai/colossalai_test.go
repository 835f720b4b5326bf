package colossalai_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/charts"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/colossalai"
	"github.com/easyai-dev/easyai/pkg/render"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// flags parses args as "easyai submit colossalai" would.
func flags(t *testing.T, args ...string) (*pflag.FlagSet, kinds.KindValues, *int) {
	t.Helper()
	fs := pflag.NewFlagSet("colossalai", pflag.ContinueOnError)
	workers := fs.Int("workers", 1, "number of workers")
	fs.Int("retry", 0, "")
	values := colossalai.New().SubmitFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs, values, workers
}

func submitValues(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	fs, values, workers := flags(t, args...)
	return values(kinds.SubmitCommon{Workers: *workers, Changed: fs.Changed})
}

func TestSubmitFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want map[string]any
	}{
		{nil, map[string]any{}},
		{[]string{"--workers", "2", "--nproc-per-node", "4", "--torch-args", "--max_restarts=0"}, map[string]any{
			"nprocPerNode": 4, "torchArgs": []any{"--max_restarts=0"},
			"roles": map[string]any{"worker": map[string]any{"replicas": 2}}}},
		{[]string{"--sshd-path", "/usr/bin/sshd", "--clean-up-workers=false", "--launcher-image", "x:1", "--launcher-cpu", "1", "--launcher-memory", "2Gi"}, map[string]any{
			"sshdPath": "/usr/bin/sshd", "cleanUpWorkers": false,
			"roles": map[string]any{"launcher": map[string]any{"image": "x:1", "resources": map[string]any{"cpu": "1", "memory": "2Gi"}}}}},
	} {
		got, err := submitValues(t, tc.args...)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: values %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
}

func TestBadFlagsAreUsageErrorsNamingTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--backend", "k8s"}, "--backend"},
		{[]string{"--workers", "0"}, "--workers"},
		{[]string{"--nproc-per-node", "0"}, "--nproc-per-node"},
		{[]string{"--torch-args", "--x=a b"}, "--torch-args"},
		{[]string{"--torch-args", "--a=1,--b=2"}, "--torch-args"},
		{[]string{"--sshd-path", "sshd"}, "--sshd-path"},
		{[]string{"--sshd-path", "/usr/sbin/sshd; rm -rf /"}, "--sshd-path"},
		{[]string{"--launcher-cpu", "lots"}, "--launcher-cpu"},
		{[]string{"--launcher-memory", "2GB"}, "--launcher-memory"},
		{[]string{"--retry", "2"}, "--retry"},
	} {
		_, err := submitValues(t, tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%v: %v (exit %d), want a usage error naming %s", tc.args, err, exit.Code(err), tc.flag)
		}
	}
}

func TestBackendChoice(t *testing.T) {
	served := func(yes bool, err error) kinds.BackendProbe {
		return kinds.BackendProbe{Served: func(_ context.Context, gvr schema.GroupVersionResource) (bool, error) {
			if gvr.Resource != "colossalaijobs" || gvr.Group != "batch.tensorstack.dev" {
				t.Errorf("probed %v", gvr)
			}
			return yes, err
		}}
	}
	for _, tc := range []struct {
		args    []string
		probe   kinds.BackendProbe
		want    string // chart of the kind rendered as
		note    string
		errText string
	}{
		{nil, served(true, nil), "colossalai", "Backend: t9k", ""},
		{nil, served(false, nil), "colossalai-volcano", "Backend: volcano (this cluster serves no ColossalAIJobs", ""},
		{nil, kinds.BackendProbe{Offline: true}, "colossalai-volcano", "Backend: volcano (a client dry run asks no cluster", ""},
		{[]string{"--backend", "t9k"}, kinds.BackendProbe{Offline: true}, "colossalai", "", ""},
		{[]string{"--backend", "volcano"}, served(true, nil), "colossalai-volcano", "", ""},
		{nil, served(false, errors.New("forbidden")), "", "", "forbidden"},
		{[]string{"--backend", "volcano", "--clean-up-workers=false"}, served(true, nil), "", "", "--clean-up-workers=false"},
	} {
		fs, _, _ := flags(t, tc.args...)
		k, note, err := colossalai.New().SubmitBackend(context.Background(), fs, tc.probe)
		if tc.errText != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("%v: err %v, want %q", tc.args, err, tc.errText)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if chart := chartName(t, k.Chart()); chart != tc.want || !strings.HasPrefix(note, tc.note) || (tc.note == "" && note != "") {
			t.Errorf("%v: chart %s, note %q; want %s, %q", tc.args, chart, note, tc.want, tc.note)
		}
		if k.Name() != "colossalai" {
			t.Errorf("%v: rendered as %s: the job must be labelled easyai.io/kind=colossalai", tc.args, k.Name())
		}
	}
}

func chartName(t *testing.T, chart fs.FS) string {
	data, err := fs.ReadFile(chart, "Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Name string }
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c.Name
}

// The two backends' charts take the same values, checked the same way.
func TestChartsShareTheirValuesAndChecks(t *testing.T) {
	for _, file := range []string{"values.yaml", "templates/_colossalai.tpl"} {
		a, errA := fs.ReadFile(charts.Get("colossalai"), file)
		b, errB := fs.ReadFile(charts.Get("colossalai-volcano"), file)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the charts colossalai and colossalai-volcano (%v, %v)", file, errA, errB)
		}
	}
}

func TestBadValuesFailRenderingWithTheirPath(t *testing.T) {
	base := []string{"name=j", "image=x:1", "command[0]=train.py"}
	for _, tc := range []struct {
		kind kinds.Kind
		set  []string
		want string
	}{
		{colossalai.New(), []string{"roles.worker.command[0]=python"}, "roles.worker.command: the workers run sshd"},
		{colossalai.New(), []string{"roles.launcher.command[0]=x"}, "roles.launcher.command"},
		{colossalai.New(), []string{"roles.launcher.replicas=2"}, "roles.launcher.replicas: a ColossalAI job has exactly 1 launcher"},
		{colossalai.New(), []string{"roles.worker.replicas=0"}, "roles.worker.replicas"},
		{colossalai.New(), []string{"nprocPerNode=0"}, "nprocPerNode: must be 1 or more"},
		{colossalai.New(), []string{"torchArgs[0]=--a;b"}, "torchArgs[0]"},
		{colossalai.New(), []string{"sshdPath=sshd"}, "sshdPath: must be an absolute path"},
		{colossalai.New(), []string{"runPolicy.backoffLimit=3"}, "runPolicy.backoffLimit"},
		{colossalai.New(), []string{"runPolicy.ttlSecondsAfterFinished=60"}, "runPolicy.ttlSecondsAfterFinished: T9k's ColossalAIJob has no such setting"},
		{colossalai.New(), []string{"debug=yes"}, "debug: must be true or false"},
		{colossalai.New(), []string{"command=null"}, "command: required"},
		{colossalai.OnVolcano{}, []string{"cleanUpWorkers=false"}, "cleanUpWorkers: on Volcano"},
		{colossalai.OnVolcano{}, []string{"schedulerPriority=5"}, "schedulerPriority"},
		{colossalai.OnVolcano{}, []string{"restartPolicy=Always"}, "restartPolicy: must be one of"},
	} {
		_, err := render.Render(render.Request{Kind: tc.kind, Set: append(append([]string{}, base...), tc.set...)})
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: %v, want a usage error with %q", tc.kind.Name(), tc.set, err, tc.want)
		}
	}
}

func TestDecodeIsStrictAndNeedsAWorkerContainer(t *testing.T) {
	objs, err := render.Render(render.Request{Kind: colossalai.New(), Set: []string{"name=j", "image=x:1", "command[0]=train.py"}})
	if err != nil {
		t.Fatal(err)
	}
	obj := objs[0]
	bad := obj.DeepCopy()
	_ = unstructured.SetNestedField(bad.Object, int64(2), "spec", "worker", "procPerWroker")
	if _, err := colossalai.New().Decode(bad); err == nil || !strings.Contains(err.Error(), "procPerWroker") {
		t.Errorf("a misspelt field: %v", err)
	}
	noWorker := obj.DeepCopy()
	containers, _, _ := unstructured.NestedSlice(noWorker.Object, "spec", "worker", "template", "spec", "containers")
	containers[0].(map[string]any)["name"] = "main"
	_ = unstructured.SetNestedSlice(noWorker.Object, containers, "spec", "worker", "template", "spec", "containers")
	if _, err := colossalai.New().Decode(noWorker); err == nil || !strings.Contains(err.Error(), `container named "worker"`) {
		t.Errorf("no worker container: %v", err)
	}
}

func cond(typ, status, reason, message string, at time.Duration) colossalai.Condition {
	t := metav1.NewTime(t0.Add(at))
	return colossalai.Condition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: &t}
}

// TestStatus is the mapping of T9k's phases to easyai's states.
func TestStatus(t *testing.T) {
	failed := []colossalai.Condition{
		cond("Running", "True", "-", "All pods are running normally.", 0),
		cond("Completed", "False", "Failed", "The job exited with an error code.", time.Minute),
		cond("Failed", "True", "Failed", "The job exited with an error code.", time.Minute),
	}
	for _, tc := range []struct {
		status colossalai.Status
		want   jobmodel.Status
	}{
		{colossalai.Status{}, jobmodel.Status{State: jobmodel.Pending, Reason: "NotReconciled", Message: "T9k's ColossalAIJob controller has not handled the job yet"}},
		{colossalai.Status{Phase: "Pending"}, jobmodel.Status{State: jobmodel.Pending, Reason: "Pending"}},
		{colossalai.Status{Phase: "Running", Conditions: failed[:1]}, jobmodel.Status{State: jobmodel.Running, Reason: "Running", Message: "All pods are running normally."}},
		{colossalai.Status{Phase: "Running", Conditions: []colossalai.Condition{cond("ReplicaFailure", "True", "PodFailed", "worker-1 failed", 0)}},
			jobmodel.Status{State: jobmodel.Running, Reason: "PodFailed", Message: "worker-1 failed"}},
		{colossalai.Status{Phase: "Paused"}, jobmodel.Status{State: jobmodel.Suspended, Reason: "Paused"}},
		{colossalai.Status{Phase: "Resuming"}, jobmodel.Status{State: jobmodel.Running, Reason: "Resuming", Message: "resuming from pause mode"}},
		{colossalai.Status{Phase: "Succeeded"}, jobmodel.Status{State: jobmodel.Succeeded, Reason: "Succeeded",
			Message: "the launcher exited 0, which it also does when the training failed: see its log (easyai logs colossalai/cai --task launcher-0)"}},
		{colossalai.Status{Phase: "Failed", Conditions: failed}, jobmodel.Status{State: jobmodel.Failed, Reason: "Failed", Message: "The job exited with an error code."}},
		{colossalai.Status{Phase: "Unknown"}, jobmodel.Status{State: jobmodel.Unknown, Reason: "Unknown"}},
		{colossalai.Status{Phase: "Exploded"}, jobmodel.Status{State: jobmodel.Unknown, Reason: "Exploded"}},
	} {
		if got := colossalai.StatusOf(tc.status, "cai"); got != tc.want {
			t.Errorf("phase %q: %+v\nwant %+v", tc.status.Phase, got, tc.want)
		}
	}
}

// live is a ColossalAIJob as T9k's controller would have it: 2 workers of
// 4 GPUs, running.
func live(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	objs, err := render.Render(render.Request{Kind: colossalai.New(), Set: []string{
		"name=cai", "image=x:1", "command[0]=train.py", "roles.worker.replicas=2", "resources.gpus=4"}})
	if err != nil {
		t.Fatal(err)
	}
	obj := objs[0]
	obj.SetNamespace("ns")
	obj.SetCreationTimestamp(metav1.NewTime(t0))
	status := map[string]any{
		"phase": "Running",
		"conditions": []any{
			map[string]any{"type": "Initialized", "status": "True", "lastTransitionTime": "2025-03-01T12:00:05Z"},
			map[string]any{"type": "Running", "status": "True", "lastTransitionTime": "2025-03-01T12:00:10Z", "message": "All pods are running normally."},
		},
		"tasks": []any{
			map[string]any{"type": "launcher", "restartCount": int64(0), "status": []any{map[string]any{"phase": "Running", "name": "cai-launcher", "uid": "u1", "containers": []any{}}}},
			map[string]any{"type": "worker", "restartCount": int64(0), "status": []any{
				map[string]any{"phase": "Running", "name": "cai-worker-0", "uid": "u2"},
				map[string]any{"phase": "Pending", "name": "cai-worker-1", "uid": "u3"}}},
		},
		"aggregate": map[string]any{"creating": int64(0), "deleted": int64(0), "failed": int64(0), "pending": int64(1), "running": int64(2), "succeeded": int64(0), "unknown": int64(0)},
	}
	obj.Object["status"] = status
	return obj
}

func TestSummarize(t *testing.T) {
	obj := live(t)
	s, err := colossalai.New().Summarize(obj, "nvidia.com/gpu")
	if err != nil {
		t.Fatal(err)
	}
	started := t0.Add(10 * time.Second)
	if s.Status.State != jobmodel.Running || s.Workers.Total != 3 || s.Workers.Ready != 2 || s.GPUs != 8 || s.Started == nil || !s.Started.Equal(started) || s.Finished != nil {
		t.Errorf("summary %+v", s)
	}
	_ = unstructured.SetNestedField(obj.Object, "Succeeded", "status", "phase")
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	conds = append(conds, map[string]any{"type": "Completed", "status": "True", "lastTransitionTime": "2025-03-01T13:00:00Z"})
	_ = unstructured.SetNestedSlice(obj.Object, conds, "status", "conditions")
	s, err = colossalai.New().Summarize(obj, "nvidia.com/gpu")
	if err != nil {
		t.Fatal(err)
	}
	if s.Status.State != jobmodel.Succeeded || !strings.Contains(s.Status.Message, "easyai logs colossalai/cai --task launcher-0") || s.Finished == nil || !s.Finished.Equal(t0.Add(time.Hour)) {
		t.Errorf("summary of a Succeeded job %+v", s)
	}
}

func TestReplicas(t *testing.T) {
	obj := live(t)
	pod := func(name string, phase corev1.PodPhase) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", CreationTimestamp: metav1.NewTime(t0),
			Labels: map[string]string{colossalai.OwnerLabel: "cai"}}, Status: corev1.PodStatus{Phase: phase}}
	}
	pods := []corev1.Pod{pod("cai-worker-0", corev1.PodRunning), pod("cai-launcher", corev1.PodRunning), pod("cai-other", corev1.PodRunning)}
	got, err := colossalai.New().Replicas(obj, pods)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []string
	for _, r := range got {
		tasks = append(tasks, r.Task+"="+r.Pod+":"+r.Phase)
	}
	want := []string{"launcher-0=cai-launcher:Running", "worker-0=cai-worker-0:Running", "worker-1=:Pending"}
	if !reflect.DeepEqual(tasks, want) {
		t.Errorf("replicas %v, want %v", tasks, want)
	}
	if sel := colossalai.New().PodSelector("cai"); sel != "tensorstack.dev/owner-name=cai" {
		t.Errorf("pod selector %q", sel)
	}
}

// Suspend and resume set T9k's pause mode; a job that has ended is not paused.
func TestSuspendAndResumeSetPauseMode(t *testing.T) {
	obj := live(t)
	k := colossalai.New()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{k.Resource(): "ColossalAIJobList"}, obj)
	ctx := context.Background()
	for _, enabled := range []bool{true, false} {
		var err error
		if enabled {
			err = k.Suspend(ctx, dyn, obj)
		} else {
			err = k.Resume(ctx, dyn, obj)
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := dyn.Resource(k.Resource()).Namespace("ns").Get(ctx, "cai", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if v, found, _ := unstructured.NestedBool(got.Object, "spec", "runMode", "pause", "enabled"); !found || v != enabled {
			t.Errorf("runMode.pause.enabled = %v (set: %v), want %v", v, found, enabled)
		}
	}
	_ = unstructured.SetNestedField(obj.Object, "Succeeded", "status", "phase")
	if err := k.Suspend(ctx, dyn, obj); err == nil || !strings.Contains(err.Error(), "Succeeded") {
		t.Errorf("suspend of a Succeeded job: %v", err)
	}
	if w := k.ResumeWarning(obj); !strings.Contains(w, "anew") {
		t.Errorf("resume warning %q", w)
	}
}
