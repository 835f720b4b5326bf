package jaxjob_test

import (
	"reflect"
	"strings"
	"testing"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/jaxjob"
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
)

// submitValues parses args as "easyai submit jax" would and returns the
// kind's values.
func submitValues(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	values, _, err := kindstest.SubmitValues(t, jaxjob.New(), args...)
	return values, err
}

func TestSubmitFlags(t *testing.T) {
	got, err := submitValues(t)
	if err != nil || len(got) != 0 {
		t.Errorf("no flags: %v, %v; want no values", got, err)
	}
	got, err = submitValues(t, "--workers", "4")
	want := map[string]any{"roles": map[string]any{"worker": map[string]any{"replicas": 4}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("--workers 4: %v, %v; want %v", got, err, want)
	}
	_, err = submitValues(t, "--workers", "0")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--workers 0") {
		t.Errorf("--workers 0: %v; want a usage error naming it", err)
	}
}

func jaxJob(conds []kubeflowv1.JobCondition) *unstructured.Unstructured {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&kubeflowv1.JAXJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubeflow.org/v1", Kind: "JAXJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "gemma", Namespace: "team-a"},
		Spec: kubeflowv1.JAXJobSpec{JAXReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.JAXJobReplicaTypeWorker: {Replicas: ptr.To[int32](2), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				Containers: []corev1.Container{{Name: "jax", Image: "jax:1"}}}}},
		}},
		Status: kubeflowv1.JobStatus{Conditions: conds},
	})
	if err != nil {
		panic(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func cond(typ kubeflowv1.JobConditionType, reason string) kubeflowv1.JobCondition {
	return kubeflowv1.JobCondition{Type: typ, Status: corev1.ConditionTrue, Reason: reason}
}

// TestStatus: the JAX controller's conditions (Running while a worker runs,
// Succeeded when every worker has) map to easyai's states.
func TestStatus(t *testing.T) {
	created := cond(kubeflowv1.JobCreated, "JAXJobCreated")
	running := cond(kubeflowv1.JobRunning, "JAXJobRunning")
	for _, tc := range []struct {
		name  string
		conds []kubeflowv1.JobCondition
		want  jobmodel.State
	}{
		{"new", nil, jobmodel.Pending},
		{"created", []kubeflowv1.JobCondition{created}, jobmodel.Pending},
		{"workers running", []kubeflowv1.JobCondition{created, running}, jobmodel.Running},
		{"every worker succeeded", []kubeflowv1.JobCondition{created, running, cond(kubeflowv1.JobSucceeded, "JAXJobSucceeded")}, jobmodel.Succeeded},
		{"failed", []kubeflowv1.JobCondition{created, running, cond(kubeflowv1.JobFailed, "JAXJobFailed")}, jobmodel.Failed},
		{"suspended", []kubeflowv1.JobCondition{created, cond(kubeflowv1.JobSuspended, "JAXJobSuspended")}, jobmodel.Suspended},
	} {
		s, err := jaxjob.New().Summarize(jaxJob(tc.conds), "nvidia.com/gpu")
		if err != nil {
			t.Fatal(err)
		}
		if s.Status.State != tc.want || s.Workers.Total != 2 {
			t.Errorf("%s: state %s, %d replicas; want %s, 2", tc.name, s.Status.State, s.Workers.Total, tc.want)
		}
	}
}

func TestDecodeIsStrict(t *testing.T) {
	kindstest.DecodeIsStrict(t, jaxjob.New(), jaxJob(nil), map[string]any{}, "spec", "jaxReplicaSpecs", "Worker", "templates")
}
