//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	kfclient "github.com/kubeflow/training-operator/pkg/client/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// simulated writes a values file that makes every pod of the job "train" for
// d and exit 0 on the local cluster's fake nodes.
func simulated(t *testing.T, d time.Duration) string {
	t.Helper()
	values := map[string]any{"podAnnotations": cluster.ExitAfter(0, d)}
	data, err := yaml.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "simulate.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func condition(conds []kubeflowv1.JobCondition, typ kubeflowv1.JobConditionType) bool {
	for _, c := range conds {
		if c.Type == typ && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func waitCondition(t *testing.T, what string, get func(context.Context) (*kubeflowv1.JobStatus, error), typ kubeflowv1.JobConditionType) {
	t.Helper()
	cluster.Eventually(t, 90*time.Second, what+" "+string(typ), func(ctx context.Context) (bool, error) {
		st, err := get(ctx)
		if err != nil {
			return false, err
		}
		return condition(st.Conditions, typ), nil
	})
}

func TestSubmitTFWithPSAndGPUWorkersRunsToSuccess(t *testing.T) {
	for _, gang := range []bool{false, true} {
		name := map[bool]string{false: "tf-plain", true: "tf-gang"}[gang]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := cluster.Get(t)
			ns := c.Namespace(t)
			kf := kfclient.NewForConfigOrDie(c.Config)
			args := []string{"submit", "tf", "-n", ns, "--name", name, "--ps", "1", "--workers", "2", "--gpus", "1",
				"--cpu", "2", "--memory", "4Gi", "--image", "tensorflow/tensorflow:2.16.1-gpu", "--experiment", "e2e",
				"--success-policy", "AllWorkers", "-f", simulated(t, 5*time.Second)}
			if gang {
				args = append(args, "--gang")
			}
			res := easyai.Run(t, append(args, "--", "python", "train.py", "--epochs", "1")...).MustSucceed(t)
			if !strings.Contains(res.Stdout, "tf/"+name) {
				t.Errorf("stdout %q does not name the job", res.Stdout)
			}
			get := func(ctx context.Context) (*kubeflowv1.JobStatus, error) {
				j, err := kf.KubeflowV1().TFJobs(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return &j.Status, nil
			}
			waitCondition(t, name, get, kubeflowv1.JobRunning)

			ctx := cluster.Context(t, time.Minute)
			job, err := kf.KubeflowV1().TFJobs(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range map[string]string{
				"app.kubernetes.io/managed-by": "easyai", "easyai.io/job-name": name, "easyai.io/kind": "tf",
				"easyai.io/user": "easyai-dev-admin", "easyai.io/experiment": "e2e",
			} {
				if job.Labels[k] != want {
					t.Errorf("job label %s = %q, want %q", k, job.Labels[k], want)
				}
			}
			var request map[string]any
			if err := json.Unmarshal([]byte(job.Annotations["easyai.io/request"]), &request); err != nil || request["image"] != "tensorflow/tensorflow:2.16.1-gpu" {
				t.Errorf("request annotation %q: %v", job.Annotations["easyai.io/request"], err)
			}
			if (job.Spec.RunPolicy.SchedulingPolicy != nil) != gang {
				t.Errorf("schedulingPolicy = %+v with --gang=%v", job.Spec.RunPolicy.SchedulingPolicy, gang)
			}
			pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/job-name=" + name})
			if err != nil {
				t.Fatal(err)
			}
			if len(pods.Items) != 3 {
				t.Fatalf("%d pods carry easyai.io/job-name=%s, want 3 (1 PS + 2 workers)", len(pods.Items), name)
			}
			for _, p := range pods.Items {
				gpus := p.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]
				role := p.Labels["training.kubeflow.org/replica-type"]
				if want := map[string]int64{"ps": 0, "worker": 1}[role]; gpus.Value() != want {
					t.Errorf("pod %s (%s) asks for %d GPUs, want %d", p.Name, role, gpus.Value(), want)
				}
				if p.Labels["app.kubernetes.io/managed-by"] != "easyai" {
					t.Errorf("pod %s lacks easyai's labels: %v", p.Name, p.Labels)
				}
				if gang && p.Spec.SchedulerName != "volcano" {
					t.Errorf("pod %s scheduled by %q, want volcano with --gang", p.Name, p.Spec.SchedulerName)
				}
			}
			waitCondition(t, name, get, kubeflowv1.JobSucceeded)
		})
	}
}

func TestSubmitPyTorchThreeNodesRunsToSuccess(t *testing.T) {
	for _, gang := range []bool{false, true} {
		name := map[bool]string{false: "pt-plain", true: "pt-gang"}[gang]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := cluster.Get(t)
			ns := c.Namespace(t)
			kf := kfclient.NewForConfigOrDie(c.Config)
			args := []string{"submit", "pytorch", "-n", ns, "--name", name, "--workers", "3", "--gpus", "2",
				"--nproc-per-node", "2", "--image", "pytorch/pytorch:2.4", "-f", simulated(t, 4*time.Second), "-o", "name"}
			if gang {
				args = append(args, "--gang")
			}
			res := easyai.Run(t, append(args, "--", "torchrun", "train.py")...).MustSucceed(t)
			if got := strings.TrimSpace(res.Stdout); got != "pytorch/"+name {
				t.Errorf("-o name printed %q", got)
			}
			get := func(ctx context.Context) (*kubeflowv1.JobStatus, error) {
				j, err := kf.KubeflowV1().PyTorchJobs(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return nil, err
				}
				return &j.Status, nil
			}
			waitCondition(t, name, get, kubeflowv1.JobRunning)
			ctx := cluster.Context(t, time.Minute)
			job, err := kf.KubeflowV1().PyTorchJobs(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			master, worker := job.Spec.PyTorchReplicaSpecs["Master"], job.Spec.PyTorchReplicaSpecs["Worker"]
			if master == nil || *master.Replicas != 1 || worker == nil || *worker.Replicas != 2 {
				t.Errorf("replicas: master %+v worker %+v, want 1 + 2", master, worker)
			}
			if job.Spec.NprocPerNode == nil || *job.Spec.NprocPerNode != "2" {
				t.Errorf("nprocPerNode = %v, want 2", job.Spec.NprocPerNode)
			}
			waitCondition(t, name, get, kubeflowv1.JobSucceeded)
		})
	}
}

func TestSubmitServerDryRunIsValidatedAndCreatesNothing(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	res := easyai.Run(t, "submit", "tf", "-n", ns, "--name", "dry", "--workers", "2", "--image", "tf:1",
		"--dry-run=server", "-o", "yaml", "--", "python", "train.py").MustSucceed(t)
	var job kubeflowv1.TFJob
	if err := yaml.UnmarshalStrict([]byte(res.Stdout), &job); err != nil {
		t.Fatalf("dry run output is not a TFJob: %v\n%s", err, res.Stdout)
	}
	if job.Namespace != ns || job.Spec.TFReplicaSpecs["Worker"] == nil {
		t.Errorf("dry run TFJob: %+v", job.ObjectMeta)
	}
	kf := kfclient.NewForConfigOrDie(c.Config)
	if _, err := kf.KubeflowV1().TFJobs(ns).Get(cluster.Context(t, time.Minute), "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a dry run created the job (get: %v)", err)
	}

	// The API server rejects what the CRD schema does not allow.
	res = easyai.Run(t, "submit", "tf", "-n", ns, "--name", "dry", "--image", "tf:1", "--dry-run=server",
		"--set", "runPolicy.cleanPodPolicy=Sometimes", "--", "python", "train.py")
	if res.Code == 0 || !strings.Contains(res.Stderr, "cleanPodPolicy") {
		t.Errorf("a bad cleanPodPolicy passed the server dry run (exit %d): %s", res.Code, res.Stderr)
	}
}

func TestSubmitBadInputExits2NamingIt(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"submit", "tf", "--image", "x", "--cpu", "lots", "--", "run"}, "--cpu"},
		{[]string{"submit", "tf", "--image", "x", "--toleration", "gpu", "--", "run"}, "--toleration"},
		{[]string{"submit", "tf", "--image", "x", "--env", "NOVALUE", "--", "run"}, "--env"},
		{[]string{"submit", "tf", "--", "run"}, "--image"},
		{[]string{"submit", "tf", "--image", "x"}, "command"},
		{[]string{"submit", "tf", "--image", "x", "--set", "roles.worker.imag=y", "--chart", "testdata/passthrough", "--", "run"}, "imag"},
		{[]string{"submit", "tf", "--image", "x", "--bogus", "--", "run"}, "--bogus"},
	} {
		res := easyai.Run(t, append(tc.args, "-n", ns)...)
		if res.Code != 2 || !strings.Contains(res.Stderr, tc.want) {
			t.Errorf("easyai %v: exit %d, stderr %q; want exit 2 naming %s", tc.args, res.Code, res.Stderr, tc.want)
		}
	}
	jobs, err := kfclient.NewForConfigOrDie(c.Config).KubeflowV1().TFJobs(ns).List(cluster.Context(t, time.Minute), metav1.ListOptions{})
	if err != nil || len(jobs.Items) != 0 {
		t.Errorf("bad submits left %d jobs behind (%v)", len(jobs.Items), err)
	}
}
