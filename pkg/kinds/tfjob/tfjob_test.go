package tfjob_test

import (
	"reflect"
	"strings"
	"testing"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
	"github.com/easyai-dev/easyai/pkg/render"
)

// submitValues parses args as "easyai submit tf" would and returns the
// kind's values.
func submitValues(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	values, _, err := kindstest.SubmitValues(t, tfjob.New(), args...)
	return values, err
}

func role(fields ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(fields); i += 2 {
		m[fields[i].(string)] = fields[i+1]
	}
	return m
}

// TestSubmitFlags: only the flags given become values (a values file keeps
// the rest); --chief and --evaluator are one replica or none.
func TestSubmitFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want map[string]any
	}{
		{nil, map[string]any{}},
		{[]string{"--workers", "4", "--ps", "2"}, map[string]any{"roles": map[string]any{
			"ps": role("replicas", 2), "worker": role("replicas", 4)}}},
		{[]string{"--workers", "0", "--chief"}, map[string]any{"roles": map[string]any{
			"worker": role("replicas", 0), "chief": role("replicas", 1)}}},
		{[]string{"--chief=false", "--evaluator"}, map[string]any{"roles": map[string]any{
			"chief": role("replicas", 0), "evaluator": role("replicas", 1)}}},
		{[]string{"--ps-cpu", "2", "--ps-memory", "8Gi", "--ps-image", "ps:1"}, map[string]any{"roles": map[string]any{
			"ps": role("image", "ps:1", "resources", map[string]any{"cpu": "2", "memory": "8Gi"})}}},
		{[]string{"--success-policy", "AllWorkers"}, map[string]any{"successPolicy": "AllWorkers"}},
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
		{[]string{"--workers", "-1"}, "--workers -1"},
		{[]string{"--ps", "-1"}, "--ps -1"},
		{[]string{"--ps", "2147483648"}, "--ps 2147483648"},
		{[]string{"--success-policy", "ChiefOnly"}, `--success-policy "ChiefOnly"`},
		{[]string{"--ps-cpu", "lots"}, "--ps-cpu"},
		{[]string{"--ps-memory", "8 GB"}, "--ps-memory"},
	} {
		_, err := submitValues(t, tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want a usage error naming %s", tc.args, err, tc.want)
		}
	}
}

// renderFlags renders the chart with the values of args, as submit does.
func renderFlags(t *testing.T, args ...string) *kubeflowv1.TFJob {
	t.Helper()
	values, err := submitValues(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	values["name"], values["image"] = "mnist", "tensorflow/tensorflow:2.16.1"
	values["command"] = []string{"python", "train.py"}
	objs, err := render.Render(render.Request{Kind: tfjob.New(), Values: values})
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	typed, err := tfjob.New().Decode(objs[0])
	if err != nil {
		t.Fatal(err)
	}
	return typed.(*kubeflowv1.TFJob)
}

// TestFlagsRenderTheReplicasTheyName: the flags' values reach the TFJob:
// a replica spec per role asked for, the parameter servers' own image and
// resources, the success policy.
func TestFlagsRenderTheReplicasTheyName(t *testing.T) {
	job := renderFlags(t, "--workers", "2", "--ps", "1", "--chief", "--ps-image", "ps:1", "--ps-cpu", "2", "--ps-memory", "8Gi", "--success-policy", "AllWorkers")
	got := map[kubeflowv1.ReplicaType]int32{}
	for typ, spec := range job.Spec.TFReplicaSpecs {
		got[typ] = *spec.Replicas
	}
	want := map[kubeflowv1.ReplicaType]int32{kubeflowv1.TFJobReplicaTypeChief: 1, kubeflowv1.TFJobReplicaTypePS: 1, kubeflowv1.TFJobReplicaTypeWorker: 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("replicas %v, want %v", got, want)
	}
	ps := job.Spec.TFReplicaSpecs[kubeflowv1.TFJobReplicaTypePS].Template.Spec.Containers[0]
	if ps.Image != "ps:1" || !ps.Resources.Requests[corev1.ResourceCPU].Equal(resource.MustParse("2")) || !ps.Resources.Limits[corev1.ResourceMemory].Equal(resource.MustParse("8Gi")) {
		t.Errorf("parameter server container: image %s, resources %v", ps.Image, ps.Resources)
	}
	if worker := job.Spec.TFReplicaSpecs[kubeflowv1.TFJobReplicaTypeWorker].Template.Spec.Containers[0]; worker.Image != "tensorflow/tensorflow:2.16.1" {
		t.Errorf("worker image %s, want --image's", worker.Image)
	}
	if job.Spec.SuccessPolicy == nil || *job.Spec.SuccessPolicy != kubeflowv1.SuccessPolicyAllWorkers {
		t.Errorf("successPolicy %v, want AllWorkers", job.Spec.SuccessPolicy)
	}

	// Without flags the chart's defaults hold: workers only, the operator's
	// default success policy.
	job = renderFlags(t)
	if len(job.Spec.TFReplicaSpecs) != 1 || job.Spec.TFReplicaSpecs[kubeflowv1.TFJobReplicaTypeWorker] == nil || job.Spec.SuccessPolicy != nil {
		t.Errorf("default TFJob: replica specs %v, success policy %v", job.Spec.TFReplicaSpecs, job.Spec.SuccessPolicy)
	}
}

func TestDecodeIsStrict(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": map[string]any{"name": "mnist"},
		"spec": map[string]any{"tfReplicaSpecs": map[string]any{"Worker": map[string]any{"replicas": int64(1)}}},
	}}
	kindstest.DecodeIsStrict(t, tfjob.New(), obj, "AllWorker", "spec", "sucessPolicy")
}
