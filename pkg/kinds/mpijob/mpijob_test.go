package mpijob_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
	"github.com/easyai-dev/easyai/pkg/kinds/mpijob"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// submitValues parses args as "easyai submit mpi" would and returns the
// kind's values.
func submitValues(t *testing.T, args ...string) (map[string]any, error) {
	t.Helper()
	values, fs, err := kindstest.SubmitValues(t, mpijob.New(), args...)
	if u := fs.Lookup("workers").Usage; !strings.Contains(u, "worker pods") {
		t.Errorf("--workers help %q does not say what it counts for MPI", u)
	}
	return values, err
}

func TestSubmitFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want map[string]any
	}{
		{nil, map[string]any{}},
		{[]string{"--workers", "4", "--slots-per-worker", "8"}, map[string]any{
			"slotsPerWorker": 8, "roles": map[string]any{"worker": map[string]any{"replicas": 4}}}},
		{[]string{"--launcher-cpu", "1", "--launcher-memory", "2Gi"}, map[string]any{
			"roles": map[string]any{"launcher": map[string]any{"resources": map[string]any{"cpu": "1", "memory": "2Gi"}}}}},
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
		{[]string{"--slots-per-worker", "0"}, "--slots-per-worker 0"},
		{[]string{"--launcher-cpu", "lots"}, "--launcher-cpu"},
		{[]string{"--launcher-memory", "2 GB"}, "--launcher-memory"},
	} {
		_, err := submitValues(t, tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want a usage error naming %s", tc.args, err, tc.want)
		}
	}
}

func mpiJob(status kubeflowv1.JobStatus) *unstructured.Unstructured {
	spec := func(n int32) *kubeflowv1.ReplicaSpec {
		return &kubeflowv1.ReplicaSpec{Replicas: ptr.To(n), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "mpi", Image: "mpi:1"}}}}}
	}
	j := &kubeflowv1.MPIJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "kubeflow.org/v1", Kind: "MPIJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "allreduce", Namespace: "team-a", CreationTimestamp: metav1.NewTime(t0)},
		Spec: kubeflowv1.MPIJobSpec{MPIReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.MPIJobReplicaTypeLauncher: spec(1),
			kubeflowv1.MPIJobReplicaTypeWorker:   spec(2),
		}},
		Status: status,
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(j)
	if err != nil {
		panic(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func cond(typ kubeflowv1.JobConditionType, reason string) kubeflowv1.JobCondition {
	return kubeflowv1.JobCondition{Type: typ, Status: corev1.ConditionTrue, Reason: reason, LastTransitionTime: metav1.NewTime(t0)}
}

// TestStatus: the MPI controller's conditions, as it sets them, map to
// easyai's states through the shared training-operator base.
func TestStatus(t *testing.T) {
	created := cond(kubeflowv1.JobCreated, "MPIJobCreated")
	running := cond(kubeflowv1.JobRunning, "MPIJobRunning")
	for _, tc := range []struct {
		name  string
		conds []kubeflowv1.JobCondition
		want  jobmodel.State
	}{
		{"new", nil, jobmodel.Pending},
		{"created, launcher or workers not running", []kubeflowv1.JobCondition{created}, jobmodel.Pending},
		{"launcher and every worker running", []kubeflowv1.JobCondition{created, running}, jobmodel.Running},
		{"launcher succeeded", []kubeflowv1.JobCondition{created, running, cond(kubeflowv1.JobSucceeded, "MPIJobSucceeded")}, jobmodel.Succeeded},
		{"launcher failed", []kubeflowv1.JobCondition{created, running, cond(kubeflowv1.JobFailed, "MPIJobFailed")}, jobmodel.Failed},
		{"workers evicted", []kubeflowv1.JobCondition{created, running, cond(kubeflowv1.JobFailed, "MPIJobEvicted")}, jobmodel.Failed},
	} {
		s, err := mpijob.New().Summarize(mpiJob(kubeflowv1.JobStatus{Conditions: tc.conds}), "nvidia.com/gpu")
		if err != nil {
			t.Fatal(err)
		}
		if s.Status.State != tc.want || s.Workers.Total != 3 {
			t.Errorf("%s: state %s, %d replicas; want %s, 3", tc.name, s.Status.State, s.Workers.Total, tc.want)
		}
	}
}

// TestReplicasNameTheLauncher: the operator labels its launcher pod with a
// replica type but no index; it is launcher-0, shown first.
func TestReplicasNameTheLauncher(t *testing.T) {
	pod := func(name, role, index string) corev1.Pod {
		labels := map[string]string{kubeflowv1.ReplicaTypeLabel: role}
		if index != "" {
			labels[kubeflowv1.ReplicaIndexLabel] = index
		}
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, CreationTimestamp: metav1.NewTime(t0)},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	got, err := mpijob.New().Replicas(mpiJob(kubeflowv1.JobStatus{}), []corev1.Pod{
		pod("allreduce-worker-1", "worker", "1"), pod("allreduce-launcher", "launcher", ""), pod("allreduce-worker-0", "worker", "0"),
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range got {
		rows = append(rows, r.Task+" "+r.Pod+" "+r.Phase)
	}
	want := []string{"launcher-0 allreduce-launcher Running", "worker-0 allreduce-worker-0 Running", "worker-1 allreduce-worker-1 Running"}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("replicas %q, want %q", rows, want)
	}
}

func TestDecodeIsStrict(t *testing.T) {
	kindstest.DecodeIsStrict(t, mpijob.New(), mpiJob(kubeflowv1.JobStatus{}), int64(2), "spec", "slotPerWorker")
}

// The training-operator's MPIJob workers carry no index label (v1.9): the
// index is in their name, JOB-worker-INDEX. A pod of another name with a
// worker's labels is not a worker.
func TestReplicasOfWorkersWithoutAnIndexLabel(t *testing.T) {
	pod := func(name, role string, created time.Time) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{kubeflowv1.ReplicaTypeLabel: role},
			CreationTimestamp: metav1.NewTime(created)}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	}
	got, err := mpijob.New().Replicas(mpiJob(kubeflowv1.JobStatus{}), []corev1.Pod{
		pod("allreduce-worker-1", "worker", t0), pod("allreduce-launcher", "launcher", t0), pod("allreduce-worker-0", "worker", t0),
		pod("allreduce-worker-01", "worker", t0.Add(time.Hour)), pod("decoy", "worker", t0.Add(time.Hour)), pod("allreduce-launcher-x", "launcher", t0.Add(time.Hour)),
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range got {
		rows = append(rows, r.Task+" "+r.Pod)
	}
	want := []string{"launcher-0 allreduce-launcher", "worker-0 allreduce-worker-0", "worker-1 allreduce-worker-1"}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("replicas %q, want %q", rows, want)
	}
}
