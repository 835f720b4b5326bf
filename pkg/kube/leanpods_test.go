package kube

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// leanTestPods are pods as a distributed job's: each carries an
// environment of envBytes (TF_CONFIG), managedFields, a node and a status
// with a failed container.
func leanTestPods(n, envBytes int) *corev1.PodList {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	env := strings.Repeat("x", envBytes)
	list := &corev1.PodList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"}, ListMeta: metav1.ListMeta{ResourceVersion: "42"}}
	for i := 0; i < n; i++ {
		name := "big-worker-" + string(rune('0'+i%10))
		list.Items = append(list.Items, corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: name, Namespace: "team-a", UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(t0),
				Labels:        map[string]string{"training.kubeflow.org/job-name": "big", "training.kubeflow.org/replica-index": string(rune('0' + i%10))},
				Annotations:   map[string]string{"note": "kept"},
				ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "training-operator", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}},
			},
			Spec: corev1.PodSpec{
				NodeName:      "node-" + name,
				SchedulerName: "volcano",
				Containers: []corev1.Container{{
					Name: "tensorflow", Image: "tf:2", Command: []string{"python", "train.py"},
					Env: []corev1.EnvVar{{Name: "TF_CONFIG", Value: env}},
				}},
			},
			Status: corev1.PodStatus{
				Phase: corev1.PodRunning, Reason: "r", Message: "m",
				Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(time.Second))}},
				ContainerStatuses: []corev1.ContainerStatus{{
					Name: "tensorflow", RestartCount: 3,
					State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}},
				}},
			},
		})
	}
	return list
}

// protobufOf is obj as the API server writes it in protobuf.
func protobufOf(t testing.TB, obj k8sruntime.Object) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wantLean is what LeanPods keeps of list's pods.
func wantLean(list *corev1.PodList) []corev1.Pod {
	var out []corev1.Pod
	for i := range list.Items {
		out = append(out, leanPod(&list.Items[i]))
	}
	return out
}

// allocated is how many bytes f allocated (and whatever ran meanwhile).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadLeanPodsDoesNotDecodeEnvironment: of pods that carry 1 MB of
// environment each, ReadLeanPods keeps the metadata (without
// managedFields), the node and the status, and allocates a small part of
// the environment's size: the specs are skipped, not decoded.
func TestReadLeanPodsDoesNotDecodeEnvironment(t *testing.T) {
	const pods, env = 4, 1 << 20
	list := leanTestPods(pods, env)
	body := protobufOf(t, list)
	var got []corev1.Pod
	var err error
	alloc := allocated(func() { got, err = ReadLeanPods(bytes.NewReader(body)) })
	if err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(got, wantLean(list)) {
		t.Fatalf("read %+v\nwant %+v", got, wantLean(list))
	}
	for _, p := range got {
		if p.Spec.NodeName == "" || len(p.Spec.Containers) != 0 || p.ManagedFields != nil || len(p.Status.ContainerStatuses) != 1 {
			t.Fatalf("pod %s: node %q, %d containers, %d managedFields, %d container statuses",
				p.Name, p.Spec.NodeName, len(p.Spec.Containers), len(p.ManagedFields), len(p.Status.ContainerStatuses))
		}
	}
	t.Logf("reading %d pods of %d bytes of environment each allocated %d bytes", pods, env, alloc)
	if alloc > env/2 {
		t.Errorf("reading %d pods of %d bytes of environment each allocated %d bytes, want under %d", pods, env, alloc, env/2)
	}

	// The same pods in JSON, as a server that does not speak protobuf
	// answers.
	data, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	if got, err = ReadLeanPods(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(got, wantLean(list)) {
		t.Fatalf("JSON: read %+v\nwant %+v", got, wantLean(list))
	}
}

// TestLeanPodsOverHTTP: LeanPods asks for protobuf with the request's
// label selector, reads either answer, and a refusal is the error the
// typed clientset gives, whatever the answer's encoding.
func TestLeanPodsOverHTTP(t *testing.T) {
	list := leanTestPods(3, 1000)
	forbidden := &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusFailure, Reason: metav1.StatusReasonForbidden, Code: http.StatusForbidden,
		Message: `pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "team-a"`,
		Details: &metav1.StatusDetails{Kind: "pods"}}
	var answer string // "protobuf", "json", "forbidden"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/namespaces/team-a/pods" || r.URL.Query().Get("labelSelector") != "job=big" {
			http.Error(w, "unexpected "+r.URL.String(), http.StatusBadRequest)
			return
		}
		proto := strings.HasPrefix(r.Header.Get("Accept"), "application/vnd.kubernetes.protobuf")
		var obj k8sruntime.Object = list
		code := http.StatusOK
		if answer == "forbidden" {
			obj, code = forbidden, http.StatusForbidden
		}
		if proto && answer != "json" {
			w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
			w.WriteHeader(code)
			_, _ = w.Write(protobufOf(t, obj))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(obj)
	}))
	defer srv.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, answer = range []string{"protobuf", "json"} {
		got, err := LeanPods(ctx, client, "team-a", "job=big")
		if err != nil {
			t.Fatalf("%s: %v", answer, err)
		}
		if !apiequality.Semantic.DeepEqual(got, wantLean(list)) {
			t.Fatalf("%s: read %+v", answer, got)
		}
	}
	answer = "forbidden"
	_, err = LeanPods(ctx, client, "team-a", "job=big")
	_, typed := client.CoreV1().Pods("team-a").List(ctx, metav1.ListOptions{LabelSelector: "job=big"})
	if !apierrors.IsForbidden(err) || typed == nil || err.Error() != typed.Error() {
		t.Errorf("refused: %v\nthe typed clientset's: %v", err, typed)
	}
}

// TestLeanPodsOfAFakeClientset: the fake clientset of unit tests has no
// REST client; its pods are listed and trimmed as a cluster's.
func TestLeanPodsOfAFakeClientset(t *testing.T) {
	list := leanTestPods(2, 100)
	client := fake.NewClientset(&list.Items[0], &list.Items[1])
	got, err := LeanPods(context.Background(), client, "team-a", "training.kubeflow.org/job-name=big")
	if err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(got, wantLean(list)) {
		t.Fatalf("read %+v", got)
	}
}

// FuzzReadLeanPods: whatever the bytes (truncated, lengths far over what
// follows, another magic, garbage nested in a pod), ReadLeanPods returns
// an error or pods with names, never panics, and allocates in proportion
// to the bytes it was given, not to the lengths they announce.
func FuzzReadLeanPods(f *testing.F) {
	valid := protobufOf(f, leanTestPods(2, 200))
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(valid[:5])
	f.Add([]byte("k8s\x00"))
	f.Add([]byte("k8s\x01\x12\x02\x12\x00"))
	// raw and a pod announced far larger than what follows.
	f.Add([]byte("k8s\x00\x12\xff\xff\xff\xff\x0f\x12\xff\xff\xff\x1f\x0a\x04"))
	f.Add([]byte("k8s\x00\x12\x10\x12\x0e\x12\x0c\x52\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
	// A pod whose metadata and status are garbage.
	f.Add([]byte("k8s\x00\x12\x0c\x12\x0a\x0a\x03\x0a\x01a\x1a\x03\xff\xff\xff"))
	f.Add([]byte(`{"kind":"PodList","items":[{"metadata":{"name":"a"},"spec":{"nodeName":"n"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var pods []corev1.Pod
		var err error
		alloc := allocated(func() { pods, err = ReadLeanPods(bytes.NewReader(data)) })
		if limit := uint64(1<<20 + 2048*len(data)); alloc > limit {
			t.Errorf("%d bytes allocated reading %d bytes, over %d", alloc, len(data), limit)
		}
		if err == nil && bytes.HasPrefix(data, protobufMagic) {
			for i, p := range pods {
				if p.Name == "" || len(p.Spec.Containers) != 0 {
					t.Errorf("pod %d: %+v", i, p)
				}
			}
		}
	})
}

// TestLeanPodsCompression: LeanPods asks for a gzipped answer, as the
// API server gives one, unless the kubeconfig's cluster says
// disable-compression (rest.Config.DisableCompression).
func TestLeanPodsCompression(t *testing.T) {
	list := leanTestPods(3, 1000)
	body := protobufOf(t, list)
	var acceptEncoding string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acceptEncoding = r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Type", "application/vnd.kubernetes.protobuf")
		if !strings.Contains(acceptEncoding, "gzip") {
			_, _ = w.Write(body)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		_, _ = gz.Write(body)
		_ = gz.Close()
	}))
	defer srv.Close()
	for _, disable := range []bool{false, true} {
		// Over TLS, as a cluster is: client-go gives a config without TLS
		// settings Go's default transport, which compresses regardless.
		cfg := &rest.Config{Host: srv.URL, DisableCompression: disable, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
		client, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := LeanPods(context.Background(), client, "team-a", "job=big")
		if err != nil {
			t.Fatalf("disable-compression %v: %v", disable, err)
		}
		if !apiequality.Semantic.DeepEqual(got, wantLean(list)) {
			t.Fatalf("disable-compression %v: read %+v", disable, got)
		}
		if gzipped := strings.Contains(acceptEncoding, "gzip"); gzipped == disable {
			t.Errorf("disable-compression %v: Accept-Encoding %q", disable, acceptEncoding)
		}
	}
}
