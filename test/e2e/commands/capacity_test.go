//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// testNode makes a kwok node of 8 GPUs, 64 cores and 512Gi for this test
// alone: labelled easyai.test/node=NS and tainted so that only pods that
// tolerate it run there. It is deleted when the test ends.
func testNode(t *testing.T, c *cluster.Cluster, ns string) (name, selector string, tolerate []string) {
	t.Helper()
	name = "top-" + ns
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("512Gi"),
		corev1.ResourcePods: resource.MustParse("110"), "nvidia.com/gpu": resource.MustParse("8"),
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
			Labels: map[string]string{"type": "kwok", "kubernetes.io/hostname": name, "easyai.test/node": ns}},
		Spec:   corev1.NodeSpec{Taints: []corev1.Taint{{Key: "easyai.test/top", Value: ns, Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
	ctx := cluster.Context(t, time.Minute)
	if _, err := c.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Kube.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
	})
	return name, "easyai.test/node=" + ns, []string{"--node-selector", "easyai.test/node=" + ns, "--toleration", "easyai.test/top=" + ns + ":NoSchedule"}
}

// topNodeDoc is top node's -o json.
type topNodeDoc struct {
	Items []struct {
		Name   string
		GPUs   struct{ Capacity, Allocated float64 }
		CPU    struct{ Capacity, Allocated float64 }
		Memory struct{ Capacity, Allocated float64 }
		Pods   int
		Jobs   []string
		Usage  *struct{ CPU, Memory float64 }
	}
	LargestFree *struct {
		Name string
		GPUs float64
	}
	Waiting []struct {
		Job        string
		Pods       int
		GPUsPerPod float64
	}
}

// TestTopNodeAddsUpThePodsOfANode: on a node of this test's alone, top
// node's GPUs, CPU and memory allocated are the sums of the requests of the
// pods the API server stored there, its jobs the test's job; a job asking
// more GPUs per pod than any node has free is named on stderr.
func TestTopNodeAddsUpThePodsOfANode(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	easyai.Binary(t)
	ns := c.Namespace(t)
	node, selector, tolerate := testNode(t, c, ns)
	args := append([]string{"submit", "tf", "-n", ns, "--name", "held", "--workers", "2", "--gpus", "3", "--cpu", "2", "--memory", "4Gi",
		"--image", "example.com/train:1"}, tolerate...)
	easyai.Run(t, append(args, "--", "python", "train.py")...).MustSucceed(t)
	easyai.Run(t, "wait", "-n", ns, "held", "--for", "running", "--timeout", "90s").MustSucceed(t)

	// What the pods on the node request, as the API server stored them.
	pods, err := c.Kube.CoreV1().Pods("").List(cluster.Context(t, time.Minute), metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		t.Fatal(err)
	}
	var gpus, cpu, memory float64
	for _, p := range pods.Items {
		for _, ctr := range p.Spec.Containers {
			req := ctr.Resources.Requests
			if _, ok := req["nvidia.com/gpu"]; !ok {
				req = ctr.Resources.Limits
			}
			gpus += quantityOf(req, "nvidia.com/gpu")
			cpu += quantityOf(ctr.Resources.Requests, corev1.ResourceCPU)
			memory += quantityOf(ctr.Resources.Requests, corev1.ResourceMemory)
		}
	}
	if len(pods.Items) != 2 || gpus != 6 || cpu != 4 || memory != 8*(1<<30) {
		t.Fatalf("the node holds %d pods requesting %v GPUs, %v cores, %v bytes; want the job's 2 pods of 3 GPUs, 2 cores, 4Gi", len(pods.Items), gpus, cpu, memory)
	}
	var doc topNodeDoc
	r := easyai.Run(t, "top", "node", "-l", selector, "-o", "json").MustSucceed(t)
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || len(doc.Items) != 1 {
		t.Fatalf("top node -l %s -o json: %v\n%s", selector, err, r.Stdout)
	}
	row := doc.Items[0]
	if row.Name != node || row.GPUs.Capacity != 8 || row.GPUs.Allocated != gpus || row.CPU.Allocated != cpu || row.Memory.Allocated != memory || row.Pods != 2 {
		t.Errorf("top node row %+v, want 6 of 8 GPUs, %v cores, %v bytes, 2 pods", row, cpu, memory)
	}
	if want := ns + "/tf/held"; len(row.Jobs) != 1 || row.Jobs[0] != want {
		t.Errorf("jobs on the node %q, want [%s]", row.Jobs, want)
	}
	// The local cluster serves no metrics API: no usage, and no error.
	if row.Usage != nil {
		t.Errorf("usage %+v without a metrics API", row.Usage)
	}
	r = easyai.Run(t, "top", "node", "-l", selector).MustSucceed(t)
	if !strings.Contains(r.Stdout, node+"\t-\t6/8\t2\t4/64\t8.0 GiB/512.0 GiB\t2\t-\t-\t"+ns+"/tf/held\n") {
		t.Errorf("top node's row:\n%s", r.Stdout)
	}

	// 16 GPUs in one pod: no node has them.
	args = append([]string{"submit", "tf", "-n", ns, "--name", "huge", "--gpus", "16", "--image", "example.com/train:1"}, tolerate...)
	easyai.Run(t, append(args, "--", "python", "train.py")...).MustSucceed(t)
	want := ns + "/tf/huge: 1 pod waiting for a node, asking 16 GPUs each; no node has that many free."
	cluster.Eventually(t, time.Minute, "top node to name the job that cannot be placed", func(context.Context) (bool, error) {
		r = easyai.Run(t, "top", "node").MustSucceed(t)
		return strings.Contains(r.Stderr, want), nil
	})
	if !strings.Contains(r.Stderr, "Largest free block: ") {
		t.Errorf("top node's stderr:\n%s", r.Stderr)
	}
}

func quantityOf(list corev1.ResourceList, name corev1.ResourceName) float64 {
	q, ok := list[name]
	if !ok {
		return 0
	}
	return q.AsApproximateFloat64()
}

// TestTopJobCountsGPUHours: a running job holds its GPUs; once it ended,
// --since counts its GPU-hours from its start and end times, as the job's
// status records them. A user whose rights end at the namespace sees the
// same.
func TestTopJobCountsGPUHours(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	easyai.Binary(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	easyai.RunWith(t, alice, "submit", "tf", "--name", "hours", "--workers", "2", "--gpus", "1", "--image", "example.com/train:1", "--", "python", "train.py").MustSucceed(t)
	easyai.RunWith(t, alice, "wait", "hours", "--for", "running", "--timeout", "90s").MustSucceed(t)

	type usageDoc struct {
		Kind  string
		Items []struct {
			Name, State    string
			GPUsHeld       float64
			GPUHours       float64
			RunningSeconds int64
		}
		Total struct{ GPUsHeld, GPUHours float64 }
	}
	var doc usageDoc
	r := easyai.RunWith(t, alice, "top", "job", "-o", "json").MustSucceed(t)
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || doc.Kind != "JobUsageList" || len(doc.Items) != 1 || doc.Items[0].GPUsHeld != 2 || doc.Total.GPUsHeld != 2 {
		t.Fatalf("top job -o json of a running job: %v\n%s", err, r.Stdout)
	}
	r = easyai.RunWith(t, alice, "top", "job").MustSucceed(t)
	if !strings.HasPrefix(r.Stdout, "tf/hours\talice\tRunning\t2\t") || !strings.Contains(r.Stdout, "\t-\t-\n") {
		t.Errorf("top job:\n%s", r.Stdout)
	}

	for _, p := range []string{"hours-worker-0", "hours-worker-1"} {
		c.EndPod(t, ns, p, 0)
	}
	easyai.RunWith(t, alice, "wait", "hours", "--timeout", "90s").MustSucceed(t)
	obj, err := c.Dynamic.Resource(schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: "tfjobs"}).Namespace(ns).
		Get(cluster.Context(t, time.Minute), "hours", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start, end := statusTime(t, obj, "startTime"), statusTime(t, obj, "completionTime")
	wantHours := 2 * end.Sub(start).Hours()

	r = easyai.RunWith(t, alice, "top", "job")
	if r.Code != 0 || r.Stdout != "" || !strings.Contains(r.Stderr, "No running jobs in namespace "+ns) {
		t.Errorf("top job once the job ended: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	doc = usageDoc{}
	r = easyai.RunWith(t, alice, "top", "job", "--since", "7d", "-o", "json").MustSucceed(t)
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || len(doc.Items) != 1 {
		t.Fatalf("top job --since 7d -o json: %v\n%s", err, r.Stdout)
	}
	got := doc.Items[0]
	if got.State != "Succeeded" || got.GPUsHeld != 0 || math.Abs(got.GPUHours-wantHours) > 1e-9 || got.RunningSeconds != int64(end.Sub(start)/time.Second) {
		t.Errorf("ended job %+v, want %v GPU-hours (2 GPUs from %s to %s)", got, wantHours, start, end)
	}

	// -A needs every namespace: alice may list none, so one line says so.
	r = easyai.RunWith(t, alice, "top", "job", "-A")
	if r.Code != 1 || !strings.Contains(r.Stderr, "forbidden") {
		t.Errorf("top job -A as alice: exit %d, %q", r.Code, r.Stderr)
	}
}

func statusTime(t *testing.T, obj *unstructured.Unstructured, field string) time.Time {
	t.Helper()
	s, _, _ := unstructured.NestedString(obj.Object, "status", field)
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatalf("status.%s %q: %v", field, s, err)
	}
	return v
}

var volcanoQueues = schema.GroupVersionResource{Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "queues"}

// TestQueueCapability: a queue whose capability is 2 GPUs holds a job of 2
// GPUs; a second job in it stays pending, queue get names it with the
// scheduler's reason and shows allocated against capability. A user may
// read queues with examples/rbac/easyai-scheduling-reader.yaml, and
// without it gets one line.
func TestQueueCapability(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	easyai.Binary(t)
	ns := c.Namespace(t)
	queue := "q-" + ns
	q := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
		"metadata": map[string]any{"name": queue},
		"spec": map[string]any{"weight": int64(1), "reclaimable": false,
			"capability": map[string]any{"nvidia.com/gpu": "2", "cpu": "100", "memory": "1000Gi"}},
	}}
	ctx := cluster.Context(t, time.Minute)
	if _, err := c.Dynamic.Resource(volcanoQueues).Create(ctx, q, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Dynamic.Resource(volcanoQueues).Delete(ctx, queue, metav1.DeleteOptions{})
	})
	cluster.Eventually(t, time.Minute, "the queue to be open", func(context.Context) (bool, error) {
		r := easyai.Run(t, "queue", "list")
		return strings.Contains(r.Stdout, queue+"\tOpen\t1\t0/2\t"), nil
	})
	submitVolcano(t, ns, "fits", "--workers", "2", "--gpus", "1", "--cpu", "1", "--memory", "1Gi", "--queue", queue).MustSucceed(t)
	easyai.Run(t, "wait", "-n", ns, "volcano/fits", "--for", "running", "--timeout", "90s").MustSucceed(t)
	submitVolcano(t, ns, "waits", "--workers", "1", "--gpus", "1", "--cpu", "1", "--memory", "1Gi", "--queue", queue).MustSucceed(t)

	type queueDoc struct {
		Kind       string
		Capability map[string]string
		Allocated  map[string]string
		PodGroups  []struct {
			Name, Job, Phase, Reason, Message string
		}
	}
	var doc queueDoc
	cluster.Eventually(t, 90*time.Second, "queue get to show the second job waiting with a reason", func(context.Context) (bool, error) {
		r := easyai.Run(t, "queue", "get", queue, "-n", ns, "-o", "json").MustSucceed(t)
		doc = queueDoc{}
		if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
			return false, err
		}
		waiting := false
		for _, pg := range doc.PodGroups {
			if pg.Job == "Job/waits" && pg.Phase != "Running" && pg.Reason != "" {
				waiting = true
			}
		}
		return waiting && doc.Allocated["nvidia.com/gpu"] == "2", nil
	})
	if doc.Kind != "Queue" || doc.Capability["nvidia.com/gpu"] != "2" || len(doc.PodGroups) != 2 {
		t.Errorf("queue get -o json: %+v", doc)
	}
	r := easyai.Run(t, "queue", "get", queue, "-n", ns).MustSucceed(t)
	for _, want := range []string{"Name:     " + queue, "State:    Open", "nvidia.com/gpu   2 ", "Job/fits", "Job/waits"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("queue get lacks %q:\n%s", want, r.Stdout)
		}
	}
	if r := easyai.Run(t, "queue", "list").MustSucceed(t); !strings.Contains(r.Stdout, queue+"\tOpen\t1\t2/2\t") {
		t.Errorf("queue list:\n%s", r.Stdout)
	}
	if got := easyai.Run(t, "get", "-n", ns, "volcano/waits").MustSucceed(t).Stdout; !strings.Contains(got, "Status:     Pending") {
		t.Errorf("get of the job beyond the queue's capability:\n%s", got)
	}
	if r := easyai.Run(t, "queue", "get", "nope-"+ns); r.Code != 3 || !strings.Contains(r.Stderr, `no Volcano queue "nope-`+ns+`"`) || !strings.Contains(r.Stderr, queue) {
		t.Errorf("queue get of no queue: exit %d, %q", r.Code, r.Stderr)
	}

	// A user of the namespace: no right to read queues, then the example's.
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	user := "queue-" + ns
	// The example's Role, bound to this test's user (alice's bindings are
	// every test's, and alice may not read queues).
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "easyai-jobs-" + user},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "easyai-jobs"},
		Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}}}
	if _, err := c.Kube.RbacV1().RoleBindings(ns).Create(cluster.Context(t, time.Minute), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kubeconfig := []string{"KUBECONFIG=" + c.UserKubeconfig(t, user, ns)}
	r = easyai.RunWith(t, kubeconfig, "queue", "list")
	if r.Code != 1 || !strings.Contains(r.Stderr, "Error: cannot list queues: forbidden") {
		t.Errorf("queue list without the right: exit %d, %q", r.Code, r.Stderr)
	}
	applyClusterExample(t, c, "rbac/easyai-scheduling-reader.yaml", user)
	cluster.Eventually(t, 30*time.Second, "the user to read queues", func(context.Context) (bool, error) {
		return easyai.RunWith(t, kubeconfig, "queue", "list").Code == 0, nil
	})
	if r := easyai.RunWith(t, kubeconfig, "queue", "get", queue).MustSucceed(t); !strings.Contains(r.Stdout, "Job/waits") {
		t.Errorf("queue get as the user:\n%s\n%s", r.Stdout, r.Stderr)
	}
}

// applyClusterExample creates the cluster-wide objects of an example for
// user (in place of alice), each name suffixed with the user's, deleted
// when the test ends.
func applyClusterExample(t *testing.T, c *cluster.Cluster, file, user string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	ctx := cluster.Context(t, time.Minute)
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(string(data)), 4096)
	var role string
	for {
		var obj unstructured.Unstructured
		if err := dec.Decode(&obj.Object); err != nil {
			break
		}
		gvk := obj.GroupVersionKind()
		gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"}
		obj.SetName(obj.GetName() + "-" + user)
		switch gvk.Kind {
		case "ClusterRole":
			role = obj.GetName()
		case "ClusterRoleBinding":
			_ = unstructured.SetNestedField(obj.Object, role, "roleRef", "name")
			_ = unstructured.SetNestedSlice(obj.Object, []any{map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}}, "subjects")
		}
		if _, err := c.Dynamic.Resource(gvr).Create(ctx, &obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: creating %s %s: %v", file, gvk.Kind, obj.GetName(), err)
		}
		name := obj.GetName()
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = c.Dynamic.Resource(gvr).Delete(ctx, name, metav1.DeleteOptions{})
		})
	}
}

// TestPreemptibleIsTheConfiguredPriorityClass: --preemptible runs the job
// at the PriorityClass the configuration names; without one named it exits
// 2 and creates nothing.
func TestPreemptibleIsTheConfiguredPriorityClass(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	easyai.Binary(t)
	ns := c.Namespace(t)
	low := "low-" + ns
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: low}, Value: -10, Description: "e2e: preemptible jobs"}
	ctx := cluster.Context(t, time.Minute)
	if _, err := c.Kube.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Kube.SchedulingV1().PriorityClasses().Delete(ctx, low, metav1.DeleteOptions{})
	})
	r := easyai.Run(t, "submit", "tf", "-n", ns, "--name", "spot", "--preemptible", "--image", "img", "--", "x")
	if r.Code != 2 || !strings.Contains(r.Stderr, "--preemptible: the configuration names no low PriorityClass") {
		t.Errorf("--preemptible without a class: exit %d, %q", r.Code, r.Stderr)
	}
	env := []string{"EASYAI_PREEMPTIBLE_PRIORITY_CLASS=" + low}
	easyai.RunWith(t, env, "submit", "tf", "-n", ns, "--name", "spot", "--preemptible", "--image", "img", "--", "x").MustSucceed(t)
	if p := podOf(t, c, ns, "spot-worker-0"); p.Spec.PriorityClassName != low || p.Spec.Priority == nil || *p.Spec.Priority != -10 {
		t.Errorf("pod priority class %q (%v), want %s (-10)", p.Spec.PriorityClassName, p.Spec.Priority, low)
	}
	// A user of the namespace, who may not read PriorityClasses: told in
	// one line that the class was not checked; the job runs at it.
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns), "EASYAI_PREEMPTIBLE_PRIORITY_CLASS=" + low}
	r = easyai.RunWith(t, alice, "submit", "tf", "--name", "spot-alice", "--preemptible", "--image", "img", "--", "x")
	if r.Code != 0 || !strings.Contains(r.Stderr, "PriorityClass "+low+" not checked") {
		t.Errorf("--preemptible as a namespace user: exit %d, %q", r.Code, r.Stderr)
	}
	if p := podOf(t, c, ns, "spot-alice-worker-0"); p.Spec.PriorityClassName != low {
		t.Errorf("alice's pod priority class %q, want %s", p.Spec.PriorityClassName, low)
	}
	r = easyai.RunWith(t, []string{"EASYAI_PREEMPTIBLE_PRIORITY_CLASS=nope-" + ns}, "submit", "tf", "-n", ns, "--name", "spot2", "--preemptible", "--image", "img", "--", "x")
	if r.Code != 2 || !strings.Contains(r.Stderr, `the cluster has no PriorityClass "nope-`+ns+`"`) || !strings.Contains(r.Stderr, low) {
		t.Errorf("--preemptible of a class the cluster has not: exit %d, %q", r.Code, r.Stderr)
	}
}
