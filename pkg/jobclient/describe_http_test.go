package jobclient_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

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
// does (protobuf when asked for it): three requests (the job, its pods,
// the Warning events), and Describe allocates a fraction of the pods'
// size, their specs skipped as they come in. The pods are made here, at
// run time.
func TestGetOfAThousandReplicasOverHTTP(t *testing.T) {
	const workers = 1000
	t0 := jobclienttest.T0
	job := runningTFJob("big", workers)
	jobJSON, err := json.Marshal(job.Object)
	if err != nil {
		t.Fatal(err)
	}
	pods, podsSize := thousandPodsProtobuf(t, workers)
	var events corev1.EventList
	for i := 0; i < 50; i++ {
		events.Items = append(events.Items, *jobclienttest.Warning("team-a", fmt.Sprintf("ev-%d", i), "Pod", "big-worker-1", "BackOff", "restarting", 1, t0.Add(time.Minute)))
	}
	eventsJSON, err := json.Marshal(&events)
	if err != nil {
		t.Fatal(err)
	}

	var requests atomic.Int32
	var unexpected atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		switch {
		case r.URL.Path == "/apis/kubeflow.org/v1/namespaces/team-a/tfjobs/big":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(jobJSON)
		case r.URL.Path == "/api/v1/namespaces/team-a/pods" && strings.HasPrefix(r.Header.Get("Accept"), "application/vnd.kubernetes.protobuf"):
			w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
			_, _ = w.Write(pods)
		case r.URL.Path == "/api/v1/namespaces/team-a/events":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(eventsJSON)
		default:
			unexpected.Store(r.Method + " " + r.URL.String() + " Accept: " + r.Header.Get("Accept"))
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

	var d *jobclient.Details
	alloc := allocated(func() { d, err = c.Describe(ctx, k, obj) })
	if err != nil {
		t.Fatal(err)
	}
	if u := unexpected.Load(); u != nil {
		t.Fatalf("unexpected request %v", u)
	}
	if len(d.Replicas) != workers || len(d.Events) == 0 || d.Replicas[7].Node != "node-7" || d.Replicas[7].Phase != string(corev1.PodRunning) {
		t.Fatalf("%d replicas, %d events, replica 7: %+v", len(d.Replicas), len(d.Events), d.Replicas[7])
	}
	if n := requests.Load(); n > 3 {
		t.Errorf("get of %d replicas made %d requests, want at most 3", workers, n)
	}
	t.Logf("Describe of %d replicas (pods of %d bytes) allocated %d bytes", workers, podsSize, alloc)
	if alloc > describeBudget {
		t.Errorf("Describe of %d replicas allocated %d bytes, over its budget of %d", workers, alloc, describeBudget)
	}

	// The budget is one a full decode of the pods would not keep.
	full := allocated(func() {
		if _, _, err := scheme.Codecs.UniversalDeserializer().Decode(pods, nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	if full <= describeBudget {
		t.Errorf("decoding the pods in full allocated %d bytes, within the budget of %d: the budget guards nothing", full, describeBudget)
	}
}

// thousandPodsProtobuf is the protobuf PodList of the workers of job
// "big", each with a TF_CONFIG naming every worker, as the API server
// writes it; and the size of its pods.
func thousandPodsProtobuf(t *testing.T, workers int) ([]byte, int) {
	t.Helper()
	var addrs []string
	for i := 0; i < workers; i++ {
		addrs = append(addrs, fmt.Sprintf(`"big-worker-%d.team-a.svc.cluster.local:2222"`, i))
	}
	cluster := `{"cluster":{"worker":[` + strings.Join(addrs, ",") + `]},"task":{"type":"worker","index":%d},"environment":"cloud"}`
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}}
	for i := 0; i < workers; i++ {
		p := jobclienttest.Pod("team-a", "big", "worker", i, corev1.PodRunning, jobclienttest.T0)
		p.Spec.Containers = []corev1.Container{{Name: "tensorflow", Image: "tensorflow/tensorflow:2.16.1", Command: []string{"python", "/opt/train.py"},
			Env: []corev1.EnvVar{{Name: "TF_CONFIG", Value: fmt.Sprintf(cluster, i)}}}}
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(jobclienttest.T0)}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "tensorflow", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(jobclienttest.T0)}}}}
		list.Items = append(list.Items, *p)
	}
	var b bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(list, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), b.Len()
}

// allocated is how many bytes f allocated (and whatever ran meanwhile).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
