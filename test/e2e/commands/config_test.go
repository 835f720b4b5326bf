//go:build e2e

package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// TestConfigCommands: config set, get, unset and view on a file of the
// user's, and the settings reaching a job the API server validates: the
// image, the GPU resource and labels whose keys keep their case.
func TestConfigCommands(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	path := filepath.Join(t.TempDir(), "team.yaml")
	if err := os.WriteFile(path, []byte("# the vision team's defaults\nqueue: research # shared\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := func(args ...string) easyai.Result {
		return easyai.Run(t, append([]string{"--config", path, "config"}, args...)...)
	}
	cfg("set", "image", "registry.example.com/vision/train:1").MustSucceed(t)
	cfg("set", "gpu-resource", "amd.com/gpu").MustSucceed(t)
	if r := cfg("set", "labels", "Team=vision,cost=42").MustSucceed(t); r.Stderr != "labels set in "+path+"\n" {
		t.Errorf("set: stderr %q", r.Stderr)
	}
	if r := cfg("get", "image").MustSucceed(t); r.Stdout != "registry.example.com/vision/train:1\n" {
		t.Errorf("get image: %q", r.Stdout)
	}
	if r := cfg("get", "labels", "-o", "json").MustSucceed(t); r.Stdout != "{\n  \"Team\": \"vision\",\n  \"cost\": \"42\"\n}\n" {
		t.Errorf("get labels -o json: %q", r.Stdout)
	}
	if r := easyai.RunWith(t, []string{"EASYAI_IMAGE=pt:2"}, "--config", path, "config", "get", "image").MustSucceed(t); r.Stdout != "pt:2\n" {
		t.Errorf("EASYAI_IMAGE over the file: %q", r.Stdout)
	}
	cfg("unset", "queue").MustSucceed(t)
	if r := cfg("get", "queue").MustSucceed(t); r.Stdout != "" {
		t.Errorf("get queue after unset: %q", r.Stdout)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "# the vision team's defaults\n") {
		t.Errorf("set and unset dropped the file's comment:\n%s", data)
	}

	r := easyai.Run(t, "--config", path, "submit", "tf", "--gpus", "1", "--dry-run=server", "-o", "yaml", "-n", ns, "--", "python", "train.py").MustSucceed(t)
	for _, want := range []string{"image: registry.example.com/vision/train:1", "amd.com/gpu: ", "Team: vision", "cost: \"42\""} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("the job lacks %q:\n%s", want, r.Stdout)
		}
	}
}

// TestConfigMistakes: what a new user gets wrong is exit 2 with a message
// that names the file and line, the variable or the flag, and a way out;
// an unknown key in the file is a warning only.
func TestConfigMistakes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.yaml")
	badValue := filepath.Join(dir, "bad-value.yaml")
	unknown := filepath.Join(dir, "unknown.yaml")
	for path, content := range map[string]string{
		broken:   "image: tf:1\n  queue: research\n",
		badValue: "image: tf:1\ngpu-resource: bad resource\n",
		unknown:  "imgae: tf:1\n",
	} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing.yaml")
	for _, tc := range []struct {
		env  []string
		args []string
		want []string
	}{
		{nil, []string{"config", "foo"}, []string{`unknown command "foo" for "easyai config"`, `Hint: "easyai config --help" lists its commands`}},
		{nil, []string{"config", "gte", "image"}, []string{"Did you mean this?\n\tget"}},
		{nil, []string{"submit", "tff", "--image", "x"}, []string{`unknown command "tff" for "easyai submit"`, "Did you mean this?\n\ttf"}},
		{nil, []string{"help", "config", "foo"}, []string{`unknown command "foo" for "easyai config"`}},
		{nil, []string{"--config", missing, "config", "view"}, []string{"--config " + missing + ": no such file"}},
		{nil, []string{"--config", broken, "config", "view"}, []string{"--config " + broken + ": line 2:", "Hint: fix the file"}},
		{nil, []string{"--config", broken, "config", "set", "image", "x"}, []string{"--config " + broken + ": line 2:", "move it away"}},
		{nil, []string{"--config", badValue, "list"}, []string{"--config " + badValue + `: line 2: gpu-resource "bad resource": not an extended resource name`, "config set gpu-resource VALUE"}},
		{[]string{"EASYAI_LABELS=a"}, []string{"config", "view"}, []string{`EASYAI_LABELS "a"`, "KEY=VALUE[,KEY=VALUE...]"}},
		{[]string{"EASYAI_GPU_RESOURCE=bad resource"}, []string{"config", "get", "image"}, []string{`EASYAI_GPU_RESOURCE "bad resource"`, "nvidia.com/gpu"}},
		{nil, []string{"config", "set", "gpu-resource", "bad resource"}, []string{`gpu-resource "bad resource": not an extended resource name`}},
		{nil, []string{"config", "set", "imgae", "x"}, []string{`unknown key "imgae": did you mean "image"?`}},
	} {
		r := easyai.RunWith(t, tc.env, tc.args...)
		if r.Code != 2 || r.Stdout != "" {
			t.Errorf("%v easyai %v: exit %d, stdout %q; want exit 2", tc.env, tc.args, r.Code, r.Stdout)
		}
		for _, want := range tc.want {
			if !strings.Contains(r.Stderr, want) {
				t.Errorf("%v easyai %v: stderr %q lacks %q", tc.env, tc.args, r.Stderr, want)
			}
		}
	}

	// A bad value is repaired from the command line.
	easyai.Run(t, "--config", badValue, "config", "set", "gpu-resource", "amd.com/gpu").MustSucceed(t)
	if r := easyai.Run(t, "--config", badValue, "config", "get", "gpu-resource").MustSucceed(t); r.Stdout != "amd.com/gpu\n" {
		t.Errorf("after the repair: %q", r.Stdout)
	}

	r := easyai.Run(t, "--config", unknown, "config", "get", "image").MustSucceed(t)
	if want := "Warning: --config " + unknown + `: line 1: unknown key "imgae" is ignored (did you mean "image"?)` + "\n"; r.Stderr != want || r.Stdout != "" {
		t.Errorf("unknown key: stdout %q, stderr %q; want stderr %q", r.Stdout, r.Stderr, want)
	}
}
