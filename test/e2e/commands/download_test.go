//go:build e2e

package commands

import (
	"bytes"
	"context"
	"crypto/rand"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// fillOutputs writes a directory of nested files under dir/name, one of
// them larger than 1 MiB, and returns its path.
func fillOutputs(t *testing.T, dir, name string) string {
	t.Helper()
	root := filepath.Join(dir, name)
	big := make([]byte, 3<<20+123)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"metrics.json":             []byte(`{"loss": 0.12}` + "\n"),
		"ckpt/model.bin":           big,
		"ckpt/step-100/optim.bin":  []byte(strings.Repeat("adam", 1000)),
		"logs/train/worker-0.log":  []byte("step 1\nstep 2\n"),
		"logs/train/empty.log":     nil,
		"nested/a/b/c/d/deep.txt":  []byte("deep\n"),
		"with space/and-dash-.txt": []byte("odd names\n"),
	}
	for rel, data := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// sameTree fails the test unless got holds exactly the files of want, byte
// for byte.
func sameTree(t *testing.T, want, got string) {
	t.Helper()
	read := func(root string) map[string][]byte {
		out := map[string][]byte{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			if d.IsDir() {
				out[rel+"/"] = nil
				return nil
			}
			data, err := os.ReadFile(p)
			out[rel] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	w, g := read(want), read(got)
	for name, data := range w {
		other, ok := g[name]
		if !ok {
			t.Errorf("%s is missing from the download", name)
		} else if !bytes.Equal(data, other) {
			t.Errorf("%s differs: %d bytes downloaded, %d in the container", name, len(other), len(data))
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			t.Errorf("%s was downloaded but is not in the container", name)
		}
	}
}

func TestDownloadFromARunningReplica(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	execDir := c.PodExecDir(t, ns, "dl-worker-0")
	remote := fillOutputs(t, execDir, "outputs")
	submitTF(t, ns, "dl", "1").MustSucceed(t)
	c.WaitPodPhase(t, ns, "dl-worker-0", string(corev1.PodRunning), 90*time.Second)

	local := filepath.Join(t.TempDir(), "local")
	res := easyai.Run(t, "download", "dl", "outputs", local, "-n", ns).MustSucceed(t)
	sameTree(t, remote, filepath.Join(local, "outputs"))
	if res.Stdout != "" {
		t.Errorf("stdout %q", res.Stdout)
	}
	wantStderr := "Running in worker-0 of tf/dl\nDownloaded 7 files, 3.0 MiB from worker-0:outputs to " + local + " in "
	if !strings.HasPrefix(res.Stderr, wantStderr) || strings.Count(res.Stderr, "\n") != 2 {
		t.Errorf("stderr %q\nwant it to start %q", res.Stderr, wantStderr)
	}

	// One file, into the current directory's equivalent.
	res = easyai.Run(t, "download", "tf/dl", "outputs/ckpt/model.bin", local, "--task", "worker-0", "-n", ns).MustSucceed(t)
	if got, want := mustRead(t, filepath.Join(local, "model.bin")), mustRead(t, filepath.Join(remote, "ckpt/model.bin")); !bytes.Equal(got, want) {
		t.Errorf("model.bin: %d bytes, want %d", len(got), len(want))
	}

	res = easyai.Run(t, "download", "dl", "nope", local, "-n", ns)
	if res.Code != 3 || !strings.Contains(res.Stderr, "dl-worker-0:nope: no such file or directory") {
		t.Errorf("a missing path: exit %d, stderr %q", res.Code, res.Stderr)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDownloadFromTheStorageOfAFinishedJob(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	c.BoundClaim(t, ns, "results")
	// Exec into any pod of the namespace, the fetcher's too, runs in the
	// directory that stands in for the claim's files.
	claimDir := c.NamespaceExecDir(t, ns)
	remote := fillOutputs(t, claimDir, "run-1")

	submitTF(t, ns, "fin", "1", "--data", "results:/mnt/results", "--clean-pod-policy", "All",
		"-f", exitingAfter(t, 0, 2*time.Second), "--wait", "--timeout", "90s").MustSucceed(t)
	cluster.Eventually(t, 60*time.Second, "the pods of tf/fin deleted", func(ctx context.Context) (bool, error) {
		_, err := c.Kube.CoreV1().Pods(ns).Get(ctx, "fin-worker-0", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})

	local := filepath.Join(t.TempDir(), "local")
	res := easyai.Run(t, "download", "fin", "/mnt/results/run-1", local, "-n", ns, "--fetcher-timeout", "60s").MustSucceed(t)
	sameTree(t, remote, filepath.Join(local, "run-1"))
	for _, want := range []string{
		"The pod of tf/fin's replica worker-0 is gone: fetching /mnt/results/run-1 from claim results through a fetcher pod\n",
		"Downloaded 7 files, 3.0 MiB from results:/mnt/results/run-1 to " + local + " in ",
	} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr %q\nwant %q in it", res.Stderr, want)
		}
	}
	cluster.Eventually(t, 30*time.Second, "the fetcher pod deleted", func(ctx context.Context) (bool, error) {
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: jobmodel.RoleLabel + "=" + jobmodel.RoleFetcher})
		if err != nil {
			return false, err
		}
		return len(pods.Items) == 0, nil
	})

	// A path that is not on the storage cannot be fetched any more.
	res = easyai.Run(t, "download", "fin", "/workspace/outputs", local, "-n", ns)
	if res.Code != 3 || !strings.Contains(res.Stderr, "the pod of tf/fin's replica worker-0 is gone, so /workspace/outputs cannot be read from it") ||
		!strings.Contains(res.Stderr, "only paths on its --storage or --data storage can be fetched") {
		t.Errorf("a path off the storage: exit %d, stderr %q", res.Code, res.Stderr)
	}
}
