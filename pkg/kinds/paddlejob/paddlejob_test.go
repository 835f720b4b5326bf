package paddlejob_test

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
	"github.com/easyai-dev/easyai/pkg/kinds/paddlejob"
)

// submitValues parses args as "easyai submit paddle" would and returns the
// kind's values.
func submitValues(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	values, _, err := kindstest.SubmitValues(t, paddlejob.New(), args...)
	return values, err
}

func roles(master, worker any) map[string]any {
	r := map[string]any{}
	if master != nil {
		r["master"] = map[string]any{"replicas": master}
	}
	if worker != nil {
		r["worker"] = map[string]any{"replicas": worker}
	}
	return r
}

// TestSubmitFlags: --workers counts workers (collective mode), --ps adds
// parameter servers (the API's Master replicas), elastic bounds the workers.
func TestSubmitFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want map[string]any
	}{
		{nil, map[string]any{}},
		{[]string{"--workers", "4"}, map[string]any{"roles": roles(nil, 4)}},
		{[]string{"--workers", "4", "--ps", "2"}, map[string]any{"roles": roles(2, 4)}},
		{[]string{"--elastic-min", "2", "--elastic-max", "4"}, map[string]any{"roles": roles(nil, 2),
			"elastic": map[string]any{"minReplicas": 2, "maxReplicas": 4}}},
		{[]string{"--workers", "3", "--elastic-min", "2", "--elastic-max", "4"}, map[string]any{"roles": roles(nil, 3),
			"elastic": map[string]any{"minReplicas": 2, "maxReplicas": 4}}},
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
		{[]string{"--ps", "-1"}, "--ps -1"},
		{[]string{"--elastic-min", "3", "--elastic-max", "2"}, "--elastic-min 3 --elastic-max 2"},
		{[]string{"--elastic-max", "2"}, "--elastic-min 0"},
		{[]string{"--workers", "5", "--elastic-min", "2", "--elastic-max", "4"}, "--workers 5: must lie between"},
		{[]string{"--ps", "1", "--elastic-min", "2", "--elastic-max", "4"}, "--ps 1: elastic training runs in collective mode"},
	} {
		_, err := submitValues(t, tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want a usage error naming %s", tc.args, err, tc.want)
		}
	}
}

func paddleJob(masters int32, conds []kubeflowv1.JobCondition) *unstructured.Unstructured {
	spec := func(n int32) *kubeflowv1.ReplicaSpec {
		return &kubeflowv1.ReplicaSpec{Replicas: ptr.To(n), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "paddle", Image: "paddle:1"}}}}}
	}
	specs := map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{kubeflowv1.PaddleJobReplicaTypeWorker: spec(2)}
	if masters > 0 {
		specs[kubeflowv1.PaddleJobReplicaTypeMaster] = spec(masters)
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&kubeflowv1.PaddleJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubeflow.org/v1", Kind: "PaddleJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "ernie", Namespace: "team-a"},
		Spec:       kubeflowv1.PaddleJobSpec{PaddleReplicaSpecs: specs},
		Status:     kubeflowv1.JobStatus{Conditions: conds},
	})
	if err != nil {
		panic(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func cond(typ kubeflowv1.JobConditionType, reason string) kubeflowv1.JobCondition {
	return kubeflowv1.JobCondition{Type: typ, Status: corev1.ConditionTrue, Reason: reason}
}

// TestStatus: the Paddle controller's conditions map to easyai's states in
// both modes.
func TestStatus(t *testing.T) {
	created := cond(kubeflowv1.JobCreated, "PaddleJobCreated")
	running := cond(kubeflowv1.JobRunning, "PaddleJobRunning")
	for _, tc := range []struct {
		name    string
		masters int32
		conds   []kubeflowv1.JobCondition
		want    jobmodel.State
	}{
		{"new", 0, nil, jobmodel.Pending},
		{"created", 0, []kubeflowv1.JobCondition{created}, jobmodel.Pending},
		{"collective, workers running", 0, []kubeflowv1.JobCondition{created, running}, jobmodel.Running},
		{"collective, every worker succeeded", 0, []kubeflowv1.JobCondition{created, running, cond(kubeflowv1.JobSucceeded, "PaddleJobSucceeded")}, jobmodel.Succeeded},
		{"parameter servers running", 2, []kubeflowv1.JobCondition{created, running}, jobmodel.Running},
		{"restarting", 2, []kubeflowv1.JobCondition{created, cond(kubeflowv1.JobRestarting, "PaddleJobRestarting")}, jobmodel.Running},
		{"failed", 2, []kubeflowv1.JobCondition{created, running, cond(kubeflowv1.JobFailed, "PaddleJobFailed")}, jobmodel.Failed},
	} {
		s, err := paddlejob.New().Summarize(paddleJob(tc.masters, tc.conds), "nvidia.com/gpu")
		if err != nil {
			t.Fatal(err)
		}
		if s.Status.State != tc.want || s.Workers.Total != 2+tc.masters {
			t.Errorf("%s: state %s, %d replicas; want %s, %d", tc.name, s.Status.State, s.Workers.Total, tc.want, 2+tc.masters)
		}
	}
}

func TestReplicasMastersFirst(t *testing.T) {
	got, err := paddlejob.New().Replicas(paddleJob(1, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	tasks := kindstest.Tasks(got)
	if want := []string{"master-0", "worker-0", "worker-1"}; !reflect.DeepEqual(tasks, want) {
		t.Errorf("tasks %v, want %v", tasks, want)
	}
}

func TestDecodeIsStrict(t *testing.T) {
	kindstest.DecodeIsStrict(t, paddlejob.New(), paddleJob(0, nil), int64(2), "spec", "elasticPolicy", "minReplica")
}
