//go:build e2e

package commands

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// TestTopNode: as the admin, every kwok node with its GPUs, a job's GPUs
// counted on its node, and a total that adds up; as a user whose rights end
// at a namespace, one line saying what is missing (exit 1).
func TestTopNode(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	easyai.Binary(t)
	ns := c.Namespace(t)
	easyai.Run(t, "submit", "tf", "-n", ns, "--name", "top-gpu", "--workers", "2", "--gpus", "1", "--image", "example.com/train:1", "--", "python", "train.py").MustSucceed(t)
	easyai.Run(t, "wait", "-n", ns, "top-gpu", "--for", "running", "--timeout", "90s").MustSucceed(t)
	r := easyai.Run(t, "top", "node", "-o", "json").MustSucceed(t)
	var doc struct {
		Rows  string
		Items []struct {
			Name string
			GPUs struct{ Capacity, Allocated float64 }
			Pods int
		}
		Total struct {
			GPUs struct{ Capacity, Allocated float64 }
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || doc.Rows != "NODE" || len(doc.Items) == 0 {
		t.Fatalf("top node -o json: %v\n%s", err, r.Stdout)
	}
	var capacity, allocated float64
	for _, n := range doc.Items {
		capacity += n.GPUs.Capacity
		allocated += n.GPUs.Allocated
	}
	if capacity == 0 || capacity != doc.Total.GPUs.Capacity || allocated != doc.Total.GPUs.Allocated {
		t.Errorf("nodes add up to %v GPUs (%v allocated), total says %+v", capacity, allocated, doc.Total.GPUs)
	}
	if allocated < 2 {
		t.Errorf("%v GPUs allocated, want at least the job's 2", allocated)
	}
	r = easyai.Run(t, "top", "node").MustSucceed(t)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "total\t") {
		t.Errorf("top node: no total line last:\n%s", r.Stdout)
	}

	user := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "carol", ns)}
	r = easyai.RunWith(t, user, "top", "node")
	if r.Code != 1 || !strings.Contains(r.Stderr, "Error: cannot list nodes: forbidden") || strings.Count(r.Stderr, "\n") != 2 {
		t.Errorf("top node as a namespace user: exit %d, stderr %q", r.Code, r.Stderr)
	}
}
