package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
)

// runningTable is a table of pods as the API server answers it (kubectl get
// pods -o wide's columns, each row with the pod's metadata), with rows.
func runningTable(rows ...string) string {
	return `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[
 {"name":"Name","type":"string"},{"name":"Ready","type":"string"},{"name":"Status","type":"string"},
 {"name":"Restarts","type":"string"},{"name":"Age","type":"string"},{"name":"IP","type":"string"},
 {"name":"Node","type":"string"},{"name":"Nominated Node","type":"string"},{"name":"Readiness Gates","type":"string"}],
 "rows":[` + strings.Join(rows, ",") + `]}`
}

// runningRow is the row of pod name with the cells ready, status,
// restarts and node, and metadata meta (JSON fields after the name).
func runningRow(name, ready, status, restarts, node, meta string) string {
	return `{"cells":["` + name + `","` + ready + `","` + status + `","` + restarts + `","5m","10.0.0.1","` + node + `","<none>","<none>"],
  "object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"` + name + `","namespace":"team-a"` + meta + `}}}`
}

func TestRunningPodsOfTable(t *testing.T) {
	labels := `,"labels":{"training.kubeflow.org/replica-type":"worker"},"creationTimestamp":"2026-01-02T03:04:05Z"`
	pods, ok, err := RunningPodsOfTable([]byte(runningTable(
		runningRow("job-worker-0", "1/1", "Running", "0", "node-0", labels),
		runningRow("job-worker-1", "2/2", "Running", "3 (5m ago)", "<none>", labels),
	)))
	if err != nil || !ok || len(pods) != 2 {
		t.Fatalf("%d pods, ok %v, err %v", len(pods), ok, err)
	}
	p := pods[0]
	if p.Name != "job-worker-0" || p.Namespace != "team-a" || p.Labels["training.kubeflow.org/replica-type"] != "worker" ||
		p.CreationTimestamp.Year() != 2026 || p.Spec.NodeName != "node-0" || p.Status.Phase != corev1.PodRunning {
		t.Errorf("pod 0: %+v", p)
	}
	if cs := pods[1].Status.ContainerStatuses; len(cs) != 1 || cs[0].RestartCount != 3 || cs[0].State.Running == nil || pods[1].Spec.NodeName != "" {
		t.Errorf("pod 1: node %q, containers %+v", pods[1].Spec.NodeName, cs)
	}

	// Rows that say more than that a pod runs: the pods are to be read.
	for _, row := range []string{
		runningRow("job-worker-2", "0/1", "Running", "0", "node-0", labels),          // a container not ready
		runningRow("job-worker-2", "1/2", "Running", "0", "node-0", labels),          // a container ended
		runningRow("job-worker-2", "0/1", "NotReady", "0", "node-0", labels),         // not ready
		runningRow("job-worker-2", "0/1", "CrashLoopBackOff", "4", "node-0", labels), // crashing
		runningRow("job-worker-2", "0/1", "Completed", "0", "node-0", labels),        // ended
		runningRow("job-worker-2", "0/1", "Pending", "0", "<none>", labels),          // pending
		runningRow("job-worker-2", "1/1", "Terminating", "0", "node-0", labels),      // being deleted
		runningRow("job-worker-2", "1/1", "Running", "0", "node-0", labels+`,"deletionTimestamp":"2026-01-02T03:05:05Z"`),
		runningRow("job-worker-2", "1/1", "Running", "many", "node-0", labels),                      // unreadable restarts
		runningRow("job-worker-2", "0/0", "Running", "0", "node-0", labels),                         // no container
		`{"cells":["job-worker-2","1/1","Running","0","5m","10.0.0.1","node-0","<none>","<none>"]}`, // no metadata
		`{"cells":["job-worker-2","1/1","Running"]}`,                                                // short
		strings.Replace(runningRow("job-worker-2", "1/1", "Running", "0", "node-0", labels), `"name":"job-worker-2"`, `"name":"job-worker-3"`, 1),
	} {
		pods, ok, err := RunningPodsOfTable([]byte(runningTable(runningRow("job-worker-0", "1/1", "Running", "0", "node-0", labels), row)))
		if err != nil || ok || pods != nil {
			t.Errorf("row %s: %d pods, ok %v, err %v; want the pods to be read", row, len(pods), ok, err)
		}
	}
	// A table without a node column: the pods are to be read too.
	if _, ok, err := RunningPodsOfTable([]byte(podTable)); ok || err != nil {
		t.Errorf("a table without nodes: ok %v, err %v", ok, err)
	}
	// No table at all.
	for _, raw := range []string{`{"kind":"PodList","items":[]}`, `[`, ``} {
		if _, ok, err := RunningPodsOfTable([]byte(raw)); ok || err == nil {
			t.Errorf("%q: ok %v, err %v; want an error", raw, ok, err)
		}
	}
}

func TestRunningPods(t *testing.T) {
	var asked *http.Request
	answer, code := runningTable(runningRow("job-worker-0", "1/1", "Running", "0", "node-0", "")), http.StatusOK
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = w.Write([]byte(answer))
	}))
	defer server.Close()
	kc, err := kubernetes.NewForConfig(&rest.Config{Host: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pods, ok, err := RunningPods(ctx, kc, "team-a", "app=job")
	if err != nil || !ok || len(pods) != 1 || pods[0].Spec.NodeName != "node-0" {
		t.Fatalf("%+v, ok %v, err %v", pods, ok, err)
	}
	q := asked.URL.Query()
	if asked.URL.Path != "/api/v1/namespaces/team-a/pods" || q.Get("labelSelector") != "app=job" || q.Get("includeObject") != "Metadata" ||
		!strings.Contains(asked.Header.Get("Accept"), "as=Table") {
		t.Errorf("asked %s %s, Accept %q", asked.Method, asked.URL, asked.Header.Get("Accept"))
	}

	// A server without tables: the pods are to be read.
	answer, code = `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotAcceptable","code":406}`, http.StatusNotAcceptable
	if pods, ok, err := RunningPods(ctx, kc, "team-a", "app=job"); ok || err != nil || pods != nil {
		t.Errorf("406: %d pods, ok %v, err %v", len(pods), ok, err)
	}
	// A refusal is the API's error.
	answer, code = `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"pods is forbidden"}`, http.StatusForbidden
	if _, ok, err := RunningPods(ctx, kc, "team-a", "app=job"); ok || !Refused(err) {
		t.Errorf("403: ok %v, err %v", ok, err)
	}
	// client-go's fake has no REST client: the pods are to be read.
	if _, ok, err := RunningPods(ctx, fake.NewClientset(), "team-a", "app=job"); ok || err != nil {
		t.Errorf("fake: ok %v, err %v", ok, err)
	}
}

// FuzzRunningPodsOfTable: whatever a server (or whoever answers in its
// place) writes, reading it as a table of pods ends without a panic, and
// every pod it makes is a running one with a name.
func FuzzRunningPodsOfTable(f *testing.F) {
	f.Add([]byte(runningTable(runningRow("job-worker-0", "1/1", "Running", "2 (1m ago)", "node-0", `,"labels":{"a":"b"}`))))
	f.Add([]byte(runningTable(`{"cells":[1,2.5,null,{},[]],"object":{"metadata":{"name":7}}}`)))
	f.Add([]byte(podTable))
	f.Fuzz(func(t *testing.T, raw []byte) {
		pods, ok, err := RunningPodsOfTable(raw)
		if !ok && pods != nil {
			t.Fatalf("pods without ok")
		}
		if err != nil && ok {
			t.Fatalf("ok with an error")
		}
		for _, p := range pods {
			if p.Name == "" || p.Status.Phase != corev1.PodRunning || len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].RestartCount < 0 {
				t.Fatalf("pod %+v", p)
			}
		}
	})
}
