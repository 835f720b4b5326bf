//go:build e2e

// Package platform checks, with plain client-go and before easyai takes part,
// that the local cluster behaves as the real thing does for the objects easyai
// manages: the training-operator and Volcano run jobs to their final states,
// gang scheduling holds back what cannot fit, logs/exec/port-forward reach
// pods, and deleting a job removes its pods.
package platform

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	kfclient "github.com/kubeflow/training-operator/pkg/client/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	vcbatch "volcano.sh/apis/pkg/apis/batch/v1alpha1"
	vcclient "volcano.sh/apis/pkg/client/clientset/versioned"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
)

const jobTimeout = 90 * time.Second

func clients(t *testing.T) (*cluster.Cluster, kfclient.Interface, vcclient.Interface) {
	t.Helper()
	c := cluster.Get(t)
	return c, kfclient.NewForConfigOrDie(c.Config), vcclient.NewForConfigOrDie(c.Config)
}

// replica is a training-operator replica whose pods run for runFor and then
// exit with code, asking for gpus GPUs.
func replica(n int32, code int, runFor time.Duration, gpus int64, containerName string) *kubeflowv1.ReplicaSpec {
	c := corev1.Container{Name: containerName, Image: "example.com/train:1", Command: []string{"python", "train.py"}}
	if gpus > 0 {
		c.Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)}
	}
	annotations := map[string]string{}
	if code >= 0 {
		annotations = cluster.ExitAfter(code, runFor)
	}
	return &kubeflowv1.ReplicaSpec{
		Replicas:      ptr.To(n),
		RestartPolicy: kubeflowv1.RestartPolicyNever,
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{c}},
		},
	}
}

func hasCondition(conds []kubeflowv1.JobCondition, t kubeflowv1.JobConditionType) bool {
	for _, c := range conds {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func waitTFJob(t *testing.T, kf kfclient.Interface, ns, name string, want kubeflowv1.JobConditionType) *kubeflowv1.TFJob {
	t.Helper()
	var job *kubeflowv1.TFJob
	cluster.Eventually(t, jobTimeout, fmt.Sprintf("TFJob %s %s", name, want), func(ctx context.Context) (bool, error) {
		var err error
		job, err = kf.KubeflowV1().TFJobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return hasCondition(job.Status.Conditions, want), nil
	})
	return job
}

func TestTFJobWithPSAndWorkersRunsToSuccess(t *testing.T) {
	t.Parallel()
	c, kf, _ := clients(t)
	ns := c.Namespace(t)
	ctx := cluster.Context(t, 2*time.Minute)

	job := &kubeflowv1.TFJob{
		ObjectMeta: metav1.ObjectMeta{Name: "mnist", Namespace: ns},
		Spec: kubeflowv1.TFJobSpec{
			RunPolicy: kubeflowv1.RunPolicy{CleanPodPolicy: ptr.To(kubeflowv1.CleanPodPolicyRunning)},
			// The default policy succeeds when worker 0 is done; this one waits for all.
			SuccessPolicy: ptr.To(kubeflowv1.SuccessPolicyAllWorkers),
			TFReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
				kubeflowv1.TFJobReplicaTypePS:     replica(1, -1, 0, 0, "tensorflow"),
				kubeflowv1.TFJobReplicaTypeWorker: replica(2, 0, 4*time.Second, 1, "tensorflow"),
			},
		},
	}
	if _, err := kf.KubeflowV1().TFJobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitTFJob(t, kf, ns, "mnist", kubeflowv1.JobRunning)
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "training.kubeflow.org/job-name=mnist"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 3 {
		t.Fatalf("want 3 pods (1 PS + 2 workers), got %d", len(pods.Items))
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" {
			t.Errorf("pod %s is not bound to a node", p.Name)
		}
		if !hasEnv(p, "TF_CONFIG") {
			t.Errorf("pod %s has no TF_CONFIG: the operator did not inject it", p.Name)
		}
	}
	done := waitTFJob(t, kf, ns, "mnist", kubeflowv1.JobSucceeded)
	if got := done.Status.ReplicaStatuses[kubeflowv1.TFJobReplicaTypeWorker].Succeeded; got != 2 {
		t.Errorf("succeeded workers = %d, want 2", got)
	}
}

func hasEnv(p corev1.Pod, name string) bool {
	for _, e := range p.Spec.Containers[0].Env {
		if e.Name == name {
			return true
		}
	}
	return false
}

func TestTFJobFailsWhenAWorkerExits1(t *testing.T) {
	t.Parallel()
	c, kf, _ := clients(t)
	ns := c.Namespace(t)
	ctx := cluster.Context(t, 2*time.Minute)

	job := &kubeflowv1.TFJob{
		ObjectMeta: metav1.ObjectMeta{Name: "broken", Namespace: ns},
		Spec: kubeflowv1.TFJobSpec{TFReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.TFJobReplicaTypeWorker: replica(2, 1, 2*time.Second, 0, "tensorflow"),
		}},
	}
	if _, err := kf.KubeflowV1().TFJobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	failed := waitTFJob(t, kf, ns, "broken", kubeflowv1.JobFailed)
	if hasCondition(failed.Status.Conditions, kubeflowv1.JobSucceeded) {
		t.Errorf("job is both Failed and Succeeded: %+v", failed.Status.Conditions)
	}
	// Either worker may end first and fail the job; the other may still run.
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, pod := range pods.Items {
		for _, st := range pod.Status.ContainerStatuses {
			if st.State.Terminated != nil && st.State.Terminated.ExitCode == 1 {
				return
			}
			states = append(states, fmt.Sprintf("%s: %+v", pod.Name, st.State))
		}
	}
	t.Errorf("no worker terminated with exit code 1: %v", states)
}

func TestPyTorchJobRunsToSuccessWithGang(t *testing.T) {
	t.Parallel()
	c, kf, vc := clients(t)
	ns := c.Namespace(t)
	ctx := cluster.Context(t, 2*time.Minute)

	job := &kubeflowv1.PyTorchJob{
		ObjectMeta: metav1.ObjectMeta{Name: "resnet", Namespace: ns},
		Spec: kubeflowv1.PyTorchJobSpec{
			RunPolicy: kubeflowv1.RunPolicy{SchedulingPolicy: &kubeflowv1.SchedulingPolicy{MinAvailable: ptr.To[int32](3)}},
			PyTorchReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
				kubeflowv1.PyTorchJobReplicaTypeMaster: replica(1, 0, 4*time.Second, 1, "pytorch"),
				kubeflowv1.PyTorchJobReplicaTypeWorker: replica(2, 0, 4*time.Second, 1, "pytorch"),
			},
		},
	}
	if _, err := kf.KubeflowV1().PyTorchJobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cluster.Eventually(t, jobTimeout, "PyTorchJob resnet Running", func(ctx context.Context) (bool, error) {
		j, err := kf.KubeflowV1().PyTorchJobs(ns).Get(ctx, "resnet", metav1.GetOptions{})
		return err == nil && hasCondition(j.Status.Conditions, kubeflowv1.JobRunning), err
	})
	// Gang scheduling: the operator made a Volcano PodGroup and Volcano bound the pods.
	pg, err := vc.SchedulingV1beta1().PodGroups(ns).Get(ctx, "resnet", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the PodGroup of the gang: %v", err)
	}
	if pg.Spec.MinMember != 3 {
		t.Errorf("PodGroup minMember = %d, want 3", pg.Spec.MinMember)
	}
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "training.kubeflow.org/job-name=resnet"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.SchedulerName != "volcano" || p.Spec.NodeName == "" {
			t.Errorf("pod %s: scheduler %q node %q, want bound by volcano", p.Name, p.Spec.SchedulerName, p.Spec.NodeName)
		}
		if !hasEnv(p, "MASTER_ADDR") || !hasEnv(p, "WORLD_SIZE") {
			t.Errorf("pod %s lacks MASTER_ADDR/WORLD_SIZE", p.Name)
		}
	}
	cluster.Eventually(t, jobTimeout, "PyTorchJob resnet Succeeded", func(ctx context.Context) (bool, error) {
		j, err := kf.KubeflowV1().PyTorchJobs(ns).Get(ctx, "resnet", metav1.GetOptions{})
		return err == nil && hasCondition(j.Status.Conditions, kubeflowv1.JobSucceeded), err
	})
}

func volcanoJob(ns, name string, replicas, minAvailable int32, gpus int64, annotations map[string]string) *vcbatch.Job {
	return &vcbatch.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: vcbatch.JobSpec{
			SchedulerName: "volcano",
			Queue:         "default",
			MinAvailable:  minAvailable,
			Tasks: []vcbatch.TaskSpec{{
				Name:     "worker",
				Replicas: replicas,
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
					Spec: corev1.PodSpec{
						RestartPolicy: corev1.RestartPolicyNever,
						Containers: []corev1.Container{{
							Name: "worker", Image: "example.com/train:1", Command: []string{"sleep", "1"},
							Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{
								"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI),
							}},
						}},
					},
				},
			}},
		},
	}
}

func TestVolcanoGangJobCompletes(t *testing.T) {
	t.Parallel()
	c, _, vc := clients(t)
	ns := c.Namespace(t)
	ctx := cluster.Context(t, 2*time.Minute)

	job := volcanoJob(ns, "gang", 3, 3, 2, cluster.ExitAfter(0, 3*time.Second))
	if _, err := vc.BatchV1alpha1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cluster.Eventually(t, jobTimeout, "Volcano job gang Running with 3 pods", func(ctx context.Context) (bool, error) {
		j, err := vc.BatchV1alpha1().Jobs(ns).Get(ctx, "gang", metav1.GetOptions{})
		return err == nil && j.Status.State.Phase == vcbatch.Running && j.Status.Running == 3, err
	})
	cluster.Eventually(t, jobTimeout, "Volcano job gang Completed", func(ctx context.Context) (bool, error) {
		j, err := vc.BatchV1alpha1().Jobs(ns).Get(ctx, "gang", metav1.GetOptions{})
		return err == nil && j.Status.State.Phase == vcbatch.Completed, err
	})
}

func TestVolcanoGangJobLargerThanTheClusterStaysPending(t *testing.T) {
	t.Parallel()
	c, _, vc := clients(t)
	ns := c.Namespace(t)
	ctx := cluster.Context(t, 2*time.Minute)

	// 5 pods of 8 GPUs on 4 nodes of 8 GPUs: at most 4 fit, the gang needs 5.
	job := volcanoJob(ns, "too-big", 5, 5, 8, nil)
	if _, err := vc.BatchV1alpha1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var reason string
	cluster.Eventually(t, jobTimeout, "the scheduler's reason on the PodGroup", func(ctx context.Context) (bool, error) {
		pgs, err := vc.SchedulingV1beta1().PodGroups(ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(pgs.Items) == 0 {
			return false, err
		}
		for _, cond := range pgs.Items[0].Status.Conditions {
			if cond.Type == "Unschedulable" && cond.Status == corev1.ConditionTrue {
				reason = cond.Message
				return true, nil
			}
		}
		return false, nil
	})
	t.Logf("scheduler says: %s", reason)
	if !strings.Contains(reason, "tasks in gang unschedulable") {
		t.Errorf("PodGroup reason %q does not say the gang is unschedulable", reason)
	}
	// Held back as a whole: no pod of the gang is bound, the job stays Pending.
	time.Sleep(3 * time.Second)
	j, err := vc.BatchV1alpha1().Jobs(ns).Get(ctx, "too-big", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status.State.Phase != vcbatch.Pending {
		t.Errorf("job phase %s, want Pending", j.Status.State.Phase)
	}
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			t.Errorf("pod %s was bound to %s although its gang cannot fit", p.Name, p.Spec.NodeName)
		}
	}
}

// TestVolcanoAdmissionWebhooksRun: Volcano's job webhooks default a job
// (queue, maxRetry) and refuse an invalid one, as on a cluster installed
// with Volcano's chart.
func TestVolcanoAdmissionWebhooksRun(t *testing.T) {
	t.Parallel()
	c, _, vc := clients(t)
	ns := c.Namespace(t)
	ctx := cluster.Context(t, time.Minute)

	job := volcanoJob(ns, "defaulted", 1, 1, 0, nil)
	job.Spec.Queue, job.Spec.MaxRetry = "", 0
	got, err := vc.BatchV1alpha1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Queue != "default" || got.Spec.MaxRetry != 3 {
		t.Errorf("the mutating webhook did not default the job: queue %q, maxRetry %d", got.Spec.Queue, got.Spec.MaxRetry)
	}

	_, err = vc.BatchV1alpha1().Jobs(ns).Create(ctx, volcanoJob(ns, "too-few", 2, 5, 0, nil), metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "validatejob.volcano.sh") {
		t.Errorf("a job whose minAvailable exceeds its replicas: %v, want the validating webhook's refusal", err)
	}
}
