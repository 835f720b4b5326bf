//go:build e2e

package realnode

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// What get says when a real pod fails: each way of failing shows in the
// replica's row (its state, exit code and reason), in a Warning event
// whose message names the cause, and, for a container that ran, in its last
// lines.
func TestGetSaysWhyARealPodFails(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		command []string
		row     *regexp.Regexp // the replica's row of get
		event   string         // a Warning event's message contains it
		lines   string         // get's output matches it (the last lines; a regular expression)
		logs    string         // logs says it on stderr, one line
		wait    string         // wait --stuck-after 20s says it (exit 4); "" when the test does not wait
		listed  string         // list -o wide's REASON
	}{
		{"never-pulled", []string{"--image", "localhost/easyai-e2e/absent:1", "--image-pull-policy", "Never"}, []string{"true"},
			regexp.MustCompile(`(?m)^master-0 +Pending +real-node-0 +0 +- +ErrImageNeverPull `),
			`Container image "localhost/easyai-e2e/absent:1" is not present with pull policy of Never`, "",
			`master-0 is Pending: ErrImageNeverPull: Container image "localhost/easyai-e2e/absent:1" is not present with pull policy of Never` + "\n", "", "master-0: ErrImageNeverPull"},
		{"crash-loop", []string{"--set", "restartPolicy=OnFailure"}, []string{"sh", "-c", "echo about to fail; echo on stderr >&2; exit 3"},
			regexp.MustCompile(`(?m)^master-0 +Running +real-node-0 +[2-9]\d* +3 +CrashLoopBackOff `),
			"Back-off restarting failed container",
			// (The runtime keeps the two streams' lines in the order it read
			// them, which need not be the order they were written in.)
			`Last lines of master-0 \(container pytorch, its previous run, exit code 3\):\n(  about to fail\n  on stderr|  on stderr\n  about to fail)\n`,
			"the last run ended with exit code 3; --previous shows that run's log\n",
			": pod crash-loop-master-0 keeps crashing: CrashLoopBackOff for 20s (--stuck-after)", "master-0: CrashLoopBackOff"},
		{"out-of-memory", []string{"--memory", "100Mi"}, []string{"python3", "-c", "x = bytearray(400 << 20); import time; time.sleep(30)"},
			regexp.MustCompile(`(?m)^master-0 +Failed +real-node-0 +0 +137 +OOMKilled `),
			"", `Last lines of master-0 \(container pytorch, its run, exit code 137\):\n  \(no output\)\n`,
			"master-0: ended with exit code 137 (OOMKilled)\n", "", "master-0: OOMKilled"},
		{"too-big", []string{"--cpu", "32"}, []string{"true"},
			regexp.MustCompile(`(?m)^master-0 +Pending +- +0 +- +Unschedulable `),
			"Insufficient cpu", "", "master-0 is Pending: Unschedulable: 0/", "", "master-0: Unschedulable"},
		{"missing-secret", []string{"--code", "git:http://127.0.0.1:1/none.git", "--code-secret", "missing-secret"}, []string{"true"},
			regexp.MustCompile(`(?m)^master-0 +Pending +real-node-0 +0 +- +FailedMount `),
			`MountVolume.SetUp failed for volume "easyai-code-secret" : secret "missing-secret" not found`, "",
			`master-0 is Pending: FailedMount: MountVolume.SetUp failed for volume "easyai-code-secret" : secret "missing-secret" not found` + "\n",
			`: pod missing-secret-master-0 cannot start: FailedMount: MountVolume.SetUp failed for volume "easyai-code-secret" : secret "missing-secret" not found`, "master-0: FailedMount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, placement, _, alice := onTheRealNode(t)
			args := append(append([]string{"submit", "pytorch", "--name", tt.name}, placement...), tt.args...)
			easyai.RunWith(t, alice, append(append(args, "--"), tt.command...)...).MustSucceed(t)
			out := getShows(t, alice, tt.name, 4*time.Minute, tt.row, tt.event)
			if !regexp.MustCompile(tt.lines).MatchString(out) {
				t.Errorf("get %s shows no %q:\n%s", tt.name, tt.lines, out)
			}
			// list -o wide's REASON names the replica and why. (A pending
			// pod says why only in its own events, which can come after the
			// pod's condition and the job's events that get showed.)
			listed := regexp.MustCompile(`(?m)^` + tt.name + `\t.*\t` + regexp.QuoteMeta(tt.listed) + `\t`)
			res := easyai.RunWith(t, alice, "list", "-o", "wide")
			for deadline := time.Now().Add(time.Minute); (res.Code != 0 || !listed.MatchString(res.Stdout)) && time.Now().Before(deadline); {
				time.Sleep(2 * time.Second)
				res = easyai.RunWith(t, alice, "list", "-o", "wide")
			}
			if res.Code != 0 || !listed.MatchString(res.Stdout) {
				t.Errorf("list -o wide: exit %d, stdout %q; want %s with %q", res.Code, res.Stdout, tt.name, tt.listed)
			}
			// logs says why in one line on stderr (what it read, if anything, on stdout).
			if res := easyai.RunWith(t, alice, "logs", tt.name); !strings.Contains(res.Stderr, tt.logs) || strings.Count(res.Stderr, "\n") != 1 {
				t.Errorf("logs %s: exit %d, stderr %q; want one line with %q", tt.name, res.Code, res.Stderr, tt.logs)
			}
			if tt.wait != "" {
				res := easyai.RunWith(t, alice, "wait", tt.name, "--stuck-after", "20s", "--timeout", "4m")
				if res.Code != 4 || !strings.Contains(res.Stderr, tt.wait) {
					t.Errorf("wait %s: exit %d, stderr %q; want 4 and %q", tt.name, res.Code, res.Stderr, tt.wait)
				}
			}
		})
	}
	// A missing claim never reaches a pod: submit refuses it (a pod naming
	// one would wait unscheduled, and Volcano 1.10 then schedules no other
	// pod of the cluster).
	t.Run("missing-claim", func(t *testing.T) {
		t.Parallel()
		_, placement, ns, alice := onTheRealNode(t)
		args := append([]string{"submit", "pytorch", "--name", "noclaim", "--data", "missing-claim:/data"}, placement...)
		res := easyai.RunWith(t, alice, append(args, "--", "true")...)
		if res.Code != 2 || !strings.Contains(res.Stderr, `--data missing-claim:/data: no PersistentVolumeClaim "missing-claim" in namespace `+ns) {
			t.Errorf("submit with a missing claim: exit %d, stderr %q; want 2 naming it", res.Code, res.Stderr)
		}
	})
	// wait ends with 4 once a pod cannot start until the job is changed,
	// instead of at its timeout.
	t.Run("never-pulled-wait", func(t *testing.T) {
		t.Parallel()
		_, placement, _, alice := onTheRealNode(t)
		args := append(append([]string{"submit", "pytorch", "--name", "absent", "--workers", "2"}, placement...),
			"--image", "localhost/easyai-e2e/absent:1", "--image-pull-policy", "Never")
		easyai.RunWith(t, alice, append(args, "--", "true")...).MustSucceed(t)
		res := easyai.RunWith(t, alice, "wait", "absent", "--timeout", "4m")
		if res.Code != 4 || !regexp.MustCompile(`Error: pytorch/absent \w+ after \d+s: pod absent-(master|worker)-0 cannot start: (Init:)?ErrImageNeverPull`).MatchString(res.Stderr) {
			t.Errorf("wait on a job whose image is not there: exit %d, stderr %q; want 4 naming the pod", res.Code, res.Stderr)
		}
	})
	t.Run("out-of-memory-wait", func(t *testing.T) {
		t.Parallel()
		_, placement, _, alice := onTheRealNode(t)
		args := append([]string{"submit", "pytorch", "--name", "oom", "--memory", "100Mi"}, placement...)
		easyai.RunWith(t, alice, append(args, "--", "python3", "-c", "x = bytearray(400 << 20)")...).MustSucceed(t)
		res := easyai.RunWith(t, alice, "wait", "oom", "--timeout", "4m")
		if res.Code != 4 || !strings.Contains(res.Stderr, "Error: pytorch/oom Failed after ") {
			t.Errorf("wait on a job killed for its memory: exit %d, stderr %q; want 4 and Failed", res.Code, res.Stderr)
		}
	})
}

// A TrainJob whose Job cannot create its pods (here the team's quota allows
// none) says why in get: the Job's FailedCreate event, which is on the Job
// between the TrainJob and its pods, not on the TrainJob.
func TestGetShowsTheWarningsOfATrainJobsJobs(t *testing.T) {
	t.Parallel()
	c, placement, ns, alice := onTheRealNode(t)
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "no-pods"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}}}
	if _, err := c.Kube.CoreV1().ResourceQuotas(ns).Create(cluster.Context(t, time.Minute), quota, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cluster.Eventually(t, time.Minute, "the quota's status", func(ctx context.Context) (bool, error) {
		q, err := c.Kube.CoreV1().ResourceQuotas(ns).Get(ctx, quota.Name, metav1.GetOptions{})
		return err == nil && q.Status.Hard != nil, err
	})
	args := append([]string{"submit", "trainjob", "--name", "quota", "--runtime", "torch-distributed", "--workers", "1"}, placement...)
	easyai.RunWith(t, alice, append(args, "--", "true")...).MustSucceed(t)
	getShows(t, alice, "quota", 2*time.Minute, regexp.MustCompile(`(?m)^Status: +Pending`), "")
	getShows(t, alice, "quota", 2*time.Minute, regexp.MustCompile(`(?m)^.* Job/quota-node-0 +FailedCreate +.*exceeded quota: no-pods`), "")
}

// getShows runs get as the user until its output matches row and, when
// event is not empty, holds a Warning event line containing it; it returns
// that output.
func getShows(t *testing.T, env []string, job string, limit time.Duration, row *regexp.Regexp, event string) string {
	t.Helper()
	var last string
	deadline := time.Now().Add(limit)
	for {
		res := easyai.RunWith(t, env, "get", job)
		last = res.Stdout
		events := last[strings.Index(last, "Warning events:")+1:]
		if res.Code == 0 && row.MatchString(last) && (event == "" || strings.Contains(events, event)) {
			return last
		}
		if time.Now().After(deadline) {
			t.Fatalf("get %s shows no %s and event %q in %s; last:\n%s", job, row, event, limit, last)
		}
		time.Sleep(3 * time.Second)
	}
}
