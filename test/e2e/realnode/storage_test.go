//go:build e2e

package realnode

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// With a storage on the real node, the persisted-log wrapper keeps each
// replica's real stdout and stderr in log_dir in a real shell; once the
// pods are gone, logs reads them through the fetcher pod and download gets
// them through its tar.
func TestPersistedLogsOutliveThePods(t *testing.T) {
	t.Parallel()
	c, placement, ns, alice := onTheRealNode(t)
	volume := c.RealNodeClaim(t, ns, "team-data")
	as := func(args ...string) easyai.Result { t.Helper(); return easyai.RunWith(t, alice, args...) }

	// Both ranks meet first (the master's success ends the job); print
	// writes each line in pieces (the operator sets PYTHONUNBUFFERED).
	script := `import os, sys
import torch.distributed as dist
dist.init_process_group("gloo")
r = os.environ["RANK"]
for i in range(3):
    print("out of rank", r)
    print("err of rank", r, file=sys.stderr)
dist.barrier()`
	args := append([]string{"submit", "pytorch", "--name", "kept", "--workers", "2", "--storage", "pvc:team-data",
		"--clean-pod-policy", "All"}, placement...)
	as(append(args, "--", "python3", "-c", script)...).MustSucceed(t)
	res := as("wait", "kept", "--timeout", "5m")
	if res.Code != 0 {
		t.Fatalf("wait: exit %d, stderr %q", res.Code, res.Stderr)
	}

	// The files on the real node's volume, written by the wrapper.
	kept := map[string]string{}
	_ = filepath.WalkDir(volume, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(path)) == "log_dir" {
			data, _ := os.ReadFile(path)
			kept[d.Name()] = string(data)
		}
		return nil
	})
	for file, want := range map[string][]string{"master-0.log": {"out of rank 0\n", "err of rank 0\n"}, "worker-0.log": {"out of rank 1\n", "err of rank 1\n"}} {
		for _, line := range want {
			if !strings.Contains(kept[file], line) {
				t.Errorf("log_dir/%s on the volume holds %q; want a line %q (files: %v)", file, kept[file], line, kept)
			}
		}
		// Each line whole: stdout's and stderr's never mixed. torch may
		// write warnings of its own (a peer's name not resolved yet): those
		// lines are left alone.
		for _, line := range strings.Split(strings.TrimSuffix(kept[file], "\n"), "\n") {
			if strings.Contains(line, "of rank") && line+"\n" != want[0] && line+"\n" != want[1] {
				t.Errorf("log_dir/%s has the line %q, a mix of the streams", file, line)
			}
		}
	}

	// Once the pods are gone (cleanPodPolicy All), logs reads the kept logs.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		res = as("logs", "kept")
		if strings.Contains(res.Stderr, "The pods of pytorch/kept are gone") || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	for _, line := range []string{"[master-0] out of rank 0\n", "[master-0] err of rank 0\n", "[worker-0] out of rank 1\n", "[worker-0] err of rank 1\n"} {
		if res.Code != 0 || !strings.Contains(res.Stderr, "The pods of pytorch/kept are gone") || !strings.Contains(res.Stdout, line) {
			t.Errorf("logs after the pods: exit %d, no %q in\nstdout %q\nstderr %q", res.Code, line, res.Stdout, res.Stderr)
		}
	}

	local := t.TempDir()
	as("download", "kept", "/log_dir", local).MustSucceed(t)
	data, err := os.ReadFile(filepath.Join(local, "log_dir", "worker-0.log"))
	if err != nil || string(data) != kept["worker-0.log"] {
		t.Errorf("downloaded log_dir/worker-0.log: %q, %v; want %q", data, err, kept["worker-0.log"])
	}
}

// The persisted-log wrapper passes a SIGTERM sent to it (what the kubelet
// sends a container it stops) on to the command, keeps what the command
// writes while it stops, and exits with the command's exit code.
func TestPersistedLogWrapperPassesSIGTERMOn(t *testing.T) {
	t.Parallel()
	c, placement, ns, alice := onTheRealNode(t)
	volume := c.RealNodeClaim(t, ns, "team-data")
	as := func(args ...string) easyai.Result { t.Helper(); return easyai.RunWith(t, alice, args...) }

	script := `import signal, sys, time
def stop(*_):
    print("got TERM, saving", flush=True)
    print("stopping on stderr", file=sys.stderr, flush=True)
    sys.exit(7)
signal.signal(signal.SIGTERM, stop)
print("ready", flush=True)
time.sleep(600)`
	args := append([]string{"submit", "pytorch", "--name", "term", "--storage", "pvc:team-data"}, placement...)
	as(append(args, "--", "python3", "-c", script)...).MustSucceed(t)

	logFile := func() string {
		var found string
		_ = filepath.WalkDir(volume, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.Name() == "master-0.log" && filepath.Base(filepath.Dir(path)) == "log_dir" {
				data, _ := os.ReadFile(path)
				found = string(data)
			}
			return nil
		})
		return found
	}
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(logFile(), "ready\n") {
		if time.Now().After(deadline) {
			t.Fatalf("the log file never said ready: %q", logFile())
		}
		time.Sleep(time.Second)
	}
	// (The file may say ready before the API server has the pod Running.)
	getShows(t, alice, "term", time.Minute, regexp.MustCompile(`(?m)^master-0 +Running `), "")
	// PID 1 of the container is the wrapper's shell.
	as("exec", "term", "--", "sh", "-c", "kill -TERM 1").MustSucceed(t)
	res := as("wait", "term", "--timeout", "2m")
	if res.Code != 4 {
		t.Errorf("wait: exit %d, stderr %q; want 4 (the command exited 7)", res.Code, res.Stderr)
	}
	getShows(t, alice, "term", time.Minute, regexp.MustCompile(`(?m)^master-0 +Failed +real-node-0 +0 +7 `), "")
	// (Each stream is copied on its own: the two lines written after TERM
	// may be kept in either order.)
	if got := logFile(); got != "ready\ngot TERM, saving\nstopping on stderr\n" && got != "ready\nstopping on stderr\ngot TERM, saving\n" {
		t.Errorf("log_dir/master-0.log holds %q; want ready, then both lines written after TERM", got)
	}
}

// upload --to JOB sends a directory through the uploader's real tar onto the
// job's share_dir, where the running job reads it whole (checked by its
// sha256sum); download gets back what the job wrote, through the fetcher's.
func TestUploadAndDownloadMoveRealFiles(t *testing.T) {
	t.Parallel()
	c, placement, ns, alice := onTheRealNode(t)
	c.RealNodeClaim(t, ns, "team-data")
	as := func(args ...string) easyai.Result { t.Helper(); return easyai.RunWith(t, alice, args...) }

	local := filepath.Join(t.TempDir(), "dataset")
	big := make([]byte, 3<<20)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"a.txt": []byte("first file\n"), "sub/big.bin": big}
	var sums strings.Builder
	for _, name := range []string{"a.txt", "sub/big.bin"} {
		path := filepath.Join(local, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256(files[name]), name)
	}
	// The job waits until every file has arrived whole, then writes what it
	// read into its model_dir.
	script := `printf '%s' "$SUMS" >/tmp/SUMS
until (cd /share_dir/dataset 2>/dev/null && sha256sum -c --quiet /tmp/SUMS) >/dev/null 2>&1; do sleep 1; done
echo "all files arrived"
cp /share_dir/dataset/a.txt "$model_dir/read.txt"`
	args := append([]string{"submit", "pytorch", "--name", "reader", "--storage", "pvc:team-data", "--env", "SUMS=" + sums.String()}, placement...)
	as(append(args, "--", "sh", "-c", script)...).MustSucceed(t)
	getShows(t, alice, "reader", 3*time.Minute, regexp.MustCompile(`(?m)^master-0 +Running `), "")

	res := as("upload", local, "--to", "reader")
	if res.Code != 0 {
		t.Fatalf("upload: exit %d, stderr %q", res.Code, res.Stderr)
	}
	if res := as("wait", "reader", "--timeout", "3m"); res.Code != 0 {
		t.Fatalf("wait: exit %d, stderr %q", res.Code, res.Stderr)
	}
	if res := as("logs", "reader"); !strings.Contains(res.Stdout, "[master-0] all files arrived\n") {
		t.Errorf("the job never read the uploaded files whole:\n%s%s", res.Stdout, res.Stderr)
	}
	back := t.TempDir()
	as("download", "reader", "/model_dir", back).MustSucceed(t)
	if data, err := os.ReadFile(filepath.Join(back, "model_dir", "read.txt")); err != nil || string(data) != "first file\n" {
		t.Errorf("downloaded model_dir/read.txt: %q, %v", data, err)
	}
}
