//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// Under kwok, exec into any pod of the namespace runs in the directory
// NamespaceExecDir returns: the helper pods mount the whole volume and
// work below their working directory, so that directory is the volume's
// root and the sub-paths they enter are real directories in it.

// uploadSummary is upload -o json.
type uploadSummary struct {
	Storage, Path, Location, Job, Pod string
	Files, Dirs                       int
	Bytes                             int64
}

func decodeUpload(t *testing.T, r easyai.Result) uploadSummary {
	t.Helper()
	var s uploadSummary
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatalf("upload -o json: %v\n%s", err, r.Stdout)
	}
	return s
}

// noHelperPods waits until no uploader or fetcher pod is left.
func noHelperPods(t *testing.T, c *cluster.Cluster, ns string) {
	t.Helper()
	cluster.Eventually(t, 30*time.Second, "the helper pods deleted", func(ctx context.Context) (bool, error) {
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: jobmodel.RoleLabel + " in (uploader,fetcher)"})
		if err != nil {
			return false, err
		}
		return len(pods.Items) == 0, nil
	})
}

// The admin uploads into the data directory and the team's share, on a
// claim and on an NFS export; the files land byte for byte below the
// prefix. Without a storage upload exits 2, a job without one 3.
func TestUploadOntoTheStorage(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	c.BoundClaim(t, ns, "team-data")
	volume := c.NamespaceExecDir(t, ns)
	local := fillOutputs(t, t.TempDir(), "dataset")

	r := easyai.Run(t, "upload", local, "-n", ns, "--storage", "pvc:team-data:/teams/a", "-o", "json").MustSucceed(t)
	s := decodeUpload(t, r)
	if !strings.HasPrefix(s.Path, "data/") || !strings.HasSuffix(s.Path, "/dataset") || s.Storage != "pvc:team-data:/teams/a" ||
		s.Location != "pvc:team-data:/teams/a/"+s.Path || s.Files != 7 || s.Bytes != 3<<20+123+4000+14+5+10+15 {
		t.Errorf("summary %+v", s)
	}
	sameTree(t, local, filepath.Join(volume, "teams/a", s.Path))
	for _, want := range []string{
		"Uploading " + local + " to " + s.Location + "\n",
		"Uploaded 7 files, 3.0 MiB to " + s.Location + " in ",
		"Jobs you submit read it at /data_dir/dataset, or at /data_dir with --data-dir " + s.Path + "\n",
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr %q\nwant %q in it", r.Stderr, want)
		}
	}

	// A file into the share, on an NFS export (the same volume here).
	file := filepath.Join(local, "metrics.json")
	r = easyai.Run(t, "upload", file, "-n", ns, "--to", "share", "--storage", "nfs:10.0.0.5:/export:/teams/b").MustSucceed(t)
	if got := mustRead(t, filepath.Join(volume, "teams/b/share/metrics.json")); string(got) != `{"loss": 0.12}`+"\n" {
		t.Errorf("share/metrics.json: %q", got)
	}
	if !strings.Contains(r.Stderr, "Uploaded 1 file, 15 B to nfs:10.0.0.5:/export/teams/b/share/metrics.json in ") {
		t.Errorf("stderr %q", r.Stderr)
	}

	r = easyai.Run(t, "upload", file, "-n", ns)
	if r.Code != 2 || !strings.Contains(r.Stderr, "no storage to upload to: give --storage") || !strings.Contains(r.Stderr, "config set storage") {
		t.Errorf("without a storage: exit %d, stderr %q", r.Code, r.Stderr)
	}
	submitTF(t, ns, "plain", "1").MustSucceed(t)
	r = easyai.Run(t, "upload", file, "-n", ns, "--to", "plain")
	if r.Code != 3 || !strings.Contains(r.Stderr, "tf/plain was submitted without --storage: it has no share_dir to upload to") {
		t.Errorf("to a job without a storage: exit %d, stderr %q", r.Code, r.Stderr)
	}
	noHelperPods(t, c, ns)
}

// A user whose rights end at the namespace (the example Role and edit)
// submits a job with a storage, uploads into its share_dir, and once the
// job succeeded and its pods were cleaned up downloads the share_dir and
// the model_dir byte for byte and reads the logs its replica kept.
func TestStorageRoundTripAsANamespaceUser(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	c.BoundClaim(t, ns, "team-data")
	volume := c.NamespaceExecDir(t, ns)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}

	easyai.RunWith(t, alice, "submit", "tf", "--name", "io", "--workers", "1", "--image", "example.com/train:1",
		"--storage", "pvc:team-data:/teams/a", "--set", "runPolicy.cleanPodPolicy=All",
		"--env", cluster.RunForEnv+"=20s", "--env", cluster.ExitCodeEnv+"=0", "--", "python", "train.py").MustSucceed(t)
	job := jobDirOf(t, c, ns, "io")
	jobRoot := filepath.Join(volume, "teams/a", job)

	// Into the running job's share_dir.
	local := fillOutputs(t, t.TempDir(), "config")
	r := easyai.RunWith(t, alice, "upload", local, "--to", "io", "-o", "json").MustSucceed(t)
	if s := decodeUpload(t, r); s.Job != "tf/io" || s.Path != job+"/share_dir/config" || s.Location != "pvc:team-data:/teams/a/"+job+"/share_dir/config" {
		t.Errorf("summary %+v", s)
	}
	sameTree(t, local, filepath.Join(jobRoot, "share_dir/config"))
	// A data set into alice's data directory.
	r = easyai.RunWith(t, alice, "upload", filepath.Join(local, "nested"), "--storage", "pvc:team-data:/teams/a", "-o", "json").MustSucceed(t)
	if s := decodeUpload(t, r); s.Path != "data/alice/nested" {
		t.Errorf("summary %+v", s)
	}
	sameTree(t, filepath.Join(local, "nested"), filepath.Join(volume, "teams/a/data/alice/nested"))

	// What the job "wrote": its model and its replica's kept log, beside
	// the named pipes the tee of a running replica keeps.
	model := fillOutputs(t, jobRoot, "model_dir")
	logDir := filepath.Join(jobRoot, "log_dir")
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(logDir, "worker-0.log"), []byte("step 1 loss 0.9\nstep 2 loss 0.5\ndone\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, fifo := range []string{".worker-0.7.out", ".worker-0.7.err"} {
		if err := syscall.Mkfifo(filepath.Join(logDir, fifo), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	easyai.RunWith(t, alice, "wait", "io", "--timeout", "2m").MustSucceed(t)
	cluster.Eventually(t, 90*time.Second, "the pods of tf/io cleaned up", func(ctx context.Context) (bool, error) {
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "training.kubeflow.org/job-name=io"})
		if err != nil {
			return false, err
		}
		return len(pods.Items) == 0, nil
	})

	dest := t.TempDir()
	r = easyai.RunWith(t, alice, "download", "io", "/share_dir/config", dest).MustSucceed(t)
	sameTree(t, local, filepath.Join(dest, "config"))
	if !strings.Contains(r.Stderr, "fetching /share_dir/config (pvc:team-data:/teams/a/"+job+"/share_dir/config) through a fetcher pod") {
		t.Errorf("download: stderr %q", r.Stderr)
	}
	// No path: the model_dir, into the current directory.
	cmd := exec.Command(easyai.Binary(t), "download", "io")
	cmd.Dir = dest
	cmd.Env = append(os.Environ(), append(alice, "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")...)
	r = easyai.Exec(t, cmd, 2*time.Minute).MustSucceed(t)
	if !strings.HasPrefix(r.Stderr, "Downloading the model_dir of tf/io (give a path for another)\n") {
		t.Errorf("download without a path: stderr %q", r.Stderr)
	}
	sameTree(t, model, filepath.Join(dest, "model_dir"))

	r = easyai.RunWith(t, alice, "logs", "io").MustSucceed(t)
	if r.Stdout != "[worker-0] step 1 loss 0.9\n[worker-0] step 2 loss 0.5\n[worker-0] done\n" {
		t.Errorf("logs: stdout %q", r.Stdout)
	}
	if want := "The pods of tf/io are gone: reading the logs its replicas kept on the storage (pvc:team-data:/teams/a/" + job + "/log_dir)\n"; r.Stderr != want {
		t.Errorf("logs: stderr %q\nwant %q", r.Stderr, want)
	}
	r = easyai.RunWith(t, alice, "logs", "io", "--task", "worker-0", "--tail", "1", "-f").MustSucceed(t)
	if r.Stdout != "[worker-0] done\n" {
		t.Errorf("logs --tail 1 -f: stdout %q", r.Stdout)
	}
	noHelperPods(t, c, ns)
}

// Pod Security "restricted" refuses the uploader, which runs as root: the
// error says so, and what admits it.
func TestTheUploaderInARestrictedNamespace(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := restrictedNamespace(t, c)
	c.BoundClaim(t, ns, "team-data")
	r := easyai.Run(t, "upload", fillOutputs(t, t.TempDir(), "x"), "-n", ns, "--storage", "pvc:team-data")
	if r.Code != 1 || !strings.Contains(r.Stderr, `violates PodSecurity "restricted:latest"`) ||
		!strings.Contains(r.Stderr, `Hint: the uploader runs as root (docs/storage.md, Uploading): Pod Security "restricted" refuses it; a namespace at "baseline" admits it`) {
		t.Errorf("exit %d, stderr %q", r.Code, r.Stderr)
	}
}
