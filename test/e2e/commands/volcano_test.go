//go:build e2e

package commands

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

func submitVolcano(t *testing.T, ns, name string, args ...string) easyai.Result {
	t.Helper()
	all := append([]string{"submit", "volcano", "-n", ns, "--name", name, "--image", "example.com/train:1"}, args...)
	return easyai.Run(t, append(all, "--", "python", "train.py")...)
}

// TestVolcanoGangLargerThanTheClusterStaysPendingWithTheSchedulersReason:
// 6 pods of 8 GPUs do not fit 4 nodes of 8 (nor one more a test adds): no pod starts, and get says why.
func TestVolcanoGangLargerThanTheClusterStaysPendingWithTheSchedulersReason(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	submitVolcano(t, ns, "huge", "--workers", "6", "--gpus", "8").MustSucceed(t)

	var out string
	cluster.Eventually(t, 60*time.Second, "get to show why the gang waits", func(context.Context) (bool, error) {
		out = easyai.Run(t, "get", "-n", ns, "volcano/huge").MustSucceed(t).Stdout
		return strings.Contains(out, "unschedulable"), nil
	})
	if !strings.Contains(out, "Status:     Pending") || !strings.Contains(out, "6/0 tasks in gang unschedulable") {
		t.Errorf("get of a gang that cannot fit:\n%s", out)
	}
	pods, err := c.Kube.CoreV1().Pods(ns).List(cluster.Context(t, 30*time.Second), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != "" {
			t.Errorf("pod %s was bound to %s: no pod of a gang that does not fit should be", p.Name, p.Spec.NodeName)
		}
	}
	if res := easyai.Run(t, "wait", "-n", ns, "volcano/huge", "--for", "running", "--timeout", "3s"); res.Code != 5 {
		t.Errorf("wait for a job that cannot run: exit %d, want 5 (timeout)", res.Code)
	}
}

// TestVolcanoPolicyRestartsTheJobAndGetCountsTheRetries: with
// PodFailed=RestartJob, a worker failing restarts the whole job with new pods
// (retry 1/2 shown by get); the next failure, retry 2, fails the job.
func TestVolcanoPolicyRestartsTheJobAndGetCountsTheRetries(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	submitVolcano(t, ns, "flaky", "--workers", "2", "--policy", "PodFailed=RestartJob", "--max-retry", "2").MustSucceed(t)
	c.WaitPodPhase(t, ns, "flaky-worker-1", "Running", 90*time.Second)
	ctx := cluster.Context(t, 30*time.Second)
	first, err := c.Kube.CoreV1().Pods(ns).Get(ctx, "flaky-worker-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	c.EndPod(t, ns, "flaky-worker-1", 1)
	var out string
	cluster.Eventually(t, 90*time.Second, "the job restarted with new pods", func(ctx context.Context) (bool, error) {
		p, err := c.Kube.CoreV1().Pods(ns).Get(ctx, "flaky-worker-0", metav1.GetOptions{})
		if err != nil || p.UID == first.UID || p.Status.Phase != "Running" {
			return false, nil
		}
		out = easyai.Run(t, "get", "-n", ns, "volcano/flaky").MustSucceed(t).Stdout
		return strings.Contains(out, "Status:     Running"), nil
	})
	if !strings.Contains(out, "retry 1/2: Volcano fails the job at retry 2") {
		t.Errorf("get after a restart does not count it:\n%s", out)
	}

	// The retries are used up: the next failure fails the job (exit 4).
	c.WaitPodPhase(t, ns, "flaky-worker-1", "Running", 90*time.Second)
	c.EndPod(t, ns, "flaky-worker-1", 1)
	if res := easyai.Run(t, "wait", "-n", ns, "volcano/flaky", "--timeout", "90s"); res.Code != 4 {
		t.Errorf("wait after the last retry failed: exit %d, want 4\n%s", res.Code, res.Stderr)
	}
}
