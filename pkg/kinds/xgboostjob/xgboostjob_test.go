package xgboostjob_test

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
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
	"github.com/easyai-dev/easyai/pkg/kinds/xgboostjob"
)

// submitValues parses args as "easyai submit xgboost" would and returns the
// kind's values.
func submitValues(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	values, fs, err := kindstest.SubmitValues(t, xgboostjob.New(), args...)
	if u := fs.Lookup("workers").Usage; !strings.Contains(u, "first being the master") {
		t.Errorf("--workers help %q does not say what it counts for XGBoost", u)
	}
	return values, err
}

// TestSubmitFlags: --workers counts the nodes, the first being the master.
func TestSubmitFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want map[string]any
	}{
		{nil, map[string]any{}},
		{[]string{"--workers", "1"}, map[string]any{"roles": map[string]any{
			"master": map[string]any{"replicas": 1}, "worker": map[string]any{"replicas": 0}}}},
		{[]string{"--workers", "4"}, map[string]any{"roles": map[string]any{
			"master": map[string]any{"replicas": 1}, "worker": map[string]any{"replicas": 3}}}},
	} {
		got, err := submitValues(t, tc.args...)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: values %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
	_, err := submitValues(t, "--workers", "0")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--workers 0") {
		t.Errorf("--workers 0: %v; want a usage error naming it", err)
	}
}

func xgboostJob(conds []kubeflowv1.JobCondition) *unstructured.Unstructured {
	spec := func(n int32) *kubeflowv1.ReplicaSpec {
		return &kubeflowv1.ReplicaSpec{Replicas: ptr.To(n), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "xgboost", Image: "xgb:1"}}}}}
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&kubeflowv1.XGBoostJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubeflow.org/v1", Kind: "XGBoostJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "iris", Namespace: "team-a"},
		Spec: kubeflowv1.XGBoostJobSpec{XGBReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.XGBoostJobReplicaTypeWorker: spec(2),
			kubeflowv1.XGBoostJobReplicaTypeMaster: spec(1),
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

// TestStatus: the XGBoost controller's conditions (Running while the master
// runs, Succeeded when it has) map to easyai's states.
func TestStatus(t *testing.T) {
	created := cond(kubeflowv1.JobCreated, "XGBoostJobCreated")
	running := cond(kubeflowv1.JobRunning, "XGBoostJobRunning")
	for _, tc := range []struct {
		name  string
		conds []kubeflowv1.JobCondition
		want  jobmodel.State
	}{
		{"new", nil, jobmodel.Pending},
		{"created", []kubeflowv1.JobCondition{created}, jobmodel.Pending},
		{"master running", []kubeflowv1.JobCondition{created, running}, jobmodel.Running},
		{"restarting", []kubeflowv1.JobCondition{created, cond(kubeflowv1.JobRestarting, "XGBoostJobRestarting")}, jobmodel.Running},
		{"master succeeded", []kubeflowv1.JobCondition{created, running, cond(kubeflowv1.JobSucceeded, "XGBoostJobSucceeded")}, jobmodel.Succeeded},
		{"failed", []kubeflowv1.JobCondition{created, cond(kubeflowv1.JobFailed, "XGBoostJobFailed")}, jobmodel.Failed},
	} {
		s, err := xgboostjob.New().Summarize(xgboostJob(tc.conds), "nvidia.com/gpu")
		if err != nil {
			t.Fatal(err)
		}
		if s.Status.State != tc.want || s.Workers.Total != 3 {
			t.Errorf("%s: state %s, %d replicas; want %s, 3", tc.name, s.Status.State, s.Workers.Total, tc.want)
		}
	}
}

func TestReplicasMasterFirst(t *testing.T) {
	got, err := xgboostjob.New().Replicas(xgboostJob(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	tasks := kindstest.Tasks(got)
	if want := []string{"master-0", "worker-0", "worker-1"}; !reflect.DeepEqual(tasks, want) {
		t.Errorf("tasks %v, want %v", tasks, want)
	}
}

func TestDecodeIsStrict(t *testing.T) {
	kindstest.DecodeIsStrict(t, xgboostjob.New(), xgboostJob(nil), "x", "spec", "xgbReplicaSpecs", "Master", "templat")
}
