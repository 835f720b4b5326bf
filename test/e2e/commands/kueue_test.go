//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

func kueueResource(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: resource}
}

// kueueQueues makes, for namespace ns, a ClusterQueue of gpus GPUs (flavor
// e2e-gpu) that admits from ns only, and the LocalQueue lq in ns; the
// ClusterQueue and the WorkloadPriorityClass urgent are deleted at the end.
func kueueQueues(t *testing.T, c *cluster.Cluster, ns string, gpus int) string {
	return kueueQueuesNamed(t, c, ns, "lq", "cq-"+ns, gpus)
}

// kueueQueuesNamed is kueueQueues with the LocalQueue lq on the
// ClusterQueue cq.
func kueueQueuesNamed(t *testing.T, c *cluster.Cluster, ns, lq, cq string, gpus int) string {
	t.Helper()
	ctx := cluster.Context(t, time.Minute)
	apply := func(gvr schema.GroupVersionResource, namespace, doc string) {
		t.Helper()
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		_, err := c.Dynamic.Resource(gvr).Namespace(namespace).Create(ctx, u, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	apply(kueueResource("resourceflavors"), "", `{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: e2e-gpu}}`)
	apply(kueueResource("workloadpriorityclasses"), "", `{apiVersion: kueue.x-k8s.io/v1beta2, kind: WorkloadPriorityClass, metadata: {name: e2e-urgent}, value: 1000}`)
	apply(kueueResource("clusterqueues"), "", `
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: `+cq+`}
spec:
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: `+ns+`}}
  preemption: {withinClusterQueue: LowerPriority}
  resourceGroups:
  - coveredResources: [cpu, memory, nvidia.com/gpu]
    flavors:
    - name: e2e-gpu
      resources:
      - {name: cpu, nominalQuota: 64}
      - {name: memory, nominalQuota: 512Gi}
      - {name: nvidia.com/gpu, nominalQuota: `+itoa(gpus)+`}
`)
	t.Cleanup(func() {
		_ = c.Dynamic.Resource(kueueResource("clusterqueues")).Delete(context.Background(), cq, metav1.DeleteOptions{})
	})
	apply(kueueResource("localqueues"), ns, `{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: `+lq+`}, spec: {clusterQueue: `+cq+`}}`)
	return cq
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestKueueQueuesAdmitsAndPreempts: on a cluster with the real Kueue
// controller (EASYAI_CLUSTER_COMPONENTS naming kueue; hack/test.sh sets
// EASYAI_E2E_KUEUE=1, which makes a cluster without it a failure), as the
// namespace's user of examples/rbac and as the admin: a ClusterQueue of 8
// GPUs and a LocalQueue; three jobs of 4 GPUs each with --queue: two
// admitted, the third queued, get saying its place and the quota it waits
// for; deleting one admits it, and wait --for admitted returns then. A job
// of a WorkloadPriorityClass preempts them, and get of one says by what. A
// PyTorchJob and a TrainJob wait in the LocalQueue too; --queue naming no
// LocalQueue exits 2 listing those there are.
func TestKueueQueuesAdmitsAndPreempts(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	if !served(t, c, kueueResource("localqueues")) {
		if os.Getenv("EASYAI_E2E_KUEUE") == "1" {
			t.Fatal("EASYAI_E2E_KUEUE=1, but the cluster serves no kueue.x-k8s.io/v1beta2 localqueues (EASYAI_CLUSTER_COMPONENTS without kueue?)")
		}
		t.Skip("the cluster runs no Kueue (EASYAI_CLUSTER_COMPONENTS=...,kueue)")
	}
	for who, env := range map[string]func(ns string) []string{
		"alice": func(ns string) []string { return []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)} },
		"admin": func(string) []string { return nil },
	} {
		t.Run(who, func(t *testing.T) {
			t.Parallel()
			ns := c.ShortNamespace(t)
			applyExample(t, c, "rbac/easyai-user.yaml", ns)
			kueueQueues(t, c, ns, 8)
			run := func(args ...string) easyai.Result {
				t.Helper()
				return easyai.RunWith(t, env(ns), append([]string{"-n", ns}, args...)...)
			}
			admitted, queued := kueueAdmission(t, run, ns, who == "admin")
			kueuePreemption(t, run, admitted, queued)
			kueueKinds(t, c, ns, run)
		})
	}
}

// jobDoc is "get -o json", the fields the tests read.
type jobDoc struct {
	Status    struct{ State string }
	Admission *struct {
		State, LocalQueue, ClusterQueue, WaitingFor, Evicted string
		Position                                             int
	}
}

// admission is the state of the job's admission ("" : none).
func admission(t *testing.T, run func(...string) easyai.Result, job string) string {
	t.Helper()
	if a := kueueJob(t, run, job).Admission; a != nil {
		return a.State
	}
	return ""
}

func kueueJob(t *testing.T, run func(...string) easyai.Result, job string) jobDoc {
	t.Helper()
	var d jobDoc
	if err := json.Unmarshal([]byte(run("get", job, "-o", "json").MustSucceed(t).Stdout), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

func kueueAdmission(t *testing.T, run func(...string) easyai.Result, ns string, admin bool) (admitted, queued string) {
	// submit --wait says when the job was admitted, apart from the wait
	// for its pods.
	r := run("submit", "tf", "--name", "quick", "--workers", "1", "--gpus", "1", "--image", "example.com/train:1", "--queue", "lq",
		"--env", cluster.RunForEnv+"=3s", "--env", cluster.ExitCodeEnv+"=0", "--wait", "--timeout", "2m", "--", "python", "train.py")
	if r.Code != 0 || !strings.Contains(r.Stderr, "tf/quick admitted after") || !strings.Contains(r.Stderr, "tf/quick Succeeded after") {
		t.Errorf("submit --wait of a job of a LocalQueue: exit %d, stderr %q", r.Code, r.Stderr)
	}
	run("delete", "tf/quick", "--yes").MustSucceed(t)
	for _, name := range []string{"k1", "k2", "k3"} {
		run("submit", "tf", "--name", name, "--workers", "2", "--gpus", "2", "--image", "example.com/train:1", "--queue", "lq", "--", "python", "train.py").MustSucceed(t)
	}
	// Two of them are admitted, which two is Kueue's to choose (made in the
	// same second, they are equal in line).
	var first string
	cluster.Eventually(t, time.Minute, "two jobs admitted, one queued", func(context.Context) (bool, error) {
		var in, out []string
		for _, name := range []string{"tf/k1", "tf/k2", "tf/k3"} {
			switch a := kueueJob(t, run, name).Admission; {
			case a != nil && a.State == "Admitted":
				in = append(in, name)
			case a != nil && a.State == "Queued" && a.WaitingFor != "":
				out = append(out, name)
			}
		}
		if len(in) == 2 && len(out) == 1 {
			first, admitted, queued = in[0], in[1], out[0]
			return true, nil
		}
		return false, nil
	})
	d := kueueJob(t, run, queued)
	if d.Status.State != "Queued" || d.Admission.Position != 1 || d.Admission.LocalQueue != "lq" ||
		d.Admission.WaitingFor != "nvidia.com/gpu: 4 requested, 0 free in flavor e2e-gpu" {
		t.Errorf("get %s -o json: %+v %+v", queued, d.Status, *d.Admission)
	}
	if out := run("get", queued).MustSucceed(t).Stdout; !strings.Contains(out, "Admission:  Queued (1st in lq, waiting for nvidia.com/gpu: 4 requested, 0 free in flavor e2e-gpu)") {
		t.Errorf("get %s:\n%s", queued, out)
	}
	if out := run("list").MustSucceed(t).Stdout; !strings.Contains(out, strings.TrimPrefix(queued, "tf/")+"\ttf\tQueued (1st in lq, waiting for") {
		t.Errorf("list:\n%s", out)
	}
	if out := run("list", "--status", "queued", "-o", "name").MustSucceed(t).Stdout; out != queued+"\n" {
		t.Errorf("list --status queued: %q", out)
	}
	// (Kueue counts a LocalQueue's workloads in its status a moment later.)
	r = easyai.Result{}
	cluster.Eventually(t, time.Minute, "queue list counting 1 pending, 2 admitted", func(context.Context) (bool, error) {
		r = run("queue", "list")
		return r.Code == 0 && strings.HasPrefix(r.Stdout, "lq\tcq-") && strings.Contains(r.Stdout, "\ttrue\t1\t2\t8/"), nil
	})
	// The ClusterQueue is cluster-wide: alice may not read it.
	if quota := strings.Contains(r.Stdout, "NOMINAL"); quota != admin || (!admin && !strings.Contains(r.Stderr, "quotas not shown (you may not read clusterqueues.kueue.x-k8s.io")) {
		t.Errorf("queue list as admin=%t: quotas shown %t; stdout %q, stderr %q", admin, quota, r.Stdout, r.Stderr)
	}
	if out := run("doctor").MustSucceed(t).Stdout; !regexp.MustCompile(`(?m)^kueue\s+localqueues\.kueue\.x-k8s\.io/v1beta2\s+yes\s+lq\s*$`).MatchString(out) ||
		!strings.Contains(out, "--queue names a Kueue LocalQueue here") {
		t.Errorf("doctor:\n%s", out)
	}
	// top job counts the LocalQueue's GPUs, and its ClusterQueue's where
	// readable; top node (the admin's: it reads every node) each
	// ClusterQueue's.
	wantCQ := "-"
	if admin {
		wantCQ = "8/8"
	}
	if out := run("top", "job").MustSucceed(t).Stdout; !strings.Contains(out, "Kueue LocalQueues:") || !regexp.MustCompile(`(?m)^  lq\s+cq-\S+\s+8\s+1\s+2\s+`+regexp.QuoteMeta(wantCQ)+`\s*$`).MatchString(out) {
		t.Errorf("top job:\n%s", out)
	}
	if admin {
		if out := run("top", "node").MustSucceed(t).Stdout; !regexp.MustCompile(`(?m)^  cq-` + regexp.QuoteMeta(ns) + `\s+-\s+8/8\s+0\s+1\s+2\s*$`).MatchString(out) {
			t.Errorf("top node:\n%s", out)
		}
	}
	if out := run("queue", "get", "lq").MustSucceed(t).Stdout; !strings.Contains(out, "  1   "+queued+"   0          Queued (1st in lq") {
		t.Errorf("queue get lq:\n%s", out)
	}

	// Deleting an admitted job admits the queued one: wait --for admitted
	// returns then.
	waited := make(chan easyai.Result, 1)
	go func() { waited <- run("wait", queued, "--for", "admitted", "--timeout", "2m") }()
	time.Sleep(2 * time.Second)
	run("delete", first, "--yes").MustSucceed(t)
	w := <-waited
	if w.Code != 0 || !strings.Contains(w.Stderr, queued+" admitted after") {
		t.Errorf("wait --for admitted: exit %d, stderr %q", w.Code, w.Stderr)
	}
	if a := kueueJob(t, run, queued).Admission; a == nil || a.State != "Admitted" || !strings.HasPrefix(a.ClusterQueue, "cq-") {
		t.Errorf("%s after wait: %+v", queued, a)
	}
	return admitted, queued
}

func kueuePreemption(t *testing.T, run func(...string) easyai.Result, jobs ...string) {
	run("submit", "tf", "--name", "urgent", "--workers", "2", "--gpus", "4", "--image", "example.com/train:1", "--queue", "lq", "--priority", "e2e-urgent", "--", "python", "train.py").MustSucceed(t)
	cluster.Eventually(t, time.Minute, jobs[0]+" evicted by urgent", func(context.Context) (bool, error) {
		return admission(t, run, jobs[0]) == "Evicted", nil
	})
	if a := kueueJob(t, run, jobs[0]).Admission; !strings.HasPrefix(a.Evicted, "preempted by tf/urgent: prioritization in the ClusterQueue") {
		t.Errorf("%s's eviction: %+v", jobs[0], a)
	}
	run(append(append([]string{"delete"}, jobs...), "tf/urgent", "--yes")...).MustSucceed(t)
}

func kueueKinds(t *testing.T, c *cluster.Cluster, ns string, run func(...string) easyai.Result) {
	if r := run("submit", "tf", "--name", "nolq", "--image", "example.com/train:1", "--queue", "nope", "--", "python", "t.py"); r.Code != 2 ||
		!strings.Contains(r.Stderr, `--queue nope: namespace`) || !strings.Contains(r.Stderr, `has no LocalQueue "nope" (it has: lq)`) {
		t.Errorf("--queue naming no LocalQueue: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if r := run("submit", "volcano", "--name", "vc", "--image", "example.com/train:1", "--queue", "lq", "--", "python", "t.py"); r.Code != 2 ||
		!strings.Contains(r.Stderr, "Kueue admits no volcano job") {
		t.Errorf("a Volcano Job for a LocalQueue: exit %d, stderr %q", r.Code, r.Stderr)
	}
	// A ClusterQueue of its own: one whose quota was just freed may leave
	// a new Workload parked as inadmissible until it changes again
	// (Kueue's, see docs/capacity.md).
	kueueQueuesNamed(t, c, ns, "lq2", "cq2-"+ns, 8)
	run("submit", "pytorch", "--name", "pt", "--backend", "training-operator", "--workers", "1", "--gpus", "2", "--image", "example.com/train:1", "--queue", "lq2", "--", "python", "t.py").MustSucceed(t)
	run("submit", "trainjob", "--name", "tj", "--runtime", "torch-distributed", "--workers", "2", "--gpus", "2", "--image", "example.com/train:1", "--queue", "lq2", "--", "python", "t.py").MustSucceed(t)
	cluster.Eventually(t, time.Minute, "the PyTorchJob and the TrainJob admitted", func(context.Context) (bool, error) {
		return admission(t, run, "pytorch/pt") == "Admitted" && admission(t, run, "trainjob/tj") == "Admitted", nil
	})
	// suspend and resume keep Kueue's meaning: suspend deactivates the
	// job's Workload (Kueue would undo a suspend of the job itself), resume
	// puts it back in line.
	run("suspend", "pytorch/pt", "--wait", "--timeout", "1m").MustSucceed(t)
	if d := kueueJob(t, run, "pytorch/pt"); d.Status.State != "Suspended" || d.Admission == nil || d.Admission.State != "Deactivated" {
		t.Errorf("after suspend: %+v %+v", d.Status, d.Admission)
	}
	if r := run("suspend", "pytorch/pt"); r.Code == 0 || !strings.Contains(r.Stderr, "already suspended") {
		t.Errorf("suspend twice: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if r := run("resume", "pytorch/pt", "--wait", "--timeout", "1m"); r.Code != 0 || !strings.Contains(r.Stderr, "pytorch/pt admitted after") {
		t.Errorf("resume --wait: exit %d, stderr %q", r.Code, r.Stderr)
	}
	run("delete", "pytorch/pt", "trainjob/tj", "--yes").MustSucceed(t)
}
