package pytorchjob_test

import (
	"reflect"
	"strings"
	"testing"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
	"github.com/easyai-dev/easyai/pkg/kinds/pytorchjob"
	"github.com/easyai-dev/easyai/pkg/render"
)

// submitValues parses args as "easyai submit pytorch" would and returns the
// kind's values.
func submitValues(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	values, _, err := kindstest.SubmitValues(t, pytorchjob.New(), args...)
	return values, err
}

func roles(master, worker int) map[string]any {
	return map[string]any{"master": map[string]any{"replicas": master}, "worker": map[string]any{"replicas": worker}}
}

// TestSubmitFlags: --workers counts the nodes, the first being the master;
// an elastic job's nodes are all workers, between --elastic-min and
// --elastic-max, as many as --elastic-min without --workers.
func TestSubmitFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want map[string]any
	}{
		{nil, map[string]any{}},
		{[]string{"--workers", "1"}, map[string]any{"roles": roles(1, 0)}},
		{[]string{"--workers", "3"}, map[string]any{"roles": roles(1, 2)}},
		{[]string{"--nproc-per-node", "8"}, map[string]any{"nprocPerNode": "8"}},
		{[]string{"--nproc-per-node", "gpu"}, map[string]any{"nprocPerNode": "gpu"}},
		{[]string{"--elastic-min", "2", "--elastic-max", "4"}, map[string]any{"roles": roles(0, 2),
			"elastic": map[string]any{"minReplicas": 2, "maxReplicas": 4}}},
		{[]string{"--workers", "3", "--elastic-min", "2", "--elastic-max", "4", "--nproc-per-node", "auto"}, map[string]any{
			"roles": roles(0, 3), "nprocPerNode": "auto", "elastic": map[string]any{"minReplicas": 2, "maxReplicas": 4}}},
	} {
		got, err := submitValues(t, tc.args...)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: values %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
}

func TestSubmitFlagsBadValuesAreUsageErrorsNamingTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "0"}, "--workers 0"},
		{[]string{"--nproc-per-node", "many"}, `--nproc-per-node "many"`},
		{[]string{"--nproc-per-node", "0"}, `--nproc-per-node "0"`},
		{[]string{"--elastic-min", "3", "--elastic-max", "2"}, "--elastic-min 3 --elastic-max 2"},
		{[]string{"--elastic-max", "2"}, "--elastic-min 0 --elastic-max 2"},
		{[]string{"--elastic-min", "2"}, "--elastic-min 2 --elastic-max 0"},
		{[]string{"--elastic-min", "1", "--elastic-max", "2147483648"}, "--elastic-max 2147483648"},
		{[]string{"--workers", "5", "--elastic-min", "2", "--elastic-max", "4"}, "--workers 5: must lie between"},
		{[]string{"--workers", "1", "--elastic-min", "2", "--elastic-max", "4"}, "--workers 1: must lie between"},
	} {
		_, err := submitValues(t, tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want a usage error naming %s", tc.args, err, tc.want)
		}
	}
}

// renderFlags renders the chart with the values of args, as submit does.
func renderFlags(t *testing.T, args ...string) *kubeflowv1.PyTorchJob {
	t.Helper()
	values, err := submitValues(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	values["name"], values["image"] = "llm", "pytorch/pytorch:2.4.0"
	values["command"] = []string{"torchrun", "train.py"}
	objs, err := render.Render(render.Request{Kind: pytorchjob.New(), Values: values})
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	typed, err := pytorchjob.New().Decode(objs[0])
	if err != nil {
		t.Fatal(err)
	}
	return typed.(*kubeflowv1.PyTorchJob)
}

func replicas(job *kubeflowv1.PyTorchJob) map[kubeflowv1.ReplicaType]int32 {
	out := map[kubeflowv1.ReplicaType]int32{}
	for typ, spec := range job.Spec.PyTorchReplicaSpecs {
		out[typ] = *spec.Replicas
	}
	return out
}

// TestFlagsRenderThePyTorchJob: the flags' values reach the PyTorchJob: a
// master and workers; torchrun's processes per node; an elastic policy
// (c10d rendezvous) over workers only.
func TestFlagsRenderThePyTorchJob(t *testing.T) {
	job := renderFlags(t, "--workers", "3", "--nproc-per-node", "8")
	want := map[kubeflowv1.ReplicaType]int32{kubeflowv1.PyTorchJobReplicaTypeMaster: 1, kubeflowv1.PyTorchJobReplicaTypeWorker: 2}
	if got := replicas(job); !reflect.DeepEqual(got, want) {
		t.Errorf("--workers 3: replicas %v, want %v", got, want)
	}
	if job.Spec.NprocPerNode == nil || *job.Spec.NprocPerNode != "8" || job.Spec.ElasticPolicy != nil {
		t.Errorf("--nproc-per-node 8: nprocPerNode %v, elasticPolicy %v", job.Spec.NprocPerNode, job.Spec.ElasticPolicy)
	}

	job = renderFlags(t, "--elastic-min", "2", "--elastic-max", "4")
	want = map[kubeflowv1.ReplicaType]int32{kubeflowv1.PyTorchJobReplicaTypeWorker: 2}
	if got := replicas(job); !reflect.DeepEqual(got, want) {
		t.Errorf("elastic: replicas %v, want %v (workers only)", got, want)
	}
	p := job.Spec.ElasticPolicy
	if p == nil || p.MinReplicas == nil || *p.MinReplicas != 2 || p.MaxReplicas == nil || *p.MaxReplicas != 4 ||
		p.RDZVBackend == nil || *p.RDZVBackend != kubeflowv1.BackendC10D {
		t.Errorf("elastic: elasticPolicy %+v, want 2 to 4 replicas over c10d", p)
	}

	// Without flags: one master, no workers, the operator's defaults.
	job = renderFlags(t)
	want = map[kubeflowv1.ReplicaType]int32{kubeflowv1.PyTorchJobReplicaTypeMaster: 1}
	if got := replicas(job); !reflect.DeepEqual(got, want) || job.Spec.NprocPerNode != nil || job.Spec.ElasticPolicy != nil {
		t.Errorf("default PyTorchJob: replicas %v, nprocPerNode %v, elasticPolicy %v", got, job.Spec.NprocPerNode, job.Spec.ElasticPolicy)
	}
}

func TestDecodeIsStrict(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": map[string]any{"name": "llm"},
		"spec": map[string]any{"pytorchReplicaSpecs": map[string]any{"Master": map[string]any{"replicas": int64(1)}}},
	}}
	kindstest.DecodeIsStrict(t, pytorchjob.New(), obj, "8", "spec", "nprocsPerNode")
}
