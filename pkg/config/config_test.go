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

// clearEnv unsets every EASYAI_* variable of a key for the test.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, key := range KeyNames() {
		t.Setenv(EnvName(key), "")
	}
}

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// wantUsage fails unless err is exit 2 and its message holds every want.
func wantUsage(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if exit.Code(err) != exit.Usage {
		t.Errorf("%s: error %v (exit %d), want exit 2", what, err, exit.Code(err))
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
}

func TestFileThenEnvironment(t *testing.T) {
	clearEnv(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	c, err := Load("")
	if err != nil {
		t.Fatalf("a missing default file: %v", err)
	}
	if c.GPUResource != DefaultGPUResource || c.Image != "" || c.Path != DefaultPath() {
		t.Errorf("defaults: %+v", c)
	}

	for key, value := range map[string]string{KeyImage: "tf:1", KeyQueue: "research", KeyLabels: "team=vision,cost=42"} {
		path, err := Set("", key, value)
		if err != nil || path != DefaultPath() {
			t.Fatalf("Set %s: %q %v", key, path, err)
		}
	}
	c, err = Load("")
	if err != nil {
		t.Fatal(err)
	}
	if c.Image != "tf:1" || c.Queue != "research" || !reflect.DeepEqual(c.Labels, map[string]string{"team": "vision", "cost": "42"}) {
		t.Errorf("from the file: %+v", c)
	}

	t.Setenv("EASYAI_IMAGE", "pt:2")
	t.Setenv("EASYAI_GPU_RESOURCE", "amd.com/gpu")
	t.Setenv("EASYAI_LABELS", "team=nlp")
	c, err = Load("")
	if err != nil {
		t.Fatal(err)
	}
	if c.Image != "pt:2" || c.GPUResource != "amd.com/gpu" || c.Queue != "research" || !reflect.DeepEqual(c.Labels, map[string]string{"team": "nlp"}) {
		t.Errorf("the environment over the file: %+v", c)
	}
}

// TestLabelKeysKeepTheirCase: label keys are case-sensitive in Kubernetes;
// the file's are used as written.
func TestLabelKeysKeepTheirCase(t *testing.T) {
	clearEnv(t)
	c, err := Load(write(t, "labels:\n  Team: Vision\n  example.com/Owner: bob\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"Team": "Vision", "example.com/Owner": "bob"}; !reflect.DeepEqual(c.Labels, want) {
		t.Errorf("labels %v, want %v", c.Labels, want)
	}
}

// TestSetKeepsTheRestOfTheFile: comments, order and keys easyai does not
// know survive set and unset.
func TestSetKeepsTheRestOfTheFile(t *testing.T) {
	clearEnv(t)
	path := write(t, "# team defaults\nqueue: research # the shared queue\nfuture-key: 1\nimage: old:1\n")
	if _, err := Set(path, KeyImage, "new:2"); err != nil {
		t.Fatal(err)
	}
	if _, err := Set(path, KeyLabels, "b=2,a=1"); err != nil {
		t.Fatal(err)
	}
	want := "# team defaults\nqueue: research # the shared queue\nfuture-key: 1\nimage: new:2\nlabels:\n  a: \"1\"\n  b: \"2\"\n"
	if got := read(t, path); got != want {
		t.Errorf("after set:\n%s\nwant:\n%s", got, want)
	}
	if _, removed, err := Unset(path, KeyLabels); err != nil || !removed {
		t.Fatalf("Unset: %v %v", removed, err)
	}
	want = "# team defaults\nqueue: research # the shared queue\nfuture-key: 1\nimage: new:2\n"
	if got := read(t, path); got != want {
		t.Errorf("after unset:\n%s\nwant:\n%s", got, want)
	}
	// A value YAML would read as another type stays a string.
	if _, err := Set(path, KeyQueue, "42"); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(path); err != nil || c.Queue != "42" {
		t.Errorf("queue 42: %+v %v", c, err)
	}
}

func TestSetRejectsUnknownKeysAndBadValues(t *testing.T) {
	clearEnv(t)
	path := filepath.Join(t.TempDir(), "config.yaml")
	for _, tc := range []struct {
		key, value string
		want       []string
	}{
		{"imgae", "x", []string{`unknown key "imgae"`, `did you mean "image"?`}},
		{"zzz", "x", []string{`unknown key "zzz"`, "known keys: cluster, cron-image, fetcher-image, gpu-resource"}},
		{KeyLabels, "team", []string{`"team" is not KEY=VALUE`, "KEY=VALUE[,KEY=VALUE...]"}},
		{KeyLabels, "team=a b", []string{`"a b" is not a label value`}},
		{KeyGPUResource, "bad resource", []string{`gpu-resource "bad resource"`, "not an extended resource name", "nvidia.com/gpu"}},
		{KeyGPUResource, "gpu", []string{"not an extended resource name"}},
		{KeyGPUResource, "kubernetes.io/gpu", []string{"not an extended resource name"}},
		{KeyImage, "my image", []string{`image "my image"`, "not an image reference"}},
		{KeyImage, "", []string{"empty", "config unset image"}},
		{KeyFetcherImage, "busybox\n", []string{"not an image reference"}},
		{KeyQueue, "Research", []string{"not a queue name"}},
		{KeyPriorityClass, "high_prio", []string{"not a PriorityClass name"}},
		{KeyPreemptible, "Low", []string{"not a PriorityClass name"}},
		{KeyGPUResources, "amd.com/gpu,gpu", []string{`"gpu" is not an extended resource name`}},
		{KeyStorage, "s3:bucket", []string{`storage "s3:bucket"`, `unknown scheme "s3"`, "pvc:CLAIM[:/prefix]"}},
		{KeyStorage, "pvc:team:relative", []string{"must be an absolute, clean path"}},
	} {
		_, err := Set(path, tc.key, tc.value)
		wantUsage(t, "Set "+tc.key+" "+tc.value, err, tc.want...)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a failed set wrote the file (%v)", err)
	}
	for key, value := range map[string]string{
		KeyGPUResource: "nvidia.com/mig-1g.5gb", KeyImage: "registry.example.com:5000/team/img@sha256:0123",
		KeyQueue: "team-a.gpu", KeyPriorityClass: "high", KeyLabels: "example.com/team=vision,empty=",
		KeyStorage: "nfs:10.0.0.7:/exports/ml:/vision", KeyGPUResources: "nvidia.com/mig-1g.10gb, amd.com/gpu",
		KeyPreemptible: "low",
	} {
		if _, err := Set(path, key, value); err != nil {
			t.Errorf("Set %s %q: %v", key, value, err)
		}
	}
}

// TestEnvironmentErrorsNameTheVariable: a bad EASYAI_* value is exit 2
// naming the variable, its value and the form expected.
func TestEnvironmentErrorsNameTheVariable(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        string
	}{
		{"EASYAI_LABELS", "a", "KEY=VALUE[,KEY=VALUE...]"},
		{"EASYAI_GPU_RESOURCE", "bad resource", "e.g. nvidia.com/gpu"},
		{"EASYAI_IMAGE", "a b", "not an image reference"},
		{"EASYAI_FETCHER_IMAGE", "a b", "not an image reference"},
		{"EASYAI_QUEUE", "Q", "not a queue name"},
		{"EASYAI_PRIORITY_CLASS", "P", "not a PriorityClass name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearEnv(t)
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			t.Setenv(tc.name, tc.value)
			_, err := Load("")
			wantUsage(t, tc.name, err, tc.name+` "`+tc.value+`"`, tc.want)
		})
	}
}

// TestBrokenFile: a file that does not parse is exit 2 naming it and the
// line, for every reader; set and unset refuse it too (they keep the rest
// of the file) and say how to get out.
func TestBrokenFile(t *testing.T) {
	clearEnv(t)
	for content, want := range map[string]string{
		"image: [unclosed":              "line 1",
		"image: a\n  queue: b\n":        "line 2",
		"- image: a\n":                  "line 1: want KEY: VALUE lines",
		"just-a-word\n":                 "not a single value",
		"image: x\n\tqueue: research\n": "line 2",
	} {
		path := write(t, content)
		_, err := Load(path)
		wantUsage(t, "Load "+content, err, "--config "+path+": ", want)
		if hint := exit.Hint(err); !strings.Contains(hint, "move it away") {
			t.Errorf("Load %q: hint %q", content, hint)
		}
		_, err = Set(path, KeyImage, "x")
		wantUsage(t, "Set on "+content, err, "--config "+path+": ", want)
		_, _, err = Unset(path, KeyImage)
		wantUsage(t, "Unset on "+content, err, "--config "+path+": ", want)
		if got := read(t, path); got != content {
			t.Errorf("the broken file was changed to %q", got)
		}
	}
}

// TestBadValueInTheFile: a value of the wrong form is exit 2 naming the
// file, the line and the key; set and unset repair it.
func TestBadValueInTheFile(t *testing.T) {
	clearEnv(t)
	for _, tc := range []struct {
		content, key string
		want         []string
	}{
		{"image: ok:1\ngpu-resource: bad resource\n", KeyGPUResource, []string{"line 2: gpu-resource \"bad resource\": not an extended resource name"}},
		{"image: [a, b]\n", KeyImage, []string{"line 1: image: want a string, not a list"}},
		{"labels:\n  team: vision\n  bad key: x\n", KeyLabels, []string{"line 3: labels: \"bad key\" is not a label key"}},
		{"labels:\n  team: [a]\n", KeyLabels, []string{"line 2: labels: want KEY: VALUE strings"}},
		{"labels: [a=b]\n", KeyLabels, []string{"line 1: labels: want KEY: VALUE lines under it"}},
		{"labels: team\n", KeyLabels, []string{`line 1: labels: "team" is not KEY=VALUE`}},
		{"queue: a\nqueue: b\n", KeyQueue, []string{"line 2: queue is also set on line 1"}},
	} {
		path := write(t, tc.content)
		_, err := Load(path)
		wantUsage(t, tc.content, err, append(tc.want, "--config "+path)...)
		if hint := exit.Hint(err); !strings.Contains(hint, "easyai --config "+path+" config set "+tc.key+" VALUE") || !strings.Contains(hint, "config unset "+tc.key) {
			t.Errorf("%q: hint %q", tc.content, hint)
		}
		if _, _, err := Unset(path, tc.key); err != nil {
			t.Errorf("%q: unset %s: %v", tc.content, tc.key, err)
		} else if _, err := Load(path); err != nil {
			t.Errorf("%q: after unset %s: %v\n%s", tc.content, tc.key, err, read(t, path))
		}
	}

	path := write(t, "gpu-resource: bad resource\nqueue: a\nqueue: b\n")
	if _, err := Set(path, KeyGPUResource, "amd.com/gpu"); err != nil {
		t.Fatal(err)
	}
	if _, err := Set(path, KeyQueue, "c"); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(path); err != nil || c.GPUResource != "amd.com/gpu" || c.Queue != "c" {
		t.Errorf("after set: %+v %v\n%s", c, err, read(t, path))
	}
}

// TestEmptyValuesAreUnset: an empty file, a null document and empty values
// are an empty configuration.
func TestEmptyValuesAreUnset(t *testing.T) {
	clearEnv(t)
	for _, content := range []string{"", "# nothing yet\n", "~\n", "image:\ngpu-resource: \"\"\nlabels:\n"} {
		c, err := Load(write(t, content))
		if err != nil || c.Image != "" || c.GPUResource != DefaultGPUResource || c.Labels != nil {
			t.Errorf("%q: %+v %v", content, c, err)
		}
	}
}

// TestUnknownKeysWarn: keys easyai does not know (a typo, or a key of a
// newer easyai) are ignored with a warning naming the file, the line and
// the key it probably means.
func TestUnknownKeysWarn(t *testing.T) {
	clearEnv(t)
	path := write(t, "imgae: tf:1\nqueue: research\nzzz: 1\n")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`--config ` + path + `: line 1: unknown key "imgae" is ignored (did you mean "image"?)`,
		`--config ` + path + `: line 3: unknown key "zzz" is ignored (known keys: cluster, clusters, cron-image, fetcher-image, gpu-resource, gpu-resources, image, kubeflow-backend, labels, notebook-image, notify, preemptible-priority-class, priority-class, queue, queue-system, storage)`,
	}
	if !reflect.DeepEqual(c.Warnings, want) || c.Queue != "research" || c.Image != "" {
		t.Errorf("warnings %q, config %+v", c.Warnings, c)
	}

	// unset removes an unknown key the file holds; one it does not hold is an error.
	if _, removed, err := Unset(path, "imgae"); err != nil || !removed {
		t.Errorf("unset imgae: %v %v", removed, err)
	}
	_, _, err = Unset(path, "nope")
	wantUsage(t, "unset nope", err, `unknown key "nope"`)
	if _, removed, err := Unset(path, KeyImage); err != nil || removed {
		t.Errorf("unset of a known key the file does not hold: %v %v", removed, err)
	}
}

// TestConfigFlagNamingAMissingFile: --config naming a missing file is exit 2
// when read (a typo must not silently drop the settings); set creates it.
func TestConfigFlagNamingAMissingFile(t *testing.T) {
	clearEnv(t)
	path := filepath.Join(t.TempDir(), "team.yaml")
	_, err := Load(path)
	wantUsage(t, "Load", err, "--config "+path+": no such file")
	if hint := exit.Hint(err); !strings.Contains(hint, "easyai --config "+path+" config set KEY VALUE") {
		t.Errorf("hint %q", hint)
	}
	_, _, err = Unset(path, KeyImage)
	wantUsage(t, "Unset", err, "--config "+path+": no such file")
	if _, err := Set(path, KeyImage, "tf:1"); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(path); err != nil || c.Image != "tf:1" || c.Path != path {
		t.Errorf("after set: %+v %v", c, err)
	}
}

func TestDefaultPathFollowsXDG(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	if got := DefaultPath(); got != "/xdg/easyai/config.yaml" {
		t.Errorf("DefaultPath = %s", got)
	}
}

func TestFetcherImage(t *testing.T) {
	clearEnv(t)
	path := filepath.Join(t.TempDir(), "config.yaml")
	if _, err := Set(path, KeyFetcherImage, "mirror.example/busybox:1.36"); err != nil {
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

func TestGet(t *testing.T) {
	c := &Config{Image: "tf:1", GPUResource: DefaultGPUResource}
	for key, want := range map[string]any{KeyImage: "tf:1", KeyGPUResource: DefaultGPUResource, KeyQueue: "", KeyLabels: map[string]string{}} {
		if got, ok := c.Get(key); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("Get %s = %v %v", key, got, ok)
		}
	}
	if _, ok := c.Get("imgae"); ok {
		t.Error("an unknown key")
	}
}

// TestConfigFileIsBounded: --config /dev/zero, or a file over the limit,
// fails at once (exit 2, naming --config) instead of being read without end.
func TestConfigFileIsBounded(t *testing.T) {
	clearEnv(t)
	big := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(big, make([]byte, 2<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{"/dev/zero": "not a regular file", big: "larger than 1 MiB"} {
		start := time.Now()
		_, err := Load(path)
		wantUsage(t, "Load "+path, err, "--config "+path, want)
		_, err = Set(path, KeyImage, "x")
		wantUsage(t, "Set "+path, err, "--config "+path, want)
		_, _, err = Unset(path, KeyImage)
		wantUsage(t, "Unset "+path, err, "--config "+path, want)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %s", path, d)
		}
	}
}

// TestUnsetKeepsTheFilesComments: the comment above the first key is the
// file's and stays; the one right above another key goes with it.
func TestUnsetKeepsTheFilesComments(t *testing.T) {
	clearEnv(t)
	for _, tc := range []struct {
		content, key, want string
	}{
		{"# team defaults\nqueue: research # shared\nimage: x\n", KeyQueue, "# team defaults\nimage: x\n"},
		{"# team defaults\nqueue: research\n", KeyQueue, "# team defaults\n\n{}\n"},
		{"queue: a\n# the image\nimage: x\n# the end\n", KeyImage, "queue: a\n# the end\n"},
		{"queue: a\n# the image\nimage: x\nlabels: {a: b}\n", KeyImage, "queue: a\nlabels: {a: b}\n"},
	} {
		path := write(t, tc.content)
		if _, removed, err := Unset(path, tc.key); err != nil || !removed {
			t.Fatalf("%q: %v %v", tc.content, removed, err)
		}
		if got := read(t, path); got != tc.want {
			t.Errorf("unset %s in %q: %q, want %q", tc.key, tc.content, got, tc.want)
		}
	}
}

// TestGPUResourceNames: gpu-resource first, then each of gpu-resources
// once.
func TestGPUResourceNames(t *testing.T) {
	c := &Config{GPUResource: "nvidia.com/gpu", GPUResources: " amd.com/gpu,nvidia.com/gpu,, nvidia.com/mig-1g.10gb"}
	want := []string{"nvidia.com/gpu", "amd.com/gpu", "nvidia.com/mig-1g.10gb"}
	if got := c.GPUResourceNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("GPUResourceNames() = %q, want %q", got, want)
	}
}
