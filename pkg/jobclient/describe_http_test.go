package jobclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/google/go-cmp/cmp"

	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// describeBudget is what Describe may allocate for a TFJob of 1,000
// workers whose pods each carry the 47 KB TF_CONFIG of all their
// addresses (a 47 MB answer in protobuf, 50 MB in JSON). Measured: with
// the pods read lean, the whole of Describe allocates some 6 MiB; the
// typed clientset's List of the same pods in JSON allocates 210 MiB, and
// decoding the protobuf answer in full 97 MiB.
const describeBudget = 16 << 20

// TestGetOfAThousandReplicasOverHTTP: "easyai get tf/NAME" of a job of
// 1,000 workers, over HTTP to a server that answers as the API server
// does (a table of pods, or the pods in protobuf, as asked), each pod
// carrying the 47 KB TF_CONFIG of all the workers' addresses (made here,
// at run time). When every pod runs, three requests (the job, the Warning
// events, the table of pods) and no pod's spec comes at all. When one does
// not, one more request reads the pods with their specs skipped as they
// come in. A server without tables gets the pods' request alone, and get
// shows the same replicas either way.
func TestGetOfAThousandReplicasOverHTTP(t *testing.T) {
	const workers = 1000
	running := thousandPods(workers)

	// Every pod runs: the table alone.
	table := describeBig(t, running, true)
	if table.requests != 3 || table.tables != 1 || table.podLists != 0 {
		t.Errorf("get of %d running replicas made %d requests (%d tables of pods, %d lists of pods), want 3 (the table alone)", workers, table.requests, table.tables, table.podLists)
	}
	if r := table.details.Replicas[7]; r.Node != "node-7" || r.Phase != string(corev1.PodRunning) || r.Restarts != 2 || r.ExitCode != nil {
		t.Errorf("replica 7 from the table: %+v", r)
	}

	// A server that answers no table (406): the pods, and the same
	// replicas.
	lean := describeBig(t, running, false)
	if lean.requests != 4 || lean.tables != 1 || lean.podLists != 1 {
		t.Errorf("get from a server without tables made %d requests (%d tables of pods, %d lists of pods), want 4 (the refused table, the pods)", lean.requests, lean.tables, lean.podLists)
	}
	if diff := cmp.Diff(lean.details.Replicas, table.details.Replicas); diff != "" {
		t.Errorf("replicas from the table differ from those from the pods (-pods +table):\n%s", diff)
	}

	// A worker crash-loops: the table, then the pods for what it lacks
	// (and the crashed run's last lines, as before).
	crashing := thousandPods(workers)
	crashing[3].Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: "tensorflow", RestartCount: 4,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff", Message: "back-off 40s"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}}
	crash := describeBig(t, crashing, true)
	if crash.requests != 5 || crash.tables != 1 || crash.podLists != 1 || crash.logs != 1 {
		t.Errorf("get with a crashing replica made %d requests (%d tables of pods, %d lists of pods, %d logs), want 5 (the job, the events, the table, the pods, one log)", crash.requests, crash.tables, crash.podLists, crash.logs)
	}
	if r := crash.details.Replicas[3]; r.Reason != "CrashLoopBackOff" || r.ExitCode == nil || *r.ExitCode != 137 || r.Restarts != 4 {
		t.Errorf("crashing replica 3: %+v", r)
	}

	// Each within the budget, which a full decode of the pods would not
	// keep.
	for what, got := range map[string]bigDescribe{"running, from the table": table, "running, without tables": lean, "one crashing": crash} {
		t.Logf("Describe of %d replicas (pods of %d bytes), %s, allocated %d bytes", workers, got.podsSize, what, got.alloc)
		if got.alloc > describeBudget {
			t.Errorf("Describe of %d replicas, %s, allocated %d bytes, over its budget of %d", workers, what, got.alloc, describeBudget)
		}
	}
	pods := podsProtobuf(t, running)
	full := allocated(func() {
		if _, _, err := scheme.Codecs.UniversalDeserializer().Decode(pods, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	if full <= describeBudget {
		t.Errorf("decoding the pods in full allocated %d bytes, within the budget of %d: the budget guards nothing", full, describeBudget)
	}
}

// bigDescribe is what describeBig saw.
type bigDescribe struct {
	details                          *jobclient.Details
	requests, tables, podLists, logs int32
	alloc                            uint64
	podsSize                         int
}

// describeBig runs Describe of the running TFJob "big" of team-a against
// a server that has it, the given pods (in protobuf, and as a table of pods
// unless tables is false: then it answers 406 as a server without tables
// does) and 50 Warning events.
func describeBig(t *testing.T, pods []corev1.Pod, tables bool) bigDescribe {
	t.Helper()
	job := runningTFJob("big", int32(len(pods)))
	jobJSON, err := json.Marshal(job.Object)
	if err != nil {
		t.Fatal(err)
	}
	podsPB := podsProtobuf(t, pods)
	table := podTable(t, pods)
	var events corev1.EventList
	for i := 0; i < 50; i++ {
		events.Items = append(events.Items, *jobclienttest.Warning("team-a", fmt.Sprintf("ev-%d", i), "Pod", "big-worker-1", "BackOff", "restarting", 1, jobclienttest.T0.Add(time.Minute)))
	}
	eventsJSON, err := json.Marshal(&events)
	if err != nil {
		t.Fatal(err)
	}

	var requests, tableRequests, podLists, logs atomic.Int32
	var unexpected atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		accept := r.Header.Get("Accept")
		switch {
		case r.URL.Path == "/apis/kubeflow.org/v1/namespaces/team-a/tfjobs/big":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(jobJSON)
		case r.URL.Path == "/api/v1/namespaces/team-a/pods" && strings.Contains(accept, "as=Table"):
			tableRequests.Add(1)
			if !tables {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotAcceptable)
				_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotAcceptable","code":406}`))
				return
			}
			if r.URL.Query().Get("labelSelector") != "training.kubeflow.org/job-name=big" {
				unexpected.Store("table of pods selected by " + r.URL.Query().Get("labelSelector"))
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(table)
		case r.URL.Path == "/api/v1/namespaces/team-a/pods" && strings.HasPrefix(accept, "application/vnd.kubernetes.protobuf"):
			podLists.Add(1)
			w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
			_, _ = w.Write(podsPB)
		case strings.HasPrefix(r.URL.Path, "/api/v1/namespaces/team-a/pods/") && strings.HasSuffix(r.URL.Path, "/log"):
			logs.Add(1)
			_, _ = w.Write([]byte("Killed\n"))
		case r.URL.Path == "/api/v1/namespaces/team-a/events":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(eventsJSON)
		default:
			unexpected.Store(r.Method + " " + r.URL.String() + " Accept: " + accept)
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	cfg := &rest.Config{Host: srv.URL, QPS: -1}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := &jobclient.Client{Dynamic: dyn, Kube: kube, Kinds: jobclienttest.Registry(), GPUResource: "nvidia.com/gpu", Server: srv.URL}
	tf, _ := c.Kinds.Lookup("tf")
	ctx := context.Background()
	k, obj, err := c.Find(ctx, "team-a", kinds.Ref{Kind: tf, Name: "big"})
	if err != nil {
		t.Fatal(err)
	}

	out := bigDescribe{podsSize: len(podsPB)}
	out.alloc = allocated(func() { out.details, err = c.Describe(ctx, k, obj) })
	if err != nil {
		t.Fatal(err)
	}
	if u := unexpected.Load(); u != nil {
		t.Fatalf("unexpected request %v", u)
	}
	if d := out.details; len(d.Replicas) != len(pods) || len(d.Events) == 0 {
		t.Fatalf("%d replicas, %d events", len(d.Replicas), len(d.Events))
	}
	out.requests, out.tables, out.podLists, out.logs = requests.Load(), tableRequests.Load(), podLists.Load(), logs.Load()
	return out
}

// thousandPods are the running pods of the workers of job "big", each with
// a TF_CONFIG naming every worker, restarted twice.
func thousandPods(workers int) []corev1.Pod {
	var addrs []string
	for i := 0; i < workers; i++ {
		addrs = append(addrs, fmt.Sprintf(`"big-worker-%d.team-a.svc.cluster.local:2222"`, i))
	}
	cluster := `{"cluster":{"worker":[` + strings.Join(addrs, ",") + `]},"task":{"type":"worker","index":%d},"environment":"cloud"}`
	var out []corev1.Pod
	for i := 0; i < workers; i++ {
		p := jobclienttest.Pod("team-a", "big", "worker", i, corev1.PodRunning, jobclienttest.T0)
		p.Spec.Containers = []corev1.Container{{Name: "tensorflow", Image: "tensorflow/tensorflow:2.16.1", Command: []string{"python", "/opt/train.py"},
			Env: []corev1.EnvVar{{Name: "TF_CONFIG", Value: fmt.Sprintf(cluster, i)}}}}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(jobclienttest.T0)}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "tensorflow", Ready: true, RestartCount: 2,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(jobclienttest.T0)}}}}
		out = append(out, *p)
	}
	return out
}

// podsProtobuf is the protobuf PodList of pods, as the API server writes it.
func podsProtobuf(t *testing.T, pods []corev1.Pod) []byte {
	t.Helper()
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, Items: pods}
	var b bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(list, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// podTable is the API server's table of pods (kubectl get pods -o wide's
// columns, each row with its pod's metadata), for pods of one container:
// READY counts the ready running ones, STATUS is the phase or the reason a
// container waits with, RESTARTS says when the last was.
func podTable(t *testing.T, pods []corev1.Pod) []byte {
	t.Helper()
	table := metav1.Table{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "Table"}}
	for _, name := range []string{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node", "Readiness Gates"} {
		table.ColumnDefinitions = append(table.ColumnDefinitions, metav1.TableColumnDefinition{Name: name, Type: "string"})
	}
	for i := range pods {
		p := &pods[i]
		status, ready, restarts := string(p.Status.Phase), 0, int32(0)
		for _, cs := range p.Status.ContainerStatuses {
			restarts += cs.RestartCount
			switch {
			case cs.State.Waiting != nil:
				status = cs.State.Waiting.Reason
			case cs.State.Running != nil && cs.Ready:
				ready++
			}
		}
		restartsCell := fmt.Sprint(restarts)
		if restarts > 0 {
			restartsCell += " (5m ago)"
		}
		meta, err := json.Marshal(metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}, ObjectMeta: p.ObjectMeta})
		if err != nil {
			t.Fatal(err)
		}
		table.Rows = append(table.Rows, metav1.TableRow{
			Cells:  []any{p.Name, fmt.Sprintf("%d/%d", ready, len(p.Spec.Containers)), status, restartsCell, "5m", "10.0.0.1", p.Spec.NodeName, "<none>", "<none>"},
			Object: runtime.RawExtension{Raw: meta},
		})
	}
	raw, err := json.Marshal(&table)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// allocated is how many bytes f allocated (and whatever ran meanwhile).
func allocated(f func()) uint64 {
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	f()
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
