//go:build e2e

package commands

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// TestOversellIsInTheStoredPodSpec: --oversell requests cpu and memory at
// their limit divided by N, GPUs as asked, in the pods the API server
// stored; a bad N exits 2 and creates nothing.
func TestOversellIsInTheStoredPodSpec(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	easyai.RunWith(t, alice, "submit", "tf", "--name", "os", "--workers", "2", "--gpus", "1", "--cpu", "4", "--memory", "16Gi",
		"--oversell", "4", "--image", "example.com/train:1", "--", "python", "train.py").MustSucceed(t)
	p := podOf(t, c, ns, "os-worker-1")
	r := p.Spec.Containers[0].Resources
	for name, pair := range map[string][2]resource.Quantity{
		"cpu request":    {r.Requests[corev1.ResourceCPU], resource.MustParse("1")},
		"memory request": {r.Requests[corev1.ResourceMemory], resource.MustParse("4Gi")},
		"cpu limit":      {r.Limits[corev1.ResourceCPU], resource.MustParse("4")},
		"memory limit":   {r.Limits[corev1.ResourceMemory], resource.MustParse("16Gi")},
		"GPU limit":      {r.Limits["nvidia.com/gpu"], resource.MustParse("1")},
	} {
		if pair[0].Cmp(pair[1]) != 0 {
			t.Errorf("%s %s, want %s", name, pair[0].String(), pair[1].String())
		}
	}
	if q, ok := r.Requests["nvidia.com/gpu"]; ok && q.Cmp(resource.MustParse("1")) != 0 {
		t.Errorf("GPUs requested %s: never oversold", q.String())
	}
	res := easyai.RunWith(t, alice, "submit", "tf", "--name", "bad", "--cpu", "1", "--oversell", "0", "--image", "img", "--", "x")
	if res.Code != 2 || !strings.Contains(res.Stderr, "--oversell 0: must be 1 or more") {
		t.Errorf("--oversell 0: exit %d, %q", res.Code, res.Stderr)
	}
}

// TestQueueAndPriorityAreCheckedBeforeSubmit: a queue or PriorityClass the
// cluster does not have exits 2 listing the ones it has, and nothing is
// created; a user who may not read them (cluster-wide) is told in one line
// that they were not checked.
func TestQueueAndPriorityAreCheckedBeforeSubmit(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	for flag, want := range map[string]string{
		"--queue":    `--queue nope: the cluster has no Volcano queue "nope" (it has: default`,
		"--priority": `--priority nope: the cluster has no PriorityClass "nope" (it has: `,
	} {
		res := easyai.Run(t, "submit", "tf", "-n", ns, "--name", "qp", "--image", "img", flag, "nope", "--", "x")
		if res.Code != 2 || !strings.Contains(res.Stderr, want) {
			t.Errorf("%s nope: exit %d, %q; want exit 2 saying %s", flag, res.Code, res.Stderr, want)
		}
	}
	if res := easyai.Run(t, "get", "qp", "-n", ns); res.Code != 3 {
		t.Errorf("a refused job was created: get exits %d", res.Code)
	}
	easyai.Run(t, "submit", "tf", "-n", ns, "--name", "qp-ok", "--image", "img", "--queue", "default", "--priority", "system-node-critical", "--dry-run=server", "--", "x").MustSucceed(t)

	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	res := easyai.RunWith(t, alice, "submit", "tf", "-n", ns, "--name", "qp-alice", "--image", "img", "--queue", "nope", "--dry-run=server", "--", "x")
	if res.Code != 0 || !strings.Contains(res.Stderr, "Volcano queue nope not checked (you may not read queues.scheduling.volcano.sh, which are cluster-wide)") {
		t.Errorf("alice --queue nope: exit %d, %q", res.Code, res.Stderr)
	}
}
