package trainjob

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// FuzzState: a TrainJob as the cluster holds it is input anyone with edit
// rights on it can shape; decoding it and reading its state never panics
// and always gives one of easyai's states.
func FuzzState(f *testing.F) {
	f.Add([]byte(`{"spec":{"trainer":{"numNodes":3}},"status":{"jobsStatus":[{"name":"node","ready":1}]}}`))
	f.Add([]byte(`{"status":{"conditions":[{"type":"Failed","status":"True","reason":"DeadlineExceeded"}]}}`))
	f.Add([]byte(`{"spec":{"suspend":true,"trainer":{"numNodes":-1}},"status":{"jobsStatus":[{"name":"node"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j := &TrainJob{}
		if json.Unmarshal(data, j) != nil {
			return
		}
		if st := State(j); !slices.Contains(jobmodel.States, st.State) {
			t.Fatalf("state %q", st.State)
		}
		_ = Nodes(j)
	})
}

// FuzzReplicaOf: the labels and annotations of a pod are the cluster's
// word; reading its role and index from them never panics, a pod read is
// listed as its own replica, and one that is not leaves the job's nodes
// Pending.
func FuzzReplicaOf(f *testing.F) {
	f.Add("node", "0", "1", "")
	f.Add("launcher", "", "", "0")
	f.Add("dataset-initializer", "1", "0", "3")
	f.Add("node", "-1", "x", "2147483648")
	f.Add("", "0", "0", "0")
	f.Add("node", "+2", "007", "-0")
	f.Fuzz(func(t *testing.T, role, jobIndex, annotatedIndex, labelledIndex string) {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Name:        "tj-pod",
			Labels:      map[string]string{JobSetNameLabel: "tj", ReplicatedJobLabel: role, JobIndexLabel: jobIndex, CompletionIndexAnno: labelledIndex},
			Annotations: map[string]string{CompletionIndexAnno: annotatedIndex},
		}}
		gotRole, index, ok := ReplicaOf(&p)
		if !ok {
			if gotRole != "" || index != 0 {
				t.Fatalf("not read, yet %q, %d", gotRole, index)
			}
		} else if role == "" || !strings.HasPrefix(gotRole, role) || index < 0 {
			t.Fatalf("labels %q, annotations %q: role %q, index %d", p.Labels, p.Annotations, gotRole, index)
		}
		obj := &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"name": "tj"},
			"spec":     map[string]any{"trainer": map[string]any{"numNodes": int64(2)}},
		}}
		rs, err := Kind{}.Replicas(obj, []corev1.Pod{p})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"node-0", "node-1"}
		if ok {
			want = []string{jobmodel.TaskName(gotRole, index)}
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.Task)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("labels %q, annotations %q: replicas %v, want %v", p.Labels, p.Annotations, got, want)
		}
	})
}

// FuzzDetails: a TrainJob as the cluster holds it, JSON decoded as the
// dynamic client decodes it, is read by get and list without a panic, and
// what they show of it holds no control character.
func FuzzDetails(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"tj"},"spec":{"runtimeRef":{"name":"t","kind":"TrainingRuntime"},"trainer":{"numNodes":2}},` +
		`"status":{"jobsStatus":[{"name":"node","ready":1}],"trainerStatus":{"progressPercentage":5,"estimatedRemainingSeconds":60,"metrics":[{"name":"loss","value":"1"}]}}}`))
	f.Add([]byte(`{"status":{"conditions":[{"type":"Failed","status":"True","reason":"a\nb\u001b[2J","message":"\u009b"}]}}`))
	f.Add([]byte(`{"spec":{"suspend":true,"trainer":{"numNodes":2147483647}},"status":{"trainerStatus":{"estimatedRemainingSeconds":-2147483648}}}`))
	f.Add([]byte(`{"spec":{"trainer":{"numNodes":"3"}},"status":{"jobsStatus":"node"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		if utiljson.Unmarshal(data, &m) != nil || m == nil {
			return
		}
		obj := &unstructured.Unstructured{Object: m}
		k := Kind{}
		if ds, err := k.Details(obj); err == nil {
			for _, d := range ds {
				if d.Name == "" || strings.IndexFunc(d.Value, unicode.IsControl) >= 0 {
					t.Fatalf("detail %q: %q", d.Name, d.Value)
				}
			}
		}
		if rs, err := k.Replicas(obj, nil); err == nil && (len(rs) < 1 || len(rs) > maxPending) {
			t.Fatalf("%d replicas before the pods", len(rs))
		}
		if s, err := k.SummarizeJSON(data, "nvidia.com/gpu"); err == nil {
			if !slices.Contains(jobmodel.States, s.Status.State) {
				t.Fatalf("state %q", s.Status.State)
			}
			if strings.IndexFunc(s.Status.Reason+s.Status.Message, unicode.IsControl) >= 0 {
				t.Fatalf("status %q, %q", s.Status.Reason, s.Status.Message)
			}
		}
	})
}

// FuzzRuntimeOf: a runtime is the cluster's object, shaped by whoever may
// edit it; what "easyai runtimes" and submit's --gang check read of it never
// panics, and the texts shown stay on one line.
func FuzzRuntimeOf(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"torch","labels":{"trainer.kubeflow.org/framework":"torch"}},"spec":{"mlPolicy":{"numNodes":2},"podGroupPolicy":{"volcano":{}}}}`))
	f.Add([]byte(`{"metadata":{"labels":{"trainer.kubeflow.org/framework":"a\nb\u001b[31m"}},"spec":{"podGroupPolicy":{"x\ny":1,"z":null}}}`))
	f.Add([]byte(`{"spec":{"mlPolicy":{"numNodes":"many"},"podGroupPolicy":"yes"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		if utiljson.Unmarshal(data, &m) != nil || m == nil {
			return
		}
		obj := &unstructured.Unstructured{Object: m}
		for _, kind := range []string{ClusterRuntimeKind, RuntimeKind} {
			r := RuntimeOf(obj, kind)
			if strings.IndexFunc(r.Framework+r.Gang, unicode.IsControl) >= 0 {
				t.Fatalf("runtime %+v", r)
			}
		}
		_, _ = Kind{}.Runs(obj)
	})
}
