//go:build e2e

package realnode

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

var tfJobs = schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: "tfjobs"}

// launcherImage builds this checkout's easyai, static, into an image of
// its own on the real node (realnode.sh import), and returns its name.
func launcherImage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "easyai"), "github.com/easyai-dev/easyai/cmd/easyai")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building a static easyai: %v\n%s", err, out)
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	image := "localhost/easyai-e2e/easyai:" + hex.EncodeToString(suffix)
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "..", "hack", "cluster", "realnode.sh")
	if out, err := exec.Command("bash", script, "import", image, dir, "/easyai").CombinedOutput(); err != nil {
		t.Fatalf("importing %s into the real node: %v\n%s", image, err, out)
	}
	return image
}

// TestAScheduleLaunchesOnItsOwn: a schedule of every minute, as a team
// member, whose launcher is the real easyai in a real pod on the real node,
// running as the namespace's ServiceAccount easyai-cron: the CronJob
// controller starts it each minute; the first run submits the job, the next
// one, while that job still runs, submits nothing (Forbid), and says so in
// its log.
func TestAScheduleLaunchesOnItsOwn(t *testing.T) {
	t.Parallel()
	c, _, ns, alice := onTheRealNode(t)
	image := launcherImage(t)
	host, port := c.RealNodeAPIServer(t)
	as := func(args ...string) easyai.Result {
		t.Helper()
		return easyai.RunWith(t, alice, append([]string{"-n", ns}, args...)...)
	}
	// The job: a TFJob on the fake nodes that runs for ten minutes.
	file := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(file, []byte("kind: tf\nimage: example.com/train:1\ncommand: [python, train.py]\n"+
		"env: [{name: "+cluster.RunForEnv+", value: \"10m\"}]\nroles: {worker: {replicas: 1}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The launcher's pod on the real node, which reaches the API server at
	// the node's address (it has no kube-proxy for the kubernetes Service).
	as("cron", "create", "tick", "--schedule", "* * * * *", "-f", file, "--image", image,
		"--node-selector", "easyai.io/real-node=true", "--toleration", "easyai.io/real-node=true:NoSchedule",
		"--env", "KUBERNETES_SERVICE_HOST="+host, "--env", "KUBERNETES_SERVICE_PORT="+port).MustSucceed(t)
	t.Cleanup(func() { as("cron", "delete", "tick", "--with-jobs", "--yes") })

	var done []batchv1.Job
	cluster.Eventually(t, 4*time.Minute, "two runs of the schedule", func(ctx context.Context) (bool, error) {
		jobs, err := c.Kube.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/cron=tick"})
		if err != nil {
			return false, err
		}
		done = done[:0]
		for _, j := range jobs.Items {
			if j.Status.Failed > 0 {
				t.Fatalf("launcher job %s failed: %s", j.Name, launcherLog(t, c, ns, j.Name))
			}
			if j.Status.Succeeded > 0 {
				done = append(done, j)
			}
		}
		return len(done) >= 2, nil
	})
	var logs []string
	for _, j := range done {
		logs = append(logs, launcherLog(t, c, ns, j.Name))
	}
	all := strings.Join(logs, "\n")
	if !strings.Contains(all, "schedule tick: tf/tick-") || !strings.Contains(all, "still runs: this run submits nothing (concurrency Forbid)") {
		t.Errorf("the launchers' logs: one submits, the next skips:\n%s", all)
	}
	ctx := cluster.Context(t, 30*time.Second)
	tf, err := c.Dynamic.Resource(tfJobs).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/cron=tick"})
	if err != nil || len(tf.Items) != 1 {
		t.Errorf("the schedule's TFJobs: %d (%v), want exactly one while the first runs", len(tf.Items), err)
	}
}

// launcherLog is the log of a launcher Job's pod.
func launcherLog(t *testing.T, c *cluster.Cluster, ns, job string) string {
	t.Helper()
	ctx := cluster.Context(t, 30*time.Second)
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + job})
	if err != nil || len(pods.Items) == 0 {
		return "(no pod: " + errString(err) + ")"
	}
	r, err := c.Kube.CoreV1().Pods(ns).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{}).Stream(ctx)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer r.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

func errString(err error) string {
	if err == nil {
		return "none listed"
	}
	return err.Error()
}
