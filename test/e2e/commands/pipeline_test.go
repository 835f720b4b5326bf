//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

var (
	jobFlows     = schema.GroupVersionResource{Group: "flow.volcano.sh", Version: "v1alpha1", Resource: "jobflows"}
	jobTemplates = schema.GroupVersionResource{Group: "flow.volcano.sh", Version: "v1alpha1", Resource: "jobtemplates"}
)

// pipelineFile writes a pipeline a → b → {c, d} into a directory of the
// test, a's job in a file of its own beside it, b starting from a's
// model_dir; bExit is b's exit code. It returns the pipeline file's path.
func pipelineFile(t *testing.T, name string, bExit string) string {
	t.Helper()
	dir := t.TempDir()
	step := func(runFor, exitCode string) string {
		return `{kind: volcano, image: "example.com/train:1", command: [python, train.py],
    storage: {claim: team-data, prefix: flows},
    env: [{name: ` + cluster.RunForEnv + `, value: "` + runFor + `"}, {name: ` + cluster.ExitCodeEnv + `, value: "` + exitCode + `"}],
    policies: [{event: PodFailed, action: TerminateJob}],
    tasks: {worker: {replicas: 1}}}`
	}
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("kind: volcano\nimage: example.com/train:1\ncommand: [python, prep.py]\n"+
		"storage: {claim: team-data, prefix: flows}\n"+
		"env: [{name: "+cluster.RunForEnv+", value: \"4s\"}, {name: "+cluster.ExitCodeEnv+", value: \"0\"}]\n"+
		"tasks: {worker: {replicas: 1}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := "name: " + name + "\nsteps:\n" +
		"- {name: a, file: a.yaml}\n" +
		"- name: b\n  after: [a]\n  pretrainedFrom: a\n  job: " + step("2s", bExit) + "\n" +
		"- name: c\n  after: [b]\n  job: " + step("1s", "0") + "\n" +
		"- name: d\n  after: [b]\n  job: " + step("1s", "0") + "\n"
	path := filepath.Join(dir, "pipeline.yaml")
	if err := os.WriteFile(path, []byte(p), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// pipelineDoc is "pipeline get -o json", the fields the test reads.
type pipelineDoc struct {
	State, Reason string
	Steps         []struct {
		Name, State, Job, Reason string
		After                    []string
	}
}

// TestPipelineRunsItsStepsInOrder: as the namespace's user of examples/rbac
// and as the admin, a pipeline a → b → {c, d} runs on Volcano's JobFlow: b
// is created only once a has completed and mounts a's model_dir as its
// pre_model_dir, wait exits 0 once every step has succeeded; with b
// failing, wait exits 4 naming b and the steps never created, and c and d
// are never created; bad input exits 2 and creates nothing; delete leaves
// nothing behind.
func TestPipelineRunsItsStepsInOrder(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	for who, env := range map[string]func(ns string) []string{
		"alice": func(ns string) []string { return []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)} },
		"admin": func(string) []string { return nil },
	} {
		t.Run(who, func(t *testing.T) {
			t.Parallel()
			ns := c.ShortNamespace(t)
			c.BoundClaim(t, ns, "team-data")
			applyExample(t, c, "rbac/easyai-user.yaml", ns)
			run := func(args ...string) easyai.Result {
				t.Helper()
				return easyai.RunWith(t, env(ns), append([]string{"-n", ns}, args...)...)
			}
			pipelineSucceeds(t, c, ns, run)
			pipelineFails(t, c, ns, run)
			pipelineBadInput(t, c, ns, run)
		})
	}
}

func pipelineSucceeds(t *testing.T, c *cluster.Cluster, ns string, run func(...string) easyai.Result) {
	ctx := cluster.Context(t, 3*time.Minute)
	r := run("pipeline", "run", "-f", pipelineFile(t, "ok", "0"))
	r.MustSucceed(t)
	if r.Stdout != "pipeline ok created in namespace "+ns+": 4 steps\n" {
		t.Errorf("pipeline run: %q", r.Stdout)
	}
	// While a runs, Volcano has created no job of b.
	cluster.Eventually(t, time.Minute, "a's job running", func(ctx context.Context) (bool, error) {
		var d pipelineDoc
		if err := json.Unmarshal([]byte(run("pipeline", "get", "ok", "-o", "json").MustSucceed(t).Stdout), &d); err != nil {
			return false, err
		}
		if d.Steps[0].State == "Running" {
			if d.Steps[1].State != "Waiting" || d.Steps[1].Reason != "waiting for a" {
				t.Errorf("while a runs, b is %s (%s)", d.Steps[1].State, d.Steps[1].Reason)
			}
			return true, nil
		}
		return false, nil
	})
	r = run("pipeline", "wait", "ok", "--timeout", "2m").MustSucceed(t)
	if r.Stdout != "pipeline ok succeeded: 4 steps\n" || !strings.Contains(r.Stderr, "step d: Succeeded") {
		t.Errorf("pipeline wait: stdout %q, stderr %q", r.Stdout, r.Stderr)
	}
	jobs, err := c.Dynamic.Resource(volcanoJobs).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created := map[string]time.Time{}
	finished := map[string]time.Time{}
	var bMounts string
	for _, j := range jobs.Items {
		created[j.GetName()] = j.GetCreationTimestamp().Time
		if ts, ok, _ := unstructuredString(j.Object, "status", "state", "lastTransitionTime"); ok {
			finished[j.GetName()], _ = time.Parse(time.RFC3339, ts)
		}
		if j.GetName() == "ok-ok-b" {
			data, _ := json.Marshal(j.Object["spec"])
			bMounts = string(data)
		}
	}
	if len(created) != 4 {
		t.Fatalf("jobs of the pipeline: %v", created)
	}
	if finished["ok-ok-a"].IsZero() || created["ok-ok-b"].Before(finished["ok-ok-a"]) {
		t.Errorf("b was created at %s, before a completed at %s", created["ok-ok-b"], finished["ok-ok-a"])
	}
	// b's pre_model_dir is a's model_dir: a's job directory, from its template.
	tmpl, err := c.Dynamic.Resource(jobTemplates).Namespace(ns).Get(ctx, "ok-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	aDir := tmpl.GetAnnotations()["easyai.io/job-dir"]
	if aDir == "" || !strings.Contains(bMounts, `"mountPath":"/pre_model_dir"`) || !strings.Contains(bMounts, `"subPath":"flows/`+aDir+`/model_dir"`) {
		t.Errorf("b's spec does not mount a's model_dir (flows/%s/model_dir) at /pre_model_dir: %s", aDir, bMounts)
	}
	if out := run("pipeline", "list").MustSucceed(t).Stdout; !strings.HasPrefix(out, "ok\tSucceeded\t4/4\t0\t") {
		t.Errorf("pipeline list: %q", out)
	}
	if out := run("pipeline", "get", "ok").MustSucceed(t).Stdout; !strings.Contains(out, "    c") || !strings.Contains(out, "vcjob/ok-ok-c") {
		t.Errorf("pipeline get: c indented under b, with its job:\n%s", out)
	}
	// The steps' jobs are the pipeline's to every job command: the
	// experiment and the user submit records, read from their templates.
	var listed struct {
		Items []struct{ Name, Experiment, User string }
	}
	if err := json.Unmarshal([]byte(run("list", "-o", "json").MustSucceed(t).Stdout), &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Items) != 4 {
		t.Errorf("easyai list: %+v; want the 4 steps' jobs", listed.Items)
	}
	for _, j := range listed.Items {
		if j.Experiment != "ok" || j.User == "" {
			t.Errorf("easyai list: job %s of experiment %q, user %q; want the pipeline's, and who ran it", j.Name, j.Experiment, j.User)
		}
	}
	if out := run("experiments").MustSucceed(t).Stdout; !strings.HasPrefix(out, "ok	") {
		t.Errorf("easyai experiments: %q", out)
	}
	var got struct {
		Experiment string
		Storage    struct{ JobDir string } `json:"storage"`
	}
	if err := json.Unmarshal([]byte(run("get", "vcjob/ok-ok-a", "-o", "json").MustSucceed(t).Stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Experiment != "ok" {
		t.Errorf("easyai get vcjob/ok-ok-a -o json: experiment %q", got.Experiment)
	}
	run("pipeline", "delete", "ok", "--yes").MustSucceed(t)
	cluster.Eventually(t, 90*time.Second, "the pipeline's objects gone", func(ctx context.Context) (bool, error) {
		n := 0
		for _, gvr := range []schema.GroupVersionResource{jobFlows, jobTemplates, volcanoJobs} {
			l, err := c.Dynamic.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			n += len(l.Items)
		}
		return n == 0, nil
	})
}

func pipelineFails(t *testing.T, c *cluster.Cluster, ns string, run func(...string) easyai.Result) {
	// run --wait --logs follows each step's log once Volcano has made its
	// job, each line prefixed with its step, and exits as wait does.
	c.PodLog(t, ns, "bad-bad-a-worker-0", nil).Println("a: preparing", "a: done")
	c.PodLog(t, ns, "bad-bad-b-worker-0", nil).Println("b: loss 0.5", "b: diverged")
	r := run("pipeline", "run", "-f", pipelineFile(t, "bad", "1"), "--wait", "--logs", "--timeout", "2m")
	if r.Code != 4 || !strings.Contains(r.Stderr, "pipeline bad failed: step b failed; c, d will never run") ||
		!strings.Contains(r.Stdout, "[a/worker-0] a: preparing\n[a/worker-0] a: done\n") || !strings.Contains(r.Stdout, "[b/worker-0] b: loss 0.5\n[b/worker-0] b: diverged\n") {
		t.Errorf("run --wait --logs of a pipeline whose b fails: exit %d, stdout %q, stderr %q; want 4 and a's and b's lines", r.Code, r.Stdout, r.Stderr)
	}
	r = run("pipeline", "wait", "bad", "--timeout", "2m")
	if r.Code != 4 || !strings.Contains(r.Stderr, "pipeline bad failed: step b failed; c, d will never run") {
		t.Errorf("wait of a pipeline whose b fails: exit %d, stderr %q; want 4 naming b, c and d", r.Code, r.Stderr)
	}
	var d pipelineDoc
	if err := json.Unmarshal([]byte(run("pipeline", "get", "bad", "-o", "json").MustSucceed(t).Stdout), &d); err != nil {
		t.Fatal(err)
	}
	if d.State != "Failed" || d.Steps[2].State != "NotCreated" || !strings.Contains(d.Steps[2].Reason, "Volcano's JobFlow creates no step after one that failed") {
		t.Errorf("pipeline get -o json: %+v", d)
	}
	// Some seconds later still: Volcano never creates c or d.
	time.Sleep(5 * time.Second)
	ctx := cluster.Context(t, 30*time.Second)
	for _, j := range []string{"bad-bad-c", "bad-bad-d"} {
		if _, err := c.Dynamic.Resource(volcanoJobs).Namespace(ns).Get(ctx, j, metav1.GetOptions{}); err == nil {
			t.Errorf("Volcano created %s after b failed", j)
		}
	}
	if r := run("pipeline", "logs", "bad", "c"); r.Code != 3 || !strings.Contains(r.Stderr, "step c of pipeline bad has no job: never created") {
		t.Errorf("pipeline logs of a step never created: exit %d, stderr %q", r.Code, r.Stderr)
	}
	// retry --from b: a new pipeline of b, c and d only, b starting from
	// the model_dir a wrote in the first run.
	if r := run("pipeline", "retry", "bad", "--from", "c"); r.Code != 2 || !strings.Contains(r.Stderr, "--from c: step b, which runs before it, has not succeeded (Failed): retry from b") {
		t.Errorf("retry --from c: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if out := run("pipeline", "retry", "bad", "--from", "b").MustSucceed(t).Stdout; out != "pipeline bad-r2 created in namespace "+ns+": 3 steps\n" {
		t.Errorf("retry --from b: %q", out)
	}
	var again pipelineDoc
	if err := json.Unmarshal([]byte(run("pipeline", "get", "bad-r2", "-o", "json").MustSucceed(t).Stdout), &again); err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, s := range again.Steps {
		steps = append(steps, s.Name+"<"+strings.Join(s.After, ","))
	}
	if got := strings.Join(steps, " "); got != "b< c<b d<b" {
		t.Errorf("the retry's steps: %s", got)
	}
	aTmpl, err := c.Dynamic.Resource(jobTemplates).Namespace(ns).Get(ctx, "bad-a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bTmpl, err := c.Dynamic.Resource(jobTemplates).Namespace(ns).Get(ctx, "bad-r2-b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(bTmpl.Object["spec"])
	if aDir := aTmpl.GetAnnotations()["easyai.io/job-dir"]; aDir == "" || !strings.Contains(string(spec), `"subPath":"flows/`+aDir+`/model_dir"`) {
		t.Errorf("the retried b does not start from the first run's a (%s): %s", aDir, spec)
	}
	if r := run("pipeline", "wait", "bad-r2", "--timeout", "2m"); r.Code != 4 || !strings.Contains(r.Stderr, "step b failed; c, d will never run") {
		t.Errorf("wait of the retry, whose b fails again: exit %d, stderr %q", r.Code, r.Stderr)
	}
	run("pipeline", "delete", "bad-r2", "--yes").MustSucceed(t)
	run("pipeline", "delete", "bad", "--yes").MustSucceed(t)
}

func pipelineBadInput(t *testing.T, c *cluster.Cluster, ns string, run func(...string) easyai.Result) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"cycle.yaml":   "name: cyc\nsteps:\n- {name: a, after: [b], job: {kind: volcano, image: x}}\n- {name: b, after: [a], job: {kind: volcano, image: x}}\n",
		"unknown.yaml": "name: unk\nsteps:\n- {name: a, after: [z], job: {kind: volcano, image: x}}\n",
		"kind.yaml":    "name: knd\nsteps:\n- {name: a, job: {kind: trainjob, image: x}}\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"cycle.yaml": "after: the steps form a cycle: a → b → a", "unknown.yaml": `steps[0] (a): after: no step "z"`,
			"kind.yaml": "step a is a trainjob job: a pipeline's steps run as Volcano Jobs"}[name]
		if r := run("pipeline", "run", "-f", path); r.Code != 2 || !strings.Contains(r.Stderr, want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", name, r.Code, r.Stderr, want)
		}
	}
	ctx := cluster.Context(t, 30*time.Second)
	for _, gvr := range []schema.GroupVersionResource{jobFlows, jobTemplates} {
		l, err := c.Dynamic.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil || len(l.Items) != 0 {
			t.Errorf("after bad input, %s: %d (%v)", gvr.Resource, len(l.Items), err)
		}
	}
}

func unstructuredString(obj map[string]any, fields ...string) (string, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false, nil
		}
		cur = m[f]
	}
	s, ok := cur.(string)
	return s, ok, nil
}
