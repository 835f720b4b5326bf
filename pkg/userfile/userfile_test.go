package userfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
)

func TestReadRegularFileAndStdin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.yaml")
	if err := os.WriteFile(path, []byte("kind: tf\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := Read(t.Context(), "-f", path, JobFileLimit, nil)
	if err != nil || string(data) != "kind: tf\n" {
		t.Fatalf("file: %q, %v", data, err)
	}
	data, err = Read(t.Context(), "-f", Stdin, JobFileLimit, strings.NewReader("kind: pytorch\n"))
	if err != nil || string(data) != "kind: pytorch\n" {
		t.Fatalf("stdin: %q, %v", data, err)
	}
}

// TestReadAPipe: a pipe (-f <(...), -f /dev/stdin) is read whole, once.
func TestReadAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.WriteString("kind: tf\nname: from-a-pipe\n")
		w.Close()
	}()
	data, err := Read(t.Context(), "-f", "/dev/fd/"+strconv.Itoa(int(r.Fd())), JobFileLimit, nil)
	r.Close()
	if err != nil || string(data) != "kind: tf\nname: from-a-pipe\n" {
		t.Fatalf("pipe: %q, %v", data, err)
	}
}

// TestReadIsBounded: /dev/zero, an endless stream, and a regular file over
// the limit are usage errors naming the flag, the file and the limit, and
// fail at once.
func TestReadIsBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, make([]byte, 5<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", big} {
		start := time.Now()
		_, err := Read(t.Context(), "-f", path, JobFileLimit, nil)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "-f "+path) || !strings.Contains(err.Error(), "4 MiB") {
			t.Errorf("%s: error %v (exit %d), want exit 2 naming -f %s and 4 MiB", path, err, exit.Code(err), path)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %s", path, d)
		}
	}
	_, err := Read(t.Context(), "-f", Stdin, 10, strings.NewReader(strings.Repeat("x", 11)))
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "-f -") {
		t.Errorf("stdin over the limit: %v", err)
	}
	if _, err := Read(t.Context(), "-f", t.TempDir(), JobFileLimit, nil); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "directory") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := Read(t.Context(), "-f", "/nonexistent/job.yaml", JobFileLimit, nil); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestReadEndsWhenInterrupted: a read that waits for a writer that never
// writes (-f /dev/stdin on a terminal) ends when the context does.
func TestReadEndsWhenInterrupted(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() {
		_, err := Read(ctx, "-f", Stdin, JobFileLimit, r)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || exit.Code(err) != exit.Interrupted {
			t.Errorf("error %v (exit %d), want cancelled (exit 130)", err, exit.Code(err))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read did not end when the context did")
	}
}

func TestCheckRegular(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "config")
	if err := os.WriteFile(small, []byte("apiVersion: v1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckRegular("--kubeconfig", small, KubeconfigLimit); err != nil {
		t.Errorf("a small regular file: %v", err)
	}
	if err := CheckRegular("--kubeconfig", filepath.Join(dir, "missing"), KubeconfigLimit); err != nil {
		t.Errorf("a missing file is the loader's business: %v", err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "--kubeconfig /dev/zero: not a regular file"},
		{dir, "not a regular file"},
		{small, "larger than 4 bytes"},
	} {
		limit := KubeconfigLimit
		if tc.path == small {
			limit = 4
		}
		err := CheckRegular("--kubeconfig", tc.path, limit)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want exit 2 with %q", tc.path, err, tc.want)
		}
	}
}
