//go:build e2e

package commands

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	crdResource        = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	colossalAIResource = schema.GroupVersionResource{Group: "batch.tensorstack.dev", Version: "v1beta1", Resource: "colossalaijobs"}
	volcanoJobResource = schema.GroupVersionResource{Group: "batch.volcano.sh", Version: "v1alpha1", Resource: "jobs"}
)

// installColossalAICRD installs the project's own ColossalAIJob CRD
// (testdata/colossalai-crd.yaml: T9k's is not public) until the test ends.
// Other tests name their backend, so its presence changes none of them.
func installColossalAICRD(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "colossalai-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &obj.Object); err != nil {
		t.Fatal(err)
	}
	body, err := obj.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	ctx := cluster.Context(t, time.Minute)
	force := true
	if _, err := c.Dynamic.Resource(crdResource).Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "easyai-e2e", Force: force}); err != nil {
		t.Fatalf("installing the ColossalAIJob CRD: %v\n%s", err, body)
	}
	t.Cleanup(func() {
		ctx := cluster.Context(t, time.Minute)
		if err := c.Dynamic.Resource(crdResource).Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("removing the ColossalAIJob CRD: %v", err)
		}
	})
	cluster.Eventually(t, 30*time.Second, "the ColossalAIJob CRD established", func(ctx context.Context) (bool, error) {
		got, err := c.Dynamic.Resource(crdResource).Get(ctx, obj.GetName(), metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, x := range conds {
			m, _ := x.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				_, err := c.Dynamic.Resource(colossalAIResource).Namespace("default").List(ctx, metav1.ListOptions{Limit: 1})
				return err == nil, nil
			}
		}
		return false, nil
	})
}

// writeColossalAIStatus writes status through the status subresource, as
// T9k's controller would.
func writeColossalAIStatus(t *testing.T, c *cluster.Cluster, ns, name string, status map[string]any) {
	t.Helper()
	ctx := cluster.Context(t, 30*time.Second)
	obj, err := c.Dynamic.Resource(colossalAIResource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obj.Object["status"] = status
	if _, err := c.Dynamic.Resource(colossalAIResource).Namespace(ns).UpdateStatus(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("writing the status of %s: %v", name, err)
	}
}

// t9kPod makes a pod as T9k's controller would name and label it.
func t9kPod(t *testing.T, c *cluster.Cluster, ns, job, name string) {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"tensorstack.dev/owner-name": job}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "example.com/colossalai:1"}}},
	}
	if _, err := c.Kube.CoreV1().Pods(ns).Create(cluster.Context(t, 30*time.Second), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestColossalAIOnT9k: with the ColossalAIJob CRD installed (the project's
// own schema; no controller), submit renders a ColossalAIJob the API server
// accepts, a bad value is rejected by the schema, auto picks T9k, and get,
// list and logs read back what a controller writes: status through the
// status subresource, pods named and labelled as T9k's. A Succeeded job
// warns that the launcher exits 0 even when training failed.
func TestColossalAIOnT9k(t *testing.T) {
	t.Parallel()
	c, _ := clients(t)
	installColossalAICRD(t, c)
	ns := c.Namespace(t)
	name := "cai"
	ref := "colossalai/" + name
	submit := func(args ...string) easyai.Result {
		all := append([]string{"submit", "colossalai", "-n", ns, "--name", name, "--image", "example.com/colossalai:1",
			"--workers", "2", "--gpus", "1"}, args...)
		return easyai.Run(t, append(all, "--", "train.py", "--epochs", "1")...)
	}

	r := submit("--backend", "auto", "--dry-run=server", "--debug").MustSucceed(t)
	if !strings.Contains(r.Stdout, "kind: ColossalAIJob") || !strings.Contains(r.Stdout, "enabled: true") || !strings.Contains(r.Stderr, "Backend: t9k") {
		t.Errorf("server dry run with --backend auto:\nstdout %s\nstderr %s", r.Stdout, r.Stderr)
	}
	if bad := submit("--backend", "t9k", "--dry-run=server", "--queue", "Not_A_Queue"); bad.Code == 0 || !strings.Contains(bad.Stderr, "queue") {
		t.Errorf("a queue the schema rejects: exit %d\n%s", bad.Code, bad.Stderr)
	}
	if _, err := c.Dynamic.Resource(colossalAIResource).Namespace(ns).Get(cluster.Context(t, 30*time.Second), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a dry run created the job: %v", err)
	}

	r = submit("--backend", "t9k", "-o", "name").MustSucceed(t)
	if got := strings.TrimSpace(r.Stdout); got != ref {
		t.Errorf("submit -o name printed %q, want %s", got, ref)
	}
	if j := getKind(t, ns, ref); j.JobKind != "colossalai" || j.Status.State != "Pending" || len(j.Replicas) != 3 {
		t.Errorf("get before any controller: %+v", j)
	}

	c.PodLog(t, ns, name+"-launcher", nil).Println("colossalai run on 2 nodes")
	t9kPod(t, c, ns, name, name+"-launcher")
	t9kPod(t, c, ns, name, name+"-worker-0")
	c.WaitPodPhase(t, ns, name+"-launcher", "Running", timeout)
	c.WaitPodPhase(t, ns, name+"-worker-0", "Running", timeout)
	now := time.Now().UTC().Format(time.RFC3339)
	running := map[string]any{
		"phase": "Running",
		"conditions": []any{
			map[string]any{"type": "Initialized", "status": "True", "reason": "-", "message": "The job has been initialized successfully.", "lastTransitionTime": now},
			map[string]any{"type": "Running", "status": "True", "reason": "-", "message": "All pods are running normally.", "lastTransitionTime": now},
		},
		"tasks": []any{
			map[string]any{"type": "launcher", "restartCount": int64(0), "status": []any{map[string]any{"phase": "Running", "name": name + "-launcher", "containers": []any{}}}},
			map[string]any{"type": "worker", "restartCount": int64(0), "status": []any{
				map[string]any{"phase": "Running", "name": name + "-worker-0", "containers": []any{}},
				map[string]any{"phase": "Pending", "name": name + "-worker-1", "containers": []any{}}}},
		},
		"aggregate": map[string]any{"creating": int64(0), "deleted": int64(0), "failed": int64(0), "pending": int64(1), "running": int64(2), "succeeded": int64(0), "unknown": int64(0)},
	}
	writeColossalAIStatus(t, c, ns, name, running)

	row := rows(t, "-n", ns)[name]
	if len(row) < 5 || row[1] != "colossalai" || row[2] != "Running" || row[3] != "2/3" || row[4] != "2" {
		t.Errorf("list row %q, want colossalai Running 2/3 with 2 GPUs", row)
	}
	j := getKind(t, ns, ref)
	var tasks []string
	for _, rep := range j.Replicas {
		tasks = append(tasks, rep.Task+"="+rep.Pod+":"+rep.Phase)
	}
	want := []string{"launcher-0=" + name + "-launcher:Running", "worker-0=" + name + "-worker-0:Running", "worker-1=:Pending"}
	if j.Status.State != "Running" || strings.Join(tasks, " ") != strings.Join(want, " ") {
		t.Errorf("get: state %s, replicas %v; want Running %v", j.Status.State, tasks, want)
	}
	if r := easyai.Run(t, "logs", "-n", ns, ref, "--task", "launcher-0").MustSucceed(t); !strings.Contains(r.Stdout, "colossalai run on 2 nodes") {
		t.Errorf("logs of the launcher: %q", r.Stdout)
	}

	succeeded := running
	succeeded["phase"] = "Succeeded"
	succeeded["conditions"] = append(running["conditions"].([]any),
		map[string]any{"type": "Completed", "status": "True", "reason": "Succeeded", "message": "The job has finished.", "lastTransitionTime": now})
	writeColossalAIStatus(t, c, ns, name, succeeded)
	out := easyai.Run(t, "get", "-n", ns, ref).MustSucceed(t).Stdout
	if !strings.Contains(out, "Succeeded") || !strings.Contains(out, "which it also does when the training failed") ||
		!strings.Contains(out, "easyai logs colossalai/"+name+" --task launcher-0") {
		t.Errorf("get of a Succeeded ColossalAIJob does not warn about the launcher's exit code:\n%s", out)
	}

	easyai.Run(t, "delete", "-n", ns, ref, "--yes").MustSucceed(t)
	cluster.Eventually(t, timeout, ref+" gone", func(ctx context.Context) (bool, error) {
		_, err := c.Dynamic.Resource(colossalAIResource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// TestColossalAIOnVolcanoRunsLauncherAndWorkersToSuccess: without T9k, a
// ColossalAI job is a Volcano Job of a launcher and sshd workers (kwok runs
// no process: the launcher's wait for sshd is checked by the golden file);
// every verb works on it as volcano/NAME, and the launcher ending with exit
// code 0 completes the job and ends the workers.
func TestColossalAIOnVolcanoRunsLauncherAndWorkersToSuccess(t *testing.T) {
	t.Parallel()
	c, _ := clients(t)
	ns := c.Namespace(t)
	name := "cai-vc"
	ref := "volcano/" + name
	tasks := []string{"launcher-0", "worker-0", "worker-1"}
	for _, task := range tasks {
		c.PodLog(t, ns, name+"-"+task, nil).Println("hello from " + task)
	}
	execDir := c.PodExecDir(t, ns, name+"-worker-1")
	if err := os.WriteFile(filepath.Join(execDir, "whoami.txt"), []byte("I am worker-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	r := easyai.Run(t, "submit", "colossalai", "--backend", "volcano", "-n", ns, "--name", name, "--image", "example.com/colossalai:1",
		"--workers", "2", "--gpus", "1", "--nproc-per-node", "1", "-o", "name", "--", "train.py", "--epochs", "1").MustSucceed(t)
	if got := strings.TrimSpace(r.Stdout); got != ref {
		t.Errorf("submit -o name printed %q, want %s", got, ref)
	}
	easyai.Run(t, "wait", "-n", ns, ref, "--for", "running", "--timeout", "90s").MustSucceed(t)

	ctx := cluster.Context(t, time.Minute)
	vj, err := c.Dynamic.Resource(volcanoJobResource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if vj.GetLabels()["easyai.io/kind"] != "colossalai" {
		t.Errorf("the Volcano Job's labels %v: want easyai.io/kind=colossalai", vj.GetLabels())
	}
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/job-name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	var podNames []string
	for _, p := range pods.Items {
		podNames = append(podNames, p.Name)
		if p.Labels["easyai.io/kind"] != "colossalai" {
			t.Errorf("pod %s: label easyai.io/kind=%q, want colossalai", p.Name, p.Labels["easyai.io/kind"])
		}
		if gpus := p.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]; (strings.Contains(p.Name, "worker") && gpus.Value() != 1) || (strings.Contains(p.Name, "launcher") && gpus.Value() != 0) {
			t.Errorf("pod %s asks for %d GPUs", p.Name, gpus.Value())
		}
	}
	sort.Strings(podNames)
	if want := name + "-launcher-0 " + name + "-worker-0 " + name + "-worker-1"; strings.Join(podNames, " ") != want {
		t.Errorf("pods %v, want %s", podNames, want)
	}

	row := rows(t, "-n", ns)[name]
	if len(row) < 4 || row[1] != "volcano" || row[2] != "Running" || row[3] != "3/3" {
		t.Errorf("list row %q, want volcano Running 3/3", row)
	}
	j := getKind(t, ns, ref)
	var got []string
	for _, rep := range j.Replicas {
		got = append(got, rep.Task+"="+rep.Pod+":"+rep.Phase)
	}
	var want []string
	for _, task := range tasks {
		want = append(want, task+"="+name+"-"+task+":Running")
	}
	if j.Status.State != "Running" || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("get: state %s, replicas %v; want Running %v", j.Status.State, got, want)
	}
	r = easyai.Run(t, "logs", "-n", ns, ref).MustSucceed(t)
	var wantLogs []string
	for _, task := range tasks {
		wantLogs = append(wantLogs, fmt.Sprintf("[%s] hello from %s\n", task, task))
	}
	if r.Stdout != strings.Join(wantLogs, "") {
		t.Errorf("logs:\n%s\nwant:\n%s", r.Stdout, strings.Join(wantLogs, ""))
	}
	if r := easyai.Run(t, "exec", "-n", ns, ref, "--task", "worker-1", "--", "cat", "whoami.txt").MustSucceed(t); r.Stdout != "I am worker-1\n" {
		t.Errorf("exec in worker-1 printed %q", r.Stdout)
	}

	// The launcher ends; the workers (sshd) never do: the policy completes the job.
	c.EndPod(t, ns, name+"-launcher-0", 0)
	if r := easyai.Run(t, "wait", "-n", ns, ref, "--for", "succeeded", "--timeout", "90s"); r.Code != 0 {
		t.Fatalf("wait --for succeeded after the launcher ended: exit %d\n%s", r.Code, r.Stderr)
	}
	cluster.Eventually(t, timeout, "the workers ended with the launcher", func(ctx context.Context) (bool, error) {
		for _, w := range []string{"worker-0", "worker-1"} {
			p, err := c.Kube.CoreV1().Pods(ns).Get(ctx, name+"-"+w, metav1.GetOptions{})
			if err == nil && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
				return false, nil
			}
		}
		return true, nil
	})

	easyai.Run(t, "delete", "-n", ns, ref, "--yes").MustSucceed(t)
	cluster.Eventually(t, timeout, ref+" gone", func(ctx context.Context) (bool, error) {
		_, err := c.Dynamic.Resource(volcanoJobResource).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
