//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// jobStatus is the status "easyai get -o json" reports.
type jobStatus struct {
	State   string `json:"state"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func statusOf(t *testing.T, ns, ref string) jobStatus {
	t.Helper()
	r := easyai.Run(t, "get", "-n", ns, ref, "-o", "json").MustSucceed(t)
	var j struct {
		Status jobStatus `json:"status"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &j); err != nil {
		t.Fatalf("get %s -o json: %v\n%s", ref, err, r.Stdout)
	}
	return j.Status
}

// podPhases are the phases of the job's pods (by name), or "" when it has none.
func podPhases(ctx context.Context, c *cluster.Cluster, ns, name string) (string, error) {
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/job-name=" + name})
	if err != nil {
		return "", err
	}
	var out []string
	for _, p := range pods.Items {
		phase := string(p.Status.Phase)
		if p.DeletionTimestamp != nil {
			phase = "Terminating"
		}
		out = append(out, p.Name+"="+phase)
	}
	sort.Strings(out)
	return strings.Join(out, " "), nil
}

// expectJob waits until get says state and the job's pods are exactly pods
// ("" for none).
func expectJob(t *testing.T, c *cluster.Cluster, ns, ref, state, pods string) {
	t.Helper()
	name := ref[strings.Index(ref, "/")+1:]
	eventually(t, ref+" "+state+" with pods ["+pods+"]", func() string {
		got, err := podPhases(cluster.Context(t, 30*time.Second), c, ns, name)
		if err != nil {
			return err.Error()
		}
		if s := statusOf(t, ns, ref); s.State != state || got != pods {
			return fmt.Sprintf("state %s (%s: %s), pods [%s]", s.State, s.Reason, s.Message, got)
		}
		return ""
	})
}

// TestSuspendAndResumeATFJob: suspending a running TFJob deletes its pods and
// list and get say Suspended; resuming makes new pods that run.
func TestSuspendAndResumeATFJob(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	submitTF(t, ns, "pausable", "2").MustSucceed(t)
	easyai.Run(t, "wait", "-n", ns, "tf/pausable", "--for", "running", "--timeout", "90s").MustSucceed(t)
	running := "pausable-worker-0=Running pausable-worker-1=Running"
	expectJob(t, c, ns, "tf/pausable", "Running", running)
	first, err := c.Kube.CoreV1().Pods(ns).Get(cluster.Context(t, 30*time.Second), "pausable-worker-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	if r := easyai.Run(t, "resume", "-n", ns, "pausable"); r.Code != 1 || !strings.Contains(r.Stderr, "tf/pausable is not suspended: it is Running") {
		t.Errorf("resume of a running job: exit %d\n%s", r.Code, r.Stderr)
	}

	r := easyai.Run(t, "suspend", "-n", ns, "pausable").MustSucceed(t)
	if r.Stdout != "suspended tf/pausable\n" || r.Stderr != "" {
		t.Errorf("suspend printed %q on stdout, %q on stderr", r.Stdout, r.Stderr)
	}
	expectJob(t, c, ns, "tf/pausable", "Suspended", "")
	if row := rows(t, "-n", ns)["pausable"]; len(row) < 3 || row[2] != "Suspended" {
		t.Errorf("list row of the suspended job: %q", row)
	}
	if r := easyai.Run(t, "suspend", "-n", ns, "tf/pausable"); r.Code != 1 || !strings.Contains(r.Stderr, "tf/pausable is already suspended") {
		t.Errorf("suspend of a suspended job: exit %d\n%s", r.Code, r.Stderr)
	}

	r = easyai.Run(t, "resume", "-n", ns, "tf/pausable", "--wait", "--timeout", "90s").MustSucceed(t)
	if r.Stdout != "resumed tf/pausable\n" || !strings.HasPrefix(r.Stderr, "tf/pausable Running after ") {
		t.Errorf("resume --wait printed %q on stdout, %q on stderr", r.Stdout, r.Stderr)
	}
	expectJob(t, c, ns, "tf/pausable", "Running", running)
	again, err := c.Kube.CoreV1().Pods(ns).Get(cluster.Context(t, 30*time.Second), "pausable-worker-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.UID == first.UID {
		t.Errorf("pausable-worker-0 is the pod from before the suspend")
	}
	if row := rows(t, "-n", ns)["pausable"]; len(row) < 3 || row[2] != "Running" {
		t.Errorf("list row of the resumed job: %q", row)
	}
}

var volcanoJobs = schema.GroupVersionResource{Group: "batch.volcano.sh", Version: "v1alpha1", Resource: "jobs"}

// volcanoPhase is the Volcano Job's status.state.phase and retry count.
func volcanoPhase(t *testing.T, c *cluster.Cluster, ns, name string) (string, int64) {
	t.Helper()
	obj, err := c.Dynamic.Resource(volcanoJobs).Namespace(ns).Get(cluster.Context(t, 30*time.Second), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	phase, _, _ := unstructured.NestedString(obj.Object, "status", "state", "phase")
	retries, _, _ := unstructured.NestedInt64(obj.Object, "status", "retryCount")
	return phase, retries
}

// TestSuspendAndResumeAVolcanoJob: Volcano aborts a suspended job (its pods
// go) and restarts it on resume, counting a retry; get says so, and the
// resume that would be the job's last retry is refused without --force.
// With --force, Volcano indeed fails the job.
func TestSuspendAndResumeAVolcanoJob(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	submitVolcano(t, ns, "vpause", "--workers", "2", "--max-retry", "2").MustSucceed(t)
	running := "vpause-worker-0=Running vpause-worker-1=Running"
	expectJob(t, c, ns, "volcano/vpause", "Running", running)

	r := easyai.Run(t, "suspend", "-n", ns, "vpause", "--wait", "--timeout", "60s").MustSucceed(t)
	if r.Stdout != "suspended volcano/vpause\n" || !strings.HasPrefix(r.Stderr, "volcano/vpause Suspended after ") {
		t.Errorf("suspend --wait printed %q on stdout, %q on stderr", r.Stdout, r.Stderr)
	}
	expectJob(t, c, ns, "volcano/vpause", "Suspended", "")
	if phase, retries := volcanoPhase(t, c, ns, "vpause"); phase != "Aborted" || retries != 0 {
		t.Errorf("suspended Volcano job: phase %s, retry %d; want Aborted, 0", phase, retries)
	}
	if row := rows(t, "-n", ns)["vpause"]; len(row) < 3 || row[2] != "Suspended" {
		t.Errorf("list row of the suspended job: %q", row)
	}

	r = easyai.Run(t, "resume", "-n", ns, "volcano/vpause").MustSucceed(t)
	if r.Stdout != "resumed volcano/vpause\n" || r.Stderr != "" {
		t.Errorf("resume printed %q on stdout, %q on stderr", r.Stdout, r.Stderr)
	}
	expectJob(t, c, ns, "volcano/vpause", "Running", running)
	if s := statusOf(t, ns, "volcano/vpause"); !strings.Contains(s.Message, "retry 1/2: Volcano fails the job at retry 2") {
		t.Errorf("get after a resume does not count it: %+v", s)
	}

	// Suspended again, the next resume is the job's last retry.
	easyai.Run(t, "suspend", "-n", ns, "volcano/vpause").MustSucceed(t)
	expectJob(t, c, ns, "volcano/vpause", "Suspended", "")
	if s := statusOf(t, ns, "volcano/vpause"); s.Message != "resuming uses retry 2 of 2, at which Volcano fails the job" {
		t.Errorf("get of a job whose resume is its last retry: %+v", s)
	}
	get := easyai.Run(t, "get", "-n", ns, "volcano/vpause").MustSucceed(t).Stdout
	if !strings.Contains(get, "Status:     Suspended (Aborted): resuming uses retry 2 of 2, at which Volcano fails the job\n") {
		t.Errorf("get:\n%s", get)
	}

	r = easyai.Run(t, "resume", "-n", ns, "vpause")
	warning := "Warning: resuming volcano/vpause: Volcano counts this resume as retry 2 of the job and fails a job at retry 2 (spec.maxRetry): the job will end Failed instead of running again\n"
	if r.Code != 2 || r.Stdout != "" || !strings.HasPrefix(r.Stderr, warning) ||
		!strings.Contains(r.Stderr, "not resuming volcano/vpause: pass --force to resume it anyway (there is no terminal to ask on)") {
		t.Errorf("resume on the last retry without --force: exit %d, stdout %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	time.Sleep(2 * time.Second) // had a command been sent, Volcano would have acted by now
	if phase, retries := volcanoPhase(t, c, ns, "vpause"); phase != "Aborted" || retries != 1 {
		t.Errorf("after a refused resume: phase %s, retry %d; want Aborted, 1", phase, retries)
	}

	r = easyai.Run(t, "resume", "-n", ns, "vpause", "--force").MustSucceed(t)
	if r.Stdout != "resumed volcano/vpause\n" || r.Stderr != warning {
		t.Errorf("resume --force printed %q on stdout, %q on stderr", r.Stdout, r.Stderr)
	}
	if r := easyai.Run(t, "wait", "-n", ns, "volcano/vpause", "--timeout", "90s"); r.Code != 4 {
		t.Errorf("wait after resuming on the last retry: exit %d, want 4 (Volcano fails the job)\n%s", r.Code, r.Stderr)
	}
}

// TestSuspendAndResumeEveryTrainingOperatorKind: the operator honours
// runPolicy.suspend for each of its kinds, MPIJob (v1) included.
func TestSuspendAndResumeEveryTrainingOperatorKind(t *testing.T) {
	cases := []kindCase{{kind: "pytorch", args: []string{"--workers", "2", "--", "torchrun", "train.py"}}}
	for _, k := range kindCases {
		if k.group == "" {
			cases = append(cases, k)
		}
	}
	for _, k := range cases {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			c := cluster.Get(t)
			ns := c.Namespace(t)
			name := "pause-" + k.kind
			ref := k.kind + "/" + name
			args := append([]string{"submit", k.kind, "-n", ns, "--name", name, "--image", "example.com/train:1"}, k.args...)
			easyai.Run(t, args...).MustSucceed(t)
			easyai.Run(t, "wait", "-n", ns, ref, "--for", "running", "--timeout", "90s").MustSucceed(t)
			var running string
			eventually(t, ref+"'s pods running", func() string {
				var err error
				if running, err = podPhases(cluster.Context(t, 30*time.Second), c, ns, name); err != nil {
					return err.Error()
				}
				if running == "" || strings.Count(running, "=Running") != strings.Count(running, "=") {
					return "pods [" + running + "]"
				}
				return ""
			})

			easyai.Run(t, "suspend", "-n", ns, ref).MustSucceed(t)
			expectJob(t, c, ns, ref, "Suspended", "")
			easyai.Run(t, "resume", "-n", ns, ref).MustSucceed(t)
			expectJob(t, c, ns, ref, "Running", running)
		})
	}
}
