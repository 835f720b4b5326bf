package platform_test

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// TestRecordedJobFile: kind first, naming the kind recorded (not a "kind"
// value of the values), then the values; it reads back as they were.
func TestRecordedJobFile(t *testing.T) {
	tf, _ := registry.Default().LookupSubmittable("tf")
	r := &platform.Recorded{Kind: tf, Values: map[string]any{
		"kind": "tfjob", "image": "tf:2", "roles": map[string]any{"worker": map[string]any{"replicas": 2}},
	}}
	data, err := r.JobFile()
	if err != nil {
		t.Fatal(err)
	}
	want := "kind: tf\nimage: tf:2\nroles:\n  worker:\n    replicas: 2\n"
	if string(data) != want {
		t.Errorf("job file\n%s\nwant\n%s", data, want)
	}
	var back map[string]any
	if err := yaml.Unmarshal(data, &back); err != nil || back["kind"] != "tf" || back["image"] != "tf:2" {
		t.Errorf("read back %v (%v)", back, err)
	}
	if r.Values["kind"] != "tfjob" {
		t.Error("JobFile changed the recorded values")
	}
	empty, err := (&platform.Recorded{Kind: tf}).JobFile()
	if err != nil || string(empty) != "kind: tf\n" {
		t.Errorf("no values: %q (%v)", empty, err)
	}
}

// TestRecordedJobFileYAMLCannotHold: an edited annotation whose values
// YAML cannot hold (a DEL character) is exit 2 naming the annotation.
func TestRecordedJobFileYAMLCannotHold(t *testing.T) {
	tf, _ := registry.Default().LookupSubmittable("tf")
	_, err := (&platform.Recorded{Kind: tf, Values: map[string]any{"image": "tf\x7f"}}).JobFile()
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "annotation easyai.io/request: the values cannot be written as a job file") {
		t.Errorf("error %v", err)
	}
}
