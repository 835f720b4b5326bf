package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
)

// The table the API server answers for pods (kubectl get pods' columns).
const podTable = `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[
 {"name":"Name","type":"string"},{"name":"Ready","type":"string"},{"name":"Status","type":"string"},
 {"name":"Restarts","type":"string"},{"name":"Age","type":"string"}],
 "rows":[{"cells":["job-master-0","0/1","ErrImageNeverPull","0","5s"]},
         {"cells":["job-worker-0","0/1","Init:CrashLoopBackOff","3","5s"]},
         {"cells":["short"]}]}`

func TestPodStatuses(t *testing.T) {
	var asked *http.Request
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(podTable))
	}))
	defer server.Close()
	kc, err := kubernetes.NewForConfig(&rest.Config{Host: server.URL})
	if err != nil {
		t.Fatal(err)
	}
	got, err := PodStatuses(context.Background(), kc, "team-a", "app=job")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"job-master-0": "ErrImageNeverPull", "job-worker-0": "Init:CrashLoopBackOff"}; !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
	if asked.URL.Path != "/api/v1/namespaces/team-a/pods" || asked.URL.Query().Get("labelSelector") != "app=job" || asked.Header.Get("Accept") != tableOfPods {
		t.Errorf("asked %s?%s with Accept %q", asked.URL.Path, asked.URL.RawQuery, asked.Header.Get("Accept"))
	}
	if _, err := podStatusesOf([]byte(`{"kind":"Table","columnDefinitions":[{"name":"Ready"}]}`)); err == nil {
		t.Error("a table without a status column read without an error")
	}
}

// A client without a REST client of its own (client-go's fake) reads the
// pods and says what the table would.
func TestPodStatusesOfAFake(t *testing.T) {
	pod := func(name string, status corev1.PodStatus) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a", Labels: map[string]string{"app": "job"}}, Status: status}
	}
	waiting := func(reason string) []corev1.ContainerStatus {
		return []corev1.ContainerStatus{{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}}
	}
	kc := fake.NewClientset(
		pod("job-master-0", corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: waiting("ErrImageNeverPull")}),
		pod("job-worker-0", corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: waiting("CrashLoopBackOff"), ContainerStatuses: waiting("PodInitializing")}),
		pod("job-worker-1", corev1.PodStatus{Phase: corev1.PodRunning}),
	)
	got, err := PodStatuses(context.Background(), kc, "team-a", "app=job")
	want := map[string]string{"job-master-0": "ErrImageNeverPull", "job-worker-0": "Init:CrashLoopBackOff", "job-worker-1": "Running"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("statuses %v (%v), want %v", got, err, want)
	}
}

// The table is the cluster's answer: whatever it holds, reading it does not
// panic, and every name read is one the table had.
func FuzzPodStatusesOf(f *testing.F) {
	f.Add([]byte(podTable))
	f.Add([]byte(`{"columnDefinitions":[{"name":"Status"},{"name":"NAME"}],"rows":[{"cells":[1,"x"]},{"cells":null}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := podStatusesOf(raw)
		if err != nil && got != nil {
			t.Errorf("an error and statuses: %v %v", err, got)
		}
		for name := range got {
			if name == "" {
				t.Error("an empty pod name read")
			}
		}
	})
}
