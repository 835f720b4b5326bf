//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

var (
	trainJobResource        = schema.GroupVersionResource{Group: "trainer.kubeflow.org", Version: "v1alpha1", Resource: "trainjobs"}
	trainingRuntimeResource = schema.GroupVersionResource{Group: "trainer.kubeflow.org", Version: "v1alpha1", Resource: "trainingruntimes"}
	pyTorchJobResource      = schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: "pytorchjobs"}
)

// served tells whether the cluster serves gvr.
func served(t *testing.T, c *cluster.Cluster, gvr schema.GroupVersionResource) bool {
	t.Helper()
	list, err := c.Kube.Discovery().ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	if err != nil {
		return false
	}
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource {
			return true
		}
	}
	return false
}

// needTrainer skips unless the cluster runs Kubeflow Trainer v2.
func needTrainer(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	if !served(t, c, trainJobResource) {
		t.Skip("the cluster does not run Kubeflow Trainer v2 (EASYAI_CLUSTER_COMPONENTS without trainer)")
	}
}

// trainJobPods are the pods of a TrainJob's JobSet, by task (node-0, ...),
// once want of them run.
func trainJobPods(t *testing.T, c *cluster.Cluster, ns, name string, want int) map[string]string {
	t.Helper()
	var pods map[string]string
	cluster.Eventually(t, 2*time.Minute, "the running pods of TrainJob "+name, func(ctx context.Context) (bool, error) {
		list, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "jobset.sigs.k8s.io/jobset-name=" + name})
		if err != nil {
			return false, err
		}
		pods = map[string]string{}
		for _, p := range list.Items {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				role := p.Labels["jobset.sigs.k8s.io/replicatedjob-name"]
				pods[role+"-"+p.Annotations["batch.kubernetes.io/job-completion-index"]] = p.Name
			}
		}
		return len(pods) == want && len(list.Items) == want, nil
	})
	return pods
}

// TestTrainJobFromSubmitToDelete: a TrainJob on torch-distributed with 3
// nodes, submitted by easyai, runs with the pods the JobSet and Job
// controllers make; list, get, logs -f (every node's lines), exec and
// download by task, suspend and resume (spec.suspend: the pods go and come back) and delete
// work on it as on any kind.
func TestTrainJobFromSubmitToDelete(t *testing.T) {
	t.Parallel()
	c, _ := clients(t)
	needTrainer(t, c)
	ns := c.Namespace(t)
	name := "tj"
	ref := "trainjob/" + name

	r := easyai.Run(t, "submit", "trainjob", "-n", ns, "--name", name, "--runtime", "torch-distributed", "--workers", "3",
		"--gpus", "1", "--image", "example.com/train:1", "--env", cluster.RunForEnv+"=10m", "--", "torchrun", "train.py").MustSucceed(t)
	if !strings.Contains(r.Stdout, ref+" submitted to namespace "+ns) {
		t.Errorf("submit: %q", r.Stdout)
	}
	pods := trainJobPods(t, c, ns, name, 3)
	for _, task := range []string{"node-0", "node-1", "node-2"} {
		if pods[task] == "" {
			t.Fatalf("no running pod of %s: %v", task, pods)
		}
	}

	// The trainer reports the node Job ready a moment after its pods run.
	cluster.Eventually(t, time.Minute, "TrainJob "+name+" Running", func(context.Context) (bool, error) {
		return getKind(t, ns, ref).Status.State == "Running", nil
	})
	j := getKind(t, ns, ref)
	var tasks []string
	for _, rep := range j.Replicas {
		tasks = append(tasks, rep.Task+"="+rep.Phase)
	}
	if j.JobKind != "trainjob" || j.Status.State != "Running" || strings.Join(tasks, ",") != "node-0=Running,node-1=Running,node-2=Running" {
		t.Errorf("get -o json: kind %s state %s replicas %v", j.JobKind, j.Status.State, tasks)
	}
	r = easyai.Run(t, "get", "-n", ns, ref).MustSucceed(t)
	for _, want := range []string{"Runtime:    ClusterTrainingRuntime torch-distributed", "Jobs:       node: ", "Workers:    3/3 running", "GPUs:       3"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("get does not show %q:\n%s", want, r.Stdout)
		}
	}
	if rows := rows(t, "-n", ns); len(rows[name]) < 3 || rows[name][1] != "trainjob" || rows[name][2] != "Running" {
		t.Errorf("list: %v", rows)
	}

	// logs -f: every node's lines, prefixed by its task.
	logs := map[string]*cluster.Log{}
	for task, pod := range pods {
		logs[task] = c.PodLog(t, ns, pod, nil)
		logs[task].Println("hello from " + task)
	}
	f := follow(t, "-n", ns, ref)
	f.expect(t, "[node-0] hello from node-0", "[node-1] hello from node-1", "[node-2] hello from node-2")
	logs["node-2"].Println("epoch 1")
	f.expect(t, "[node-2] epoch 1")
	_ = f.cmd.Process.Kill()

	// exec by task.
	dir := c.NamespaceExecDir(t, ns)
	if err := os.WriteFile(filepath.Join(dir, "whoami.txt"), []byte("a node of "+name+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = easyai.Run(t, "exec", "-n", ns, ref, "--task", "node-1", "--", "cat", "whoami.txt").MustSucceed(t)
	if r.Stdout != "a node of tj\n" {
		t.Errorf("exec --task node-1: %q", r.Stdout)
	}
	if r := easyai.Run(t, "exec", "-n", ns, ref, "--task", "node-7", "--", "true"); r.Code != 3 || !strings.Contains(r.Stderr, "node-0, node-1, node-2") {
		t.Errorf("exec --task node-7: exit %d, %s", r.Code, r.Stderr)
	}

	// download from a node.
	remote := fillOutputs(t, dir, "outputs")
	local := filepath.Join(t.TempDir(), "local")
	r = easyai.Run(t, "download", "-n", ns, ref, "outputs", local, "--task", "node-2").MustSucceed(t)
	sameTree(t, remote, filepath.Join(local, "outputs"))
	if !strings.Contains(r.Stderr, "Downloaded 7 files, 3.0 MiB from node-2:outputs to ") {
		t.Errorf("download --task node-2: stderr %q", r.Stderr)
	}

	// suspend: spec.suspend, the pods go; resume: they come back.
	easyai.Run(t, "suspend", "-n", ns, ref).MustSucceed(t)
	obj, err := c.Dynamic.Resource(trainJobResource).Namespace(ns).Get(cluster.Context(t, time.Minute), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s, _, _ := unstructured.NestedBool(obj.Object, "spec", "suspend"); !s {
		t.Errorf("suspend did not set spec.suspend: %v", obj.Object["spec"])
	}
	cluster.Eventually(t, 2*time.Minute, "the pods of the suspended TrainJob gone", func(ctx context.Context) (bool, error) {
		list, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "jobset.sigs.k8s.io/jobset-name=" + name})
		return err == nil && len(list.Items) == 0, err
	})
	if j := getKind(t, ns, ref); j.Status.State != "Suspended" {
		t.Errorf("get after suspend: %s", j.Status.State)
	}
	easyai.Run(t, "resume", "-n", ns, ref).MustSucceed(t)
	trainJobPods(t, c, ns, name, 3)

	easyai.Run(t, "delete", "-n", ns, ref, "--yes").MustSucceed(t)
	cluster.Eventually(t, time.Minute, "TrainJob "+name+" deleted", func(ctx context.Context) (bool, error) {
		_, err := c.Dynamic.Resource(trainJobResource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// noRetriesRuntime is a TrainingRuntime like torch-distributed whose Job
// does not retry a failed pod, so that a failing TrainJob fails at once.
func noRetriesRuntime(t *testing.T, c *cluster.Cluster, ns string) {
	t.Helper()
	rt := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(`
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: torch-no-retries
  labels: {trainer.kubeflow.org/framework: torch}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata:
            labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
          spec:
            backoffLimit: 0
            template:
              spec:
                containers:
                - {name: node, image: example.com/train:1}
`), &rt.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Dynamic.Resource(trainingRuntimeResource).Namespace(ns).Create(cluster.Context(t, time.Minute), rt, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestTrainJobResultAndWait: a command exiting 3 on every node fails the
// TrainJob and wait exits 4; a clean run completes it and submit --wait
// exits 0; runtimes lists the namespace's runtime beside the cluster's.
func TestTrainJobResultAndWait(t *testing.T) {
	t.Parallel()
	c, _ := clients(t)
	needTrainer(t, c)
	ns := c.Namespace(t)
	noRetriesRuntime(t, c, ns)

	r := easyai.Run(t, "runtimes", "-n", ns, "-o", "name").MustSucceed(t)
	for _, want := range []string{"torch-distributed", "deepspeed-distributed", "trainingruntime/torch-no-retries"} {
		if !slices.Contains(strings.Split(strings.TrimSpace(r.Stdout), "\n"), want) {
			t.Errorf("runtimes -o name lacks %s:\n%s", want, r.Stdout)
		}
	}
	r = easyai.Run(t, "runtimes", "-n", ns, "-o", "json").MustSucceed(t)
	var doc struct {
		Kind  string `json:"kind"`
		Items []struct {
			Name, Kind, Framework string
			Nodes                 *int64
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || doc.Kind != "RuntimeList" || len(doc.Items) < 6 {
		t.Errorf("runtimes -o json: %v\n%s", err, r.Stdout)
	}

	easyai.Run(t, "submit", "trainjob", "-n", ns, "--name", "bad", "--runtime", "trainingruntime/torch-no-retries", "--workers", "2",
		"--image", "example.com/train:1", "--env", cluster.ExitCodeEnv+"=3", "--env", cluster.RunForEnv+"=2s", "--", "torchrun", "train.py").MustSucceed(t)
	if r := easyai.Run(t, "wait", "-n", ns, "trainjob/bad", "--timeout", "3m"); r.Code != 4 {
		t.Errorf("wait for the failing TrainJob: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	r = easyai.Run(t, "submit", "trainjob", "-n", ns, "--name", "good", "--runtime", "torch-distributed", "--workers", "2",
		"--image", "example.com/train:1", "--env", cluster.ExitCodeEnv+"=0", "--env", cluster.RunForEnv+"=3s", "--wait", "--timeout", "3m", "--", "torchrun", "train.py")
	if r.Code != 0 {
		t.Errorf("submit --wait of a clean TrainJob: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if j := getKind(t, ns, "trainjob/good"); j.Status.State != "Succeeded" {
		t.Errorf("the clean TrainJob is %s", j.Status.State)
	}
}

// TestTrainJobChecksBeforeCreating: what a TrainJob cannot honour, a
// runtime that does not exist and --gang on a runtime without a
// podGroupPolicy exit 2 and create nothing; an initializer's Secret is
// rendered by name only and the API server (with the trainer's webhook)
// takes the job.
func TestTrainJobChecksBeforeCreating(t *testing.T) {
	t.Parallel()
	c, _ := clients(t)
	needTrainer(t, c)
	ns := c.Namespace(t)
	submit := func(args ...string) easyai.Result {
		all := append([]string{"submit", "trainjob", "-n", ns, "--name", "checked", "--image", "example.com/train:1"}, args...)
		return easyai.Run(t, append(all, "--", "torchrun", "train.py")...)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--runtime", "torch-distributed", "--retry", "2"}, "--retry: a TrainJob cannot honour it"},
		{[]string{"--runtime", "torch-distributed", "--priority", "high"}, "--priority: a TrainJob cannot honour it"},
		{[]string{"--runtime", "no-such-runtime"}, `the runtime "no-such-runtime": this cluster has no ClusterTrainingRuntime of that name`},
		{[]string{"--runtime", "torch-distributed", "--gang"}, "--gang: ClusterTrainingRuntime torch-distributed has no podGroupPolicy"},
		{[]string{"--runtime", "torch-distributed", "--dataset", "http://example.com/x"}, "--dataset \"http://example.com/x\": want hf://"},
	} {
		if r := submit(c.args...); r.Code != 2 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("submit %v: exit %d, stderr %q, want 2 and %q", c.args, r.Code, r.Stderr, c.want)
		}
	}
	if _, err := c.Dynamic.Resource(trainJobResource).Namespace(ns).Get(cluster.Context(t, time.Minute), "checked", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("a refused submit created the job: %v", err)
	}

	r := submit("--runtime", "torch-distributed", "--dataset", "hf://tatsu-lab/alpaca", "--model", "hf://org/model",
		"--initializer-secret", "hf-token", "--dry-run=client", "-o", "yaml").MustSucceed(t)
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(r.Stdout), &obj); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"dataset", "model"} {
		ref, _, _ := unstructured.NestedString(obj, "spec", "initializer", src, "secretRef", "name")
		if ref != "hf-token" {
			t.Errorf("initializer %s: secretRef %q, want hf-token by name\n%s", src, ref, r.Stdout)
		}
	}
	if strings.Contains(r.Stdout, "kind: Secret") || strings.Contains(r.Stdout, "stringData") {
		t.Errorf("the initializer's Secret is more than named:\n%s", r.Stdout)
	}
}

// TestSubmitPytorchPicksTheBackend: "submit pytorch" (a server dry run,
// which asks the cluster) renders a PyTorchJob where the training-operator
// serves it and a TrainJob on torch-distributed where only Kubeflow Trainer
// v2 is installed; where both are, the configuration's kubeflow-backend
// decides (training-operator by default). CI runs it on a cluster of each
// kind (EASYAI_CLUSTER_COMPONENTS).
func TestSubmitPytorchPicksTheBackend(t *testing.T) {
	t.Parallel()
	c, _ := clients(t)
	ns := c.Namespace(t)
	v1, trainer := served(t, c, pyTorchJobResource), served(t, c, trainJobResource)
	t.Logf("the cluster serves PyTorchJobs: %t, TrainJobs: %t", v1, trainer)
	submit := func(env []string, args ...string) (kind, stderr string) {
		all := append([]string{"submit", "pytorch", "-n", ns, "--name", "picked", "--workers", "2", "--image", "example.com/train:1",
			"--dry-run=server", "-o", "yaml"}, args...)
		r := easyai.RunWith(t, env, append(all, "--", "torchrun", "train.py")...).MustSucceed(t)
		var head struct{ Kind string }
		if err := yaml.Unmarshal([]byte(r.Stdout), &head); err != nil {
			t.Fatal(err)
		}
		return head.Kind, r.Stderr
	}
	want := "PyTorchJob"
	if trainer && !v1 {
		want = "TrainJob"
	}
	kind, stderr := submit(nil)
	if kind != want {
		t.Errorf("submit pytorch on this cluster rendered a %s, want a %s (stderr %q)", kind, want, stderr)
	}
	if trainer && !strings.Contains(stderr, "Backend: ") {
		t.Errorf("no note of the backend chosen: %q", stderr)
	}
	if v1 && trainer {
		kind, stderr := submit([]string{"EASYAI_KUBEFLOW_BACKEND=trainer"})
		if kind != "TrainJob" || !strings.Contains(stderr, "Backend: trainer") {
			t.Errorf("kubeflow-backend=trainer on a cluster with both: a %s, stderr %q", kind, stderr)
		}
	}
	if trainer {
		if kind, _ := submit(nil, "--backend", "trainer"); kind != "TrainJob" {
			t.Errorf("--backend trainer rendered a %s", kind)
		}
	}
	if v1 {
		if kind, _ := submit(nil, "--backend", "training-operator"); kind != "PyTorchJob" {
			t.Errorf("--backend training-operator rendered a %s", kind)
		}
	}
}

// TestForeignTrainJob: a TrainJob created without easyai (as kubectl apply
// of a plain manifest would) is listed, got, logged and deleted like the
// foreign v1 jobs; a namespace-scoped user works with TrainJobs and reads
// the runtimes she may.
func TestForeignTrainJob(t *testing.T) {
	t.Parallel()
	c, _ := clients(t)
	needTrainer(t, c)
	ns := c.Namespace(t)
	foreign := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(`
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: by-hand
spec:
  runtimeRef:
    name: torch-distributed
  trainer:
    numNodes: 2
    image: example.com/train:1
    command: [torchrun, train.py]
    env:
    - {name: `+cluster.RunForEnv+`, value: 10m}
`), &foreign.Object); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Dynamic.Resource(trainJobResource).Namespace(ns).Create(cluster.Context(t, time.Minute), foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := trainJobPods(t, c, ns, "by-hand", 2)
	c.PodLog(t, ns, pods["node-1"], nil).Println("foreign node says hi")

	r := easyai.Run(t, "list", "-n", ns, "-o", "name").MustSucceed(t)
	if r.Stdout != "trainjob/by-hand\n" {
		t.Errorf("list -o name: %q", r.Stdout)
	}
	r = easyai.Run(t, "get", "-n", ns, "by-hand").MustSucceed(t)
	for _, want := range []string{"Managed-By:", "Image:      example.com/train:1", "Command:    torchrun train.py", "node-1"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("get of the foreign TrainJob lacks %q:\n%s", want, r.Stdout)
		}
	}
	r = easyai.Run(t, "logs", "-n", ns, "by-hand", "--task", "node-1").MustSucceed(t)
	if r.Stdout != "foreign node says hi\n" && r.Stdout != "[node-1] foreign node says hi\n" {
		t.Errorf("logs --task node-1: %q", r.Stdout)
	}

	// A user whose rights end at the namespace (the example Role).
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	user := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	r = easyai.RunWith(t, user, "runtimes", "-o", "name").MustSucceed(t)
	if !strings.Contains(r.Stderr, "ClusterTrainingRuntimes not shown: you may not list them cluster-wide") {
		t.Errorf("runtimes as a namespace user: stdout %q, stderr %q", r.Stdout, r.Stderr)
	}
	r = easyai.RunWith(t, user, "submit", "trainjob", "--name", "hers", "--runtime", "torch-distributed", "--image", "example.com/train:1",
		"--env", cluster.RunForEnv+"=10m", "--", "torchrun", "train.py").MustSucceed(t)
	if !strings.Contains(r.Stderr, "Runtime: not checked") {
		t.Errorf("submit as a namespace user: no note that the runtime was not checked: %q", r.Stderr)
	}
	r = easyai.RunWith(t, user, "list", "-o", "name").MustSucceed(t)
	got := strings.Fields(r.Stdout)
	sort.Strings(got)
	if strings.Join(got, " ") != "trainjob/by-hand trainjob/hers" || r.Stderr != "" {
		t.Errorf("list as a namespace user: stdout %q, stderr %q", r.Stdout, r.Stderr)
	}
	easyai.RunWith(t, user, "delete", "by-hand", "--yes").MustSucceed(t)
	cluster.Eventually(t, time.Minute, "the foreign TrainJob deleted", func(ctx context.Context) (bool, error) {
		_, err := c.Dynamic.Resource(trainJobResource).Namespace(ns).Get(ctx, "by-hand", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
