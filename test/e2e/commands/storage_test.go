//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

var tfJobs = schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: "tfjobs"}

// jobDirOf is the job directory submit recorded on a TFJob.
func jobDirOf(t *testing.T, c *cluster.Cluster, ns, name string) string {
	t.Helper()
	obj, err := c.Dynamic.Resource(tfJobs).Namespace(ns).Get(cluster.Context(t, 30*time.Second), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := obj.GetAnnotations()[jobmodel.JobDirAnnotation]
	if !strings.HasPrefix(dir, name+"-") || len(dir) != len(name)+6 {
		t.Fatalf("tf/%s: annotation %s = %q, want NAME-XXXXX", name, jobmodel.JobDirAnnotation, dir)
	}
	return dir
}

// podOf waits for the pod and returns it as the API server stored it.
func podOf(t *testing.T, c *cluster.Cluster, ns, name string) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	cluster.Eventually(t, 90*time.Second, "pod "+name, func(ctx context.Context) (bool, error) {
		p, err := c.Kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		pod = p
		return err == nil, err
	})
	return pod
}

// mountsOf is "PATH <- SUBPATH [ro]" of the pod's first container's mounts
// of the storage volume, and that volume's claim.
func mountsOf(t *testing.T, pod *corev1.Pod) (map[string]string, string) {
	t.Helper()
	claim := ""
	for _, v := range pod.Spec.Volumes {
		if v.Name == "easyai-storage" && v.PersistentVolumeClaim != nil {
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	out := map[string]string{}
	for _, m := range pod.Spec.Containers[0].VolumeMounts {
		if m.Name != "easyai-storage" {
			continue
		}
		sub := m.SubPath
		if m.SubPathExpr != "" {
			sub = "expr:" + m.SubPathExpr
		}
		if m.ReadOnly {
			sub += " ro"
		}
		out[m.MountPath] = sub
	}
	return out, claim
}

func envOf(pod *corev1.Pod) map[string]string {
	out := map[string]string{}
	for _, e := range pod.Spec.Containers[0].Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			out[e.Name] = "field:" + e.ValueFrom.FieldRef.FieldPath
		default:
			out[e.Name] = e.Value
		}
	}
	return out
}

// TestStorageConventions: a namespace user's job on the team's claim gets
// its directories mounted with the sub-paths and environment variables of
// docs/storage.md, as the API server stored its pods; a job started from
// another's model mounts that job's model_dir read-only; bad input creates
// nothing.
func TestStorageConventions(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	c.BoundClaim(t, ns, "team-data")
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}

	r := easyai.RunWith(t, alice, "submit", "tf", "--name", "st", "--workers", "2", "--image", "example.com/train:1",
		"--storage", "pvc:team-data:/vision", "--env", cluster.RunForEnv+"=10m", "--", "python", "train.py").MustSucceed(t)
	if strings.Contains(r.Stderr, "not checked") {
		t.Errorf("the claim was not checked for a user with the edit role: %q", r.Stderr)
	}
	job := jobDirOf(t, c, ns, "st")
	pod := podOf(t, c, ns, "st-worker-1")
	mounts, claim := mountsOf(t, pod)
	want := map[string]string{
		"/summary_dir": "expr:vision/" + job + "/$(EASYAI_TASK)/summary_dir",
		"/model_dir":   "vision/" + job + "/model_dir",
		"/log_dir":     "vision/" + job + "/log_dir",
		"/data_dir":    "vision/data/alice ro",
		"/share_dir":   "vision/" + job + "/share_dir",
	}
	if claim != "team-data" || fmt.Sprint(mounts) != fmt.Sprint(want) {
		t.Errorf("st-worker-1 mounts claim %q: %v\nwant claim team-data: %v", claim, mounts, want)
	}
	env := envOf(pod)
	for name, value := range map[string]string{
		"summary_dir": "/summary_dir", "model_dir": "/model_dir", "log_dir": "/log_dir", "data_dir": "/data_dir", "share_dir": "/share_dir",
		"EASYAI_TASK_INDEX": "field:metadata.labels['training.kubeflow.org/replica-index']", "EASYAI_TASK": "worker-$(EASYAI_TASK_INDEX)",
	} {
		if env[name] != value {
			t.Errorf("st-worker-1: env %s = %q, want %q", name, env[name], value)
		}
	}
	// The replica index the kubelet puts into EASYAI_TASK is the pod's own.
	if pod.Labels["training.kubeflow.org/replica-index"] != "1" {
		t.Errorf("st-worker-1's labels %v: no replica index 1", pod.Labels)
	}
	// Persisted logs (on by default): the command runs under the tee.
	cmd := pod.Spec.Containers[0].Command
	if len(cmd) < 6 || cmd[0] != "/bin/sh" || cmd[3] != "easyai-tee" || strings.Join(cmd[4:], " ") != "python train.py" {
		t.Errorf("st-worker-1's command %q: want the tee, then python train.py", cmd)
	}

	// get shows where the directories are.
	r = easyai.RunWith(t, alice, "get", "st", "-o", "json").MustSucceed(t)
	var doc struct {
		Storage struct {
			Location string
			JobDir   string
			Dirs     []struct{ Name, MountPath, Location string }
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Storage.Location != "pvc:team-data:/vision" || doc.Storage.JobDir != job || len(doc.Storage.Dirs) != 5 ||
		doc.Storage.Dirs[1].Name != "model_dir" || doc.Storage.Dirs[1].Location != "pvc:team-data:/vision/"+job+"/model_dir" {
		t.Errorf("get -o json: storage %+v", doc.Storage)
	}
	r = easyai.RunWith(t, alice, "get", "st").MustSucceed(t)
	if !strings.Contains(r.Stdout, "/model_dir = pvc:team-data:/vision/"+job+"/model_dir") {
		t.Errorf("get: no model_dir line:\n%s", r.Stdout)
	}

	// A job from st's model: st's model_dir, read-only, at /pre_model_dir.
	easyai.RunWith(t, alice, "submit", "tf", "--name", "ft", "--image", "example.com/train:1", "--storage", "pvc:team-data:/vision",
		"--pretrained-from", "st", "--no-persist-logs", "--env", cluster.RunForEnv+"=10m", "--", "python", "finetune.py").MustSucceed(t)
	pod = podOf(t, c, ns, "ft-worker-0")
	mounts, _ = mountsOf(t, pod)
	if mounts["/pre_model_dir"] != "vision/"+job+"/model_dir ro" || envOf(pod)["pre_model_dir"] != "/pre_model_dir" {
		t.Errorf("ft-worker-0 mounts %v, env %v: want st's model_dir at /pre_model_dir", mounts, envOf(pod))
	}
	if cmd := pod.Spec.Containers[0].Command; strings.Join(cmd, " ") != "python finetune.py" {
		t.Errorf("--no-persist-logs: the command is %q", cmd)
	}

	// A rerun writes into directories of its own; its command keeps the tee.
	easyai.RunWith(t, alice, "rerun", "st", "--name", "st-again").MustSucceed(t)
	again := jobDirOf(t, c, ns, "st-again")
	pod = podOf(t, c, ns, "st-again-worker-0")
	mounts, _ = mountsOf(t, pod)
	if again == job || mounts["/model_dir"] != "vision/"+again+"/model_dir" || mounts["/data_dir"] != "vision/data/alice ro" {
		t.Errorf("the rerun of st (job dir %s) has job dir %s and mounts %v: want a new job dir", job, again, mounts)
	}
	if cmd := pod.Spec.Containers[0].Command; len(cmd) < 4 || cmd[3] != "easyai-tee" {
		t.Errorf("the rerun's command %q: want the tee", cmd)
	}

	// The configuration's storage (here from the environment) when no
	// --storage is given.
	easyai.RunWith(t, append(alice, "EASYAI_STORAGE=pvc:team-data:/cfg"), "submit", "tf", "--name", "fromcfg", "--image", "example.com/train:1",
		"--env", cluster.RunForEnv+"=10m", "--", "python", "train.py").MustSucceed(t)
	mounts, claim = mountsOf(t, podOf(t, c, ns, "fromcfg-worker-0"))
	if dir := jobDirOf(t, c, ns, "fromcfg"); claim != "team-data" || mounts["/model_dir"] != "cfg/"+dir+"/model_dir" {
		t.Errorf("fromcfg-worker-0 mounts claim %q: %v: want the configuration's storage", claim, mounts)
	}

	// Bad input exits 2 or 3, names it, and creates nothing.
	easyai.RunWith(t, alice, "submit", "tf", "--name", "nostore", "--image", "example.com/train:1", "--env", cluster.RunForEnv+"=10m", "--", "python", "x.py").MustSucceed(t)
	for _, bad := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--storage", "pvc:nope"}, 2, `Error: --storage: no PersistentVolumeClaim "nope" in namespace ` + ns},
		{[]string{"--storage", "s3:bucket"}, 2, `Error: --storage "s3:bucket": unknown scheme "s3"`},
		{[]string{"--storage", "pvc:team-data", "--pretrained-from", "nostore"}, 3, "Error: --pretrained-from nostore: the job was submitted without --storage"},
		{[]string{"--storage", "pvc:team-data", "--pretrained-from", "ghost"}, 3, "ghost not found"},
		{[]string{"--pretrained-from", "st"}, 2, "Error: --pretrained-from: the job has no storage"},
		{[]string{"--storage", "pvc:team-data", "--code", "git:https://u:secret@example.com/r.git"}, 2, "the URL carries credentials"},
	} {
		args := append([]string{"submit", "tf", "--name", "bad", "--image", "example.com/train:1"}, bad.args...)
		r := easyai.RunWith(t, alice, append(args, "--", "python", "x.py")...)
		if r.Code != bad.code || !strings.Contains(r.Stderr, bad.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d saying %q", bad.args, r.Code, r.Stderr, bad.code, bad.stderr)
		}
		if strings.Contains(r.Stderr, "secret@") || strings.Contains(r.Stdout, "secret@") {
			t.Errorf("%v: the URL's password was printed: %q", bad.args, r.Stderr)
		}
		_, err := c.Dynamic.Resource(tfJobs).Namespace(ns).Get(cluster.Context(t, 30*time.Second), "bad", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			t.Fatalf("%v: tf/bad exists (%v): bad input created a job", bad.args, err)
		}
	}
}

// TestCodeFromGit: the init container that clones the code, as the API
// server stored the pod: the URL and ref in its environment, the Secret by
// name only, the working directory the clone.
func TestCodeFromGit(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	r := easyai.Run(t, "submit", "tf", "-n", ns, "--name", "gitcode", "--image", "example.com/train:1",
		"--code", "git:https://git.example.com/team/models.git@v2.1#vision", "--code-secret", "git-creds",
		"--env", cluster.RunForEnv+"=10m", "--", "python", "train.py").MustSucceed(t)
	if strings.Contains(r.Stdout+r.Stderr, "password") {
		t.Errorf("submit printed a credential: %q %q", r.Stdout, r.Stderr)
	}
	pod := podOf(t, c, ns, "gitcode-worker-0")
	if len(pod.Spec.InitContainers) != 1 {
		t.Fatalf("init containers %v, want the clone", pod.Spec.InitContainers)
	}
	clone := pod.Spec.InitContainers[0]
	env := map[string]string{}
	for _, e := range clone.Env {
		env[e.Name] = e.Value
	}
	if env["EASYAI_GIT_URL"] != "https://git.example.com/team/models.git" || env["EASYAI_GIT_REF"] != "v2.1" || env["EASYAI_GIT_SECRET"] != "/easyai-code-secret" {
		t.Errorf("the clone's env %v", env)
	}
	if len(clone.Command) != 3 || clone.Command[0] != "/bin/sh" || !strings.Contains(clone.Command[2], "--depth 1") || strings.Contains(strings.Join(clone.Command, " "), "git.example.com") {
		t.Errorf("the clone's command %q: want a shallow clone whose URL is in the environment, not the arguments", clone.Command)
	}
	secret := ""
	for _, v := range pod.Spec.Volumes {
		if v.Secret != nil {
			secret = v.Secret.SecretName
		}
	}
	if secret != "git-creds" {
		t.Errorf("the Secret volume %q, want git-creds by name", secret)
	}
	main := pod.Spec.Containers[0]
	if main.WorkingDir != "/workspace" {
		t.Errorf("working directory %q, want /workspace", main.WorkingDir)
	}
	var codeMount *corev1.VolumeMount
	for i, m := range main.VolumeMounts {
		if m.MountPath == "/workspace" {
			codeMount = &main.VolumeMounts[i]
		}
	}
	if codeMount == nil || codeMount.Name != "easyai-code" || codeMount.SubPath != "vision" {
		t.Errorf("the main container's mounts %v: want the clone's vision/ at /workspace", main.VolumeMounts)
	}
	for _, m := range main.VolumeMounts {
		if m.Name == "easyai-code-secret" {
			t.Error("the Secret is mounted in the training container, not only in the clone")
		}
	}
}

// TestCodeFromALocalDirectory: submit --code dir:PATH uploads the directory
// onto the storage, at {job}/code, before the job is created, and mounts it
// at the working directory; a job that cannot be created leaves no code
// behind.
func TestCodeFromALocalDirectory(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	c.BoundClaim(t, ns, "team-data")
	volume := c.NamespaceExecDir(t, ns)
	local := fillOutputs(t, t.TempDir(), "src")

	r := easyai.Run(t, "submit", "tf", "-n", ns, "--name", "dircode", "--image", "example.com/train:1", "--storage", "pvc:team-data:/vision",
		"--code", "dir:"+local, "--env", cluster.RunForEnv+"=10m", "--", "python", "train.py").MustSucceed(t)
	if !strings.Contains(r.Stderr, "Uploading "+local+" to pvc:team-data:/vision/") {
		t.Errorf("stderr %q: no line saying where the code goes", r.Stderr)
	}
	dir := jobDirOf(t, c, ns, "dircode")
	sameTree(t, local, filepath.Join(volume, "vision", dir, "code"))
	main := podOf(t, c, ns, "dircode-worker-0").Spec.Containers[0]
	found := false
	for _, m := range main.VolumeMounts {
		if m.MountPath == "/workspace" && m.Name == "easyai-storage" && m.SubPath == "vision/"+dir+"/code" {
			found = true
		}
	}
	if main.WorkingDir != "/workspace" || !found {
		t.Errorf("working directory %q, mounts %v: want the uploaded code at /workspace", main.WorkingDir, main.VolumeMounts)
	}

	// The same name again: the job cannot be created, and its code is
	// removed again.
	r = easyai.Run(t, "submit", "tf", "-n", ns, "--name", "dircode", "--image", "example.com/train:1", "--storage", "pvc:team-data:/vision",
		"--code", "dir:"+local, "--", "python", "train.py")
	if r.Code == 0 || !strings.Contains(r.Stderr, "already exists") {
		t.Fatalf("a second dircode: exit %d, stderr %q", r.Code, r.Stderr)
	}
	entries, err := os.ReadDir(filepath.Join(volume, "vision"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		dirs = append(dirs, e.Name())
	}
	if len(dirs) != 1 || dirs[0] != dir {
		t.Errorf("the storage holds %v, want only %s: the failed submit left its code", dirs, dir)
	}

	// Too much for code: refused before anything is made.
	big := filepath.Join(t.TempDir(), "big")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(big, "weights.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(300 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r = easyai.Run(t, "submit", "tf", "-n", ns, "--name", "bigcode", "--image", "example.com/train:1", "--storage", "pvc:team-data",
		"--code", "dir:"+big, "--", "python", "train.py")
	if r.Code != 2 || !strings.Contains(r.Stderr, "more than the") {
		t.Errorf("300 MiB of code: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if _, err := c.Dynamic.Resource(tfJobs).Namespace(ns).Get(cluster.Context(t, 30*time.Second), "bigcode", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("tf/bigcode exists (%v)", err)
	}
}
