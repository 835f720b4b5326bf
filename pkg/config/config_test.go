package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
)

func TestFileThenEnvironment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "easyai", "config.yaml")
	c, err := Load(path)
	if err != nil {
		t.Fatalf("a missing file: %v", err)
	}
	if c.GPUResource != DefaultGPUResource || c.Image != "" {
		t.Errorf("defaults: %+v", c)
	}

	for key, value := range map[string]string{KeyImage: "tf:1", KeyQueue: "research", KeyLabels: "team=vision,cost=42"} {
		if err := Set(path, key, value); err != nil {
			t.Fatal(err)
		}
	}
	c, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Image != "tf:1" || c.Queue != "research" || !reflect.DeepEqual(c.Labels, map[string]string{"team": "vision", "cost": "42"}) {
		t.Errorf("from the file: %+v", c)
	}

	t.Setenv("EASYAI_IMAGE", "pt:2")
	t.Setenv("EASYAI_GPU_RESOURCE", "amd.com/gpu")
	t.Setenv("EASYAI_LABELS", "team=nlp")
	c, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Image != "pt:2" || c.GPUResource != "amd.com/gpu" || c.Queue != "research" || !reflect.DeepEqual(c.Labels, map[string]string{"team": "nlp"}) {
		t.Errorf("the environment over the file: %+v", c)
	}
}

func TestSetRejectsUnknownKeysAndBadLabels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := Set(path, "imgae", "x"); err == nil {
		t.Error("an unknown key was written")
	}
	if err := Set(path, KeyLabels, "team"); err == nil {
		t.Error("labels without = were written")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a failed set wrote the file (%v)", err)
	}
}

func TestBadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("image: [unclosed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil {
		t.Error("a broken file loaded")
	}
}

func TestDefaultPathFollowsXDG(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	if got := DefaultPath(); got != "/xdg/easyai/config.yaml" {
		t.Errorf("DefaultPath = %s", got)
	}
}

func TestFetcherImage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := Set(path, KeyFetcherImage, "mirror.example/busybox:1.36"); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(path); err != nil || c.FetcherImage != "mirror.example/busybox:1.36" {
		t.Errorf("from the file: %+v %v", c, err)
	}
	t.Setenv("EASYAI_FETCHER_IMAGE", "busybox@sha256:0123")
	if c, err := Load(path); err != nil || c.FetcherImage != "busybox@sha256:0123" {
		t.Errorf("from the environment: %+v %v", c, err)
	}
}

// TestConfigFileIsBounded: --config /dev/zero, or a file over the limit,
// fails at once (exit 2, naming --config) instead of being read without end.
func TestConfigFileIsBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/dev/zero": "not a regular file", big: "larger than 1 MiB"} {
		start := time.Now()
		_, err := Load(path)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--config "+path) || !strings.Contains(err.Error(), want) {
			t.Errorf("Load %s: error %v (exit %d), want exit 2 with %q", path, err, exit.Code(err), want)
		}
		if err := Set(path, KeyImage, "x"); exit.Code(err) != exit.Usage {
			t.Errorf("Set %s: error %v, want exit 2", path, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %s", path, d)
		}
	}
}
