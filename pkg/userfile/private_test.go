//go:build unix

package userfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// TestReadPrivate: a file of secrets is read when only its owner may read
// it, refused (exit 2, saying how to fix it) when the group or others may
// read or write it, as ssh refuses a private key.
func TestReadPrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "credentials.yaml")
	if err := os.WriteFile(path, []byte("secret-id: a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o600, 0o400} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		data, exists, err := ReadPrivate("credentials file", path, SecretsLimit)
		if err != nil || !exists || string(data) != "secret-id: a\n" {
			t.Errorf("mode %04o: %q %v %v", mode, data, exists, err)
		}
	}
	for mode, want := range map[os.FileMode]string{
		0o644: "credentials file " + path + " is readable by others (mode 0644): chmod 600 " + path,
		0o640: "credentials file " + path + " is readable by others (mode 0640): chmod 600 " + path,
		0o604: "credentials file " + path + " is readable by others (mode 0604): chmod 600 " + path,
		0o620: "credentials file " + path + " is writable by others (mode 0620): chmod 600 " + path,
		0o601: "credentials file " + path + " is open to others (mode 0601): chmod 600 " + path,
	} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, _, err := ReadPrivate("credentials file", path, SecretsLimit)
		if exit.Code(err) != exit.Usage || err.Error() != want {
			t.Errorf("mode %04o: %v (exit %d), want exit 2: %s", mode, err, exit.Code(err), want)
		}
	}

	if _, exists, err := ReadPrivate("credentials file", filepath.Join(dir, "missing"), SecretsLimit); exists || err != nil {
		t.Errorf("a missing file: %v %v", exists, err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, SecretsLimit+1), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for path, want := range map[string]string{dir: "is a directory", fifo: "not a regular file", "/dev/zero": "not a regular file", big: "larger than 64 KiB"} {
		_, _, err := ReadPrivate("credentials file", path, SecretsLimit)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "credentials file "+path) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want exit 2 saying %q", path, err, want)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}
