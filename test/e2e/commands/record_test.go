//go:build e2e

package commands

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	kfclient "github.com/kubeflow/training-operator/pkg/client/clientset/versioned"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// recordJobFile is a TFJob whose one worker succeeds 2s after it starts,
// without GPUs.
const recordJobFile = `kind: tf
image: example.com/train:1
command: [python, train.py, --epochs, "3"]
roles:
  worker:
    replicas: 1
podAnnotations:
  ` + cluster.ExitCodeAnnotation + `: "0"
  ` + cluster.RunForAnnotation + `: 2s
`

// as runs easyai with the environment env (nil: the admin's kubeconfig).
type as []string

func (env as) run(t *testing.T, args ...string) easyai.Result {
	t.Helper()
	return easyai.RunWith(t, env, args...)
}

// writeFile writes content to a new file of the test and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var submittedName = regexp.MustCompile(`^tf/(tf-[a-z]+-[a-z]+-[a-z0-9]{4})\n$`)

// rerunOf reruns a job with -o name and returns the new job's name, which
// must be a generated one, said on stderr too.
func rerunOf(t *testing.T, env as, args ...string) string {
	t.Helper()
	r := env.run(t, append([]string{"rerun", "-o", "name"}, args...)...).MustSucceed(t)
	m := submittedName.FindStringSubmatch(r.Stdout)
	if m == nil || !strings.Contains(r.Stderr, "Job name: "+m[1]+"\n") {
		t.Fatalf("rerun %v: stdout %q, stderr %q: want a generated name", args, r.Stdout, r.Stderr)
	}
	return m[1]
}

// checkRerunAndValues runs rerun and get -o values as env in ns, which env
// may work in: a finished job submitted again (with flags over its values),
// the round trip of get -o values through submit -f, and the jobs easyai
// has no values of.
func checkRerunAndValues(t *testing.T, c *cluster.Cluster, kf kfclient.Interface, env as, ns string) {
	t.Helper()
	env.run(t, "submit", "-n", ns, "-f", writeFile(t, "job.yaml", recordJobFile), "--name", "src", "--experiment", "sweep").MustSucceed(t)
	env.run(t, "wait", "src", "-n", ns, "--timeout", "90s").MustSucceed(t)

	// Submitted again, finished: a new name, the experiment, the values
	// recorded with --workers over them, and the source named.
	again := rerunOf(t, env, "src", "-n", ns, "--workers", "2")
	job, err := kf.KubeflowV1().TFJobs(ns).Get(cluster.Context(t, 30*time.Second), again, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	worker := job.Spec.TFReplicaSpecs[kubeflowv1.TFJobReplicaTypeWorker]
	container := worker.Template.Spec.Containers[0]
	if *worker.Replicas != 2 || container.Image != "example.com/train:1" || worker.Template.Annotations[cluster.ExitCodeAnnotation] != "0" ||
		!strings.Contains(strings.Join(append(container.Command, container.Args...), " "), "python train.py --epochs 3") {
		t.Errorf("rerun of src: %d workers, image %s, command %q %q, pod annotations %v",
			*worker.Replicas, container.Image, container.Command, container.Args, worker.Template.Annotations)
	}
	if job.Labels[jobmodel.ExperimentLabel] != "sweep" || job.Labels[jobmodel.NameLabel] != again || job.Annotations[jobmodel.RerunOfAnnotation] != "tf/src" {
		t.Errorf("rerun of src: labels %v, annotations %v", job.Labels, job.Annotations)
	}
	env.run(t, "wait", again, "-n", ns, "--timeout", "90s").MustSucceed(t)

	// Flags win: a name, an experiment, an image and a command of its own.
	r := env.run(t, "rerun", "tf/src", "-n", ns, "--name", "src-2", "--experiment", "other", "--image", "example.com/train:2",
		"--", "python", "train.py", "--epochs", "5").MustSucceed(t)
	if r.Stdout != "tf/src-2 submitted to namespace "+ns+"\n" {
		t.Errorf("rerun --name src-2: stdout %q", r.Stdout)
	}
	job, err = kf.KubeflowV1().TFJobs(ns).Get(cluster.Context(t, 30*time.Second), "src-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	container = job.Spec.TFReplicaSpecs[kubeflowv1.TFJobReplicaTypeWorker].Template.Spec.Containers[0]
	if container.Image != "example.com/train:2" || !strings.Contains(strings.Join(append(container.Command, container.Args...), " "), "--epochs 5") ||
		job.Labels[jobmodel.ExperimentLabel] != "other" {
		t.Errorf("rerun with flags: image %s, command %q %q, labels %v", container.Image, container.Command, container.Args, job.Labels)
	}

	// A server dry run shows the job and creates none; the name of a job
	// that exists is the API server's refusal.
	before := env.run(t, "list", "-n", ns, "-o", "name").MustSucceed(t).Stdout
	r = env.run(t, "rerun", "src", "-n", ns, "--dry-run=server", "-o", "yaml").MustSucceed(t)
	if !strings.Contains(r.Stdout, "kind: TFJob\n") || !strings.Contains(r.Stdout, jobmodel.RerunOfAnnotation+": tf/src\n") {
		t.Errorf("rerun --dry-run=server:\n%s", r.Stdout)
	}
	if r := env.run(t, "rerun", "src", "-n", ns, "--name", "src-2"); r.Code != 1 || !strings.Contains(r.Stderr, "already exists") {
		t.Errorf("rerun --name of a job that exists: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if after := env.run(t, "list", "-n", ns, "-o", "name").MustSucceed(t).Stdout; after != before {
		t.Errorf("jobs after a dry run and a refused rerun:\n%s\nbefore:\n%s", after, before)
	}

	// get -o values is a job file that submit -f submits again; the new
	// job's values are the same.
	values := env.run(t, "get", "src", "-n", ns, "-o", "values").MustSucceed(t)
	if !strings.HasPrefix(values.Stdout, "kind: tf\n") || strings.Contains(values.Stdout, "\nname:") || values.Stderr != "" {
		t.Errorf("get -o values: stdout\n%s\nstderr %q", values.Stdout, values.Stderr)
	}
	r = env.run(t, "submit", "-n", ns, "-f", writeFile(t, "src.yaml", values.Stdout)).MustSucceed(t)
	copied := regexp.MustCompile(`^tf/(\S+) submitted to namespace `).FindStringSubmatch(r.Stdout)
	if copied == nil {
		t.Fatalf("submit -f of get -o values: stdout %q", r.Stdout)
	}
	if got := env.run(t, "get", copied[1], "-n", ns, "-o", "values").MustSucceed(t).Stdout; got != values.Stdout {
		t.Errorf("values of the job submitted from them:\n%s\nwant\n%s", got, values.Stdout)
	}

	// Jobs easyai has no values of: exit 3 (not submitted by easyai), exit
	// 2 naming the annotation (edited into what is not JSON).
	ctx := cluster.Context(t, 30*time.Second)
	for name, annotations := range map[string]map[string]string{
		"foreign": nil,
		"edited":  {jobmodel.RequestAnnotation: `{"image": "example.com/train:2",`},
	} {
		j := &kubeflowv1.TFJob{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Annotations: annotations, Labels: map[string]string{jobmodel.KindLabel: "tf"}},
			Spec: kubeflowv1.TFJobSpec{TFReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
				kubeflowv1.TFJobReplicaTypeWorker: replica(1, 0, 0, "tensorflow"),
			}},
		}
		if _, err := kf.KubeflowV1().TFJobs(ns).Create(ctx, j, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"rerun", "foreign"}, {"get", "foreign", "-o", "values"}} {
		r := env.run(t, append(args, "-n", ns)...)
		if want := "Error: tf/foreign was not submitted by easyai: it has no easyai.io/request annotation, the values to submit it from\n"; r.Code != 3 || r.Stderr != want || r.Stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 3: %s", args, r.Code, r.Stdout, r.Stderr, want)
		}
	}
	for _, args := range [][]string{{"rerun", "edited"}, {"get", "edited", "-o", "values"}} {
		r := env.run(t, append(args, "-n", ns)...)
		if r.Code != 2 || !strings.HasPrefix(r.Stderr, "Error: tf/edited: annotation easyai.io/request: ") || strings.Count(r.Stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming the annotation", args, r.Code, r.Stderr)
		}
	}
	if r := env.run(t, "rerun", "gone", "-n", ns); r.Code != 3 {
		t.Errorf("rerun of a job that does not exist: exit %d, stderr %q", r.Code, r.Stderr)
	}
}

// TestRerunAndGetValues: as the cluster's admin.
func TestRerunAndGetValues(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	checkRerunAndValues(t, c, kf, nil, c.Namespace(t))
}

// TestRecordCommandsAsNamespaceUser: rerun, get -o values, experiments and
// prune as alice, who may work in her namespace only (examples/rbac/).
func TestRecordCommandsAsNamespaceUser(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := as{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	checkRerunAndValues(t, c, kf, alice, ns)

	// src and its rerun are of experiment sweep, src-2 of other: all done
	// or about to be.
	eventually(t, "experiments as alice", func() string {
		r := alice.run(t, "experiments")
		if r.Code != 0 || r.Stderr != "" {
			return fmt.Sprintf("exit %d, stderr %q", r.Code, r.Stderr)
		}
		if !strings.Contains(r.Stdout, "sweep\t2\t0\t0\t2\t0\t0\t") {
			return "sweep is not 2 succeeded jobs:\n" + r.Stdout
		}
		return ""
	})
	// Her jobs of experiment other: src-2 (and the copy's is none).
	r := alice.run(t, "prune", "--experiment", "other", "--yes").MustSucceed(t)
	if !strings.HasPrefix(r.Stdout, "tf/src-2\t") || !strings.HasSuffix(r.Stdout, "deleted tf/src-2\n") {
		t.Errorf("prune --experiment other as alice: stdout %q, stderr %q", r.Stdout, r.Stderr)
	}
	// The foreign and edited jobs, made without easyai's labels, are never pruned.
	r = alice.run(t, "prune", "-l", jobmodel.KindLabel+"=tf", "--dry-run").MustSucceed(t)
	if strings.Contains(r.Stdout, "foreign") || strings.Contains(r.Stdout, "edited") || !strings.Contains(r.Stdout, "tf/src\t") {
		t.Errorf("prune -l --dry-run as alice: stdout %q", r.Stdout)
	}
}

// TestPrune: what prune selects, prints and deletes; what it refuses.
func TestPrune(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	file := writeFile(t, "job.yaml", recordJobFile)
	for _, name := range []string{"done-1", "done-2"} {
		easyai.Run(t, "submit", "-n", ns, "-f", file, "--name", name, "--experiment", "sweep").MustSucceed(t)
	}
	easyai.Run(t, "submit", "tf", "-n", ns, "--name", "running", "--image", "example.com/train:1", "--experiment", "sweep", "--", "python", "train.py").MustSucceed(t)
	createTFJob(t, kf, ns, "handmade", 1, time.Second, "", "")
	for _, name := range []string{"done-1", "done-2", "handmade"} {
		easyai.Run(t, "wait", name, "-n", ns, "--timeout", "90s").MustSucceed(t)
	}

	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, "Error: say which jobs to prune: --finished, --older-than, --experiment or -l (any of them; a job must match all given)\n"},
		{[]string{"--finished"}, "Error: not pruning without confirmation: pass --yes, or --dry-run to only see the jobs (there is no terminal to ask on)\n"},
		{[]string{"--older-than", "a week", "--yes"}, "Error: --older-than \"a week\": must be an age such as 7d, 36h, 90m or 1d12h\n"},
	} {
		r := easyai.Run(t, append([]string{"prune", "-n", ns}, tc.args...)...)
		if r.Code != 2 || r.Stderr != tc.err || r.Stdout != "" {
			t.Errorf("prune %v: exit %d, stdout %q, stderr %q; want exit 2: %s", tc.args, r.Code, r.Stdout, r.Stderr, tc.err)
		}
	}

	// Nothing is a week old.
	r := easyai.Run(t, "prune", "-n", ns, "--finished", "--older-than", "7d", "--yes").MustSucceed(t)
	if r.Stdout != "" || r.Stderr != "No jobs to prune in namespace "+ns+".\n" {
		t.Errorf("prune --older-than 7d: stdout %q, stderr %q", r.Stdout, r.Stderr)
	}
	// A dry run lists the finished jobs easyai submitted and deletes nothing.
	r = easyai.Run(t, "prune", "-n", ns, "--finished", "--older-than", "1s", "--dry-run").MustSucceed(t)
	// Newest first: done-2, unless both were made within the same second.
	if !regexp.MustCompile(`^(tf/done-2\tSucceeded\t\d+s\ntf/done-1|tf/done-1\tSucceeded\t\d+s\ntf/done-2)\tSucceeded\t\d+s\n$`).MatchString(r.Stdout) ||
		r.Stderr != "2 jobs would be deleted in namespace "+ns+" (dry run: nothing deleted).\n" {
		t.Errorf("prune --dry-run: stdout %q, stderr %q", r.Stdout, r.Stderr)
	}
	if got := easyai.Run(t, "list", "-n", ns, "-o", "name").MustSucceed(t).Stdout; strings.Count(got, "\n") != 4 {
		t.Errorf("jobs after a dry run:\n%s", got)
	}
	r = easyai.Run(t, "prune", "-n", ns, "--finished", "--yes").MustSucceed(t)
	if !strings.Contains(r.Stdout, "\ndeleted tf/done-1\n") || !strings.Contains(r.Stdout, "\ndeleted tf/done-2\n") || strings.Count(r.Stdout, "deleted ") != 2 {
		t.Errorf("prune --finished: stdout %q, stderr %q", r.Stdout, r.Stderr)
	}
	if got := easyai.Run(t, "list", "-n", ns, "-o", "name").MustSucceed(t).Stdout; got != "tf/handmade\ntf/running\n" && got != "tf/running\ntf/handmade\n" {
		t.Errorf("left after prune --finished: %q", got)
	}
}

// TestPruneReportsEachJobItCannotDelete: carol may list TFJobs and
// PyTorchJobs but delete only TFJobs: the TFJob is deleted, the PyTorchJob
// reported, prune exits 1; the kinds she may not list are one warning each.
func TestPruneReportsEachJobItCannotDelete(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	createTFJob(t, kf, ns, "lr-1", 1, 0, "alice", "doomed")
	createPyTorchJob(t, kf, ns, "lr-2", "alice", "doomed")
	createTFJob(t, kf, ns, "keep", 1, 0, "alice", "other")
	ctx := cluster.Context(t, time.Minute)
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "pruner"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"kubeflow.org"}, Resources: []string{"tfjobs", "pytorchjobs"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"kubeflow.org"}, Resources: []string{"tfjobs"}, Verbs: []string{"delete"}}}}
	if _, err := c.Kube.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "pruner-carol"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "carol"}}}
	if _, err := c.Kube.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	carol := as{"KUBECONFIG=" + c.UserKubeconfig(t, "carol", ns)}

	r := carol.run(t, "prune", "--experiment", "doomed", "--yes")
	if r.Code != 1 || !strings.Contains(r.Stdout, "deleted tf/lr-1\n") || strings.Contains(r.Stdout, "deleted pytorch/lr-2") {
		t.Errorf("prune as carol: exit %d, stdout %q, stderr %q", r.Code, r.Stdout, r.Stderr)
	}
	var errors, warnings int
	for _, line := range strings.Split(strings.TrimSuffix(r.Stderr, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "Warning: cannot list ") && strings.HasSuffix(line, " in "+ns+": forbidden"):
			warnings++
		case strings.HasPrefix(line, "Error: deleting pytorch/lr-2: ") && strings.Contains(line, "forbidden"):
			errors++
		case line == "Error: 1 of 2 jobs not deleted":
			errors++
		default:
			t.Errorf("prune as carol: stderr line %q", line)
		}
	}
	if errors != 2 || warnings == 0 {
		t.Errorf("prune as carol: stderr\n%s", r.Stderr)
	}
	if got := easyai.Run(t, "list", "-n", ns, "-o", "name").MustSucceed(t).Stdout; got != "pytorch/lr-2\ntf/keep\n" && got != "tf/keep\npytorch/lr-2\n" {
		t.Errorf("left after carol's prune: %q", got)
	}
}

// TestExperiments: one line per experiment, counted by state, with the
// GPUs of its running jobs and its newest job; a document with -o json; a
// user who may list TFJobs only sees theirs, with a warning per kind.
func TestExperiments(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	// sweep: two running TFJobs (1 PS, 1 and 2 workers of a GPU each) and a
	// running PyTorchJob (2 replicas of 2 GPUs), the newest; bert: a TFJob
	// whose worker succeeds; solo belongs to none.
	createTFJob(t, kf, ns, "lr-1", 1, 0, "alice", "sweep")
	createTFJob(t, kf, ns, "lr-2", 2, 0, "alice", "sweep")
	time.Sleep(1100 * time.Millisecond) // a creation time of its own, to the second
	createPyTorchJob(t, kf, ns, "lr-3", "bob", "sweep")
	createTFJob(t, kf, ns, "bert-1", 1, time.Second, "alice", "bert")
	createTFJob(t, kf, ns, "solo", 1, 0, "alice", "")

	eventually(t, "experiments", func() string {
		r := easyai.Run(t, "experiments", "-n", ns)
		if r.Code != 0 || r.Stderr != "" {
			return fmt.Sprintf("exit %d, stderr %q", r.Code, r.Stderr)
		}
		// EXPERIMENT JOBS RUNNING PENDING SUCCEEDED FAILED GPUS NEWEST AGE
		if !regexp.MustCompile(`^(sweep\t3\t3\t0\t0\t0\t7\tlr-3\t\d+s\nbert\t1\t0\t0\t1\t0\t0\tbert-1\t\d+s\n|` +
			`bert\t1\t0\t0\t1\t0\t0\tbert-1\t\d+s\nsweep\t3\t3\t0\t0\t0\t7\tlr-3\t\d+s\n)$`).MatchString(r.Stdout) {
			return "stdout\n" + r.Stdout
		}
		return ""
	})
	r := easyai.Run(t, "experiments", "-n", ns, "-o", "json").MustSucceed(t)
	var doc jobclient.ExperimentList
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatalf("-o json: %v\n%s", err, r.Stdout)
	}
	byName := map[string]jobclient.Experiment{}
	for _, e := range doc.Items {
		byName[e.Name] = e
	}
	if doc.Kind != "ExperimentList" || doc.APIVersion != "easyai.io/v1" || len(doc.Items) != 2 ||
		byName["sweep"].GPUs != 7 || byName["sweep"].Newest.Name != "lr-3" || byName["sweep"].Newest.KindName != "pytorch" {
		t.Errorf("ExperimentList %+v", doc)
	}

	// Dave may list TFJobs only.
	ctx := cluster.Context(t, time.Minute)
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "tfjobs-reader"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"kubeflow.org"}, Resources: []string{"tfjobs"}, Verbs: []string{"get", "list"}}}}
	if _, err := c.Kube.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "tfjobs-reader-dave"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "dave"}}}
	if _, err := c.Kube.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dave := as{"KUBECONFIG=" + c.UserKubeconfig(t, "dave", ns)}
	r = dave.run(t, "experiments", "-o", "name").MustSucceed(t)
	if r.Stdout != "sweep\nbert\n" && r.Stdout != "bert\nsweep\n" {
		t.Errorf("experiments as dave: stdout %q", r.Stdout)
	}
	if !strings.Contains(r.Stderr, "Warning: cannot list pytorchjobs in "+ns+": forbidden\n") || strings.Contains(r.Stderr, "tfjobs") {
		t.Errorf("experiments as dave: stderr %q", r.Stderr)
	}
	// lr-1 and lr-2 may share their creation second: then lr-1 is the newest.
	if r := dave.run(t, "experiments"); !regexp.MustCompile(`(^|\n)sweep\t2\t2\t0\t0\t0\t3\tlr-[12]\t`).MatchString(r.Stdout) {
		t.Errorf("experiments as dave: stdout %q", r.Stdout)
	}
}

// TestRecordCommandsOnTimaker: a timaker cluster keeps no values of its
// jobs: get -o values and rerun say so in one line (exit 2); prune and
// experiments need Kubernetes.
func TestRecordCommandsOnTimaker(t *testing.T) {
	t.Parallel()
	tt := newTimakerTarget(t)
	tt.run(t, "submit", "tf", "--name", "e2e-rec", "--image", "registry.example.com/team/train:1", "--", "python", "train.py").MustSucceed(t)
	want := "Error: timaker cluster prod keeps no values of the jobs submitted to it: get -o values and rerun work on Kubernetes clusters only\n"
	for _, args := range [][]string{{"get", "e2e-rec", "-o", "values"}, {"rerun", "e2e-rec"}} {
		r := tt.run(t, args...)
		if r.Code != 2 || r.Stderr != want || r.Stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2: %s", args, r.Code, r.Stdout, r.Stderr, want)
		}
	}
	for _, args := range [][]string{{"prune", "--finished", "--yes"}, {"experiments"}} {
		r := tt.run(t, args...)
		if r.Code != 2 || !strings.HasPrefix(r.Stderr, "Error: easyai "+args[0]+" needs a Kubernetes cluster, and timaker cluster \"prod\" has no Kubernetes API\n") {
			t.Errorf("%v: exit %d, stderr %q", args, r.Code, r.Stderr)
		}
	}
	if n := len(tt.creates()); n != 1 {
		t.Errorf("%d CreateTrainingJob requests, want the submit's only", n)
	}
}
