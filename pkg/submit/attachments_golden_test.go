package submit

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.yaml with what the tests make")

// TestAttachmentsGolden: the objects submit makes beside a job with
// --tensorboard, --jupyter, --code-server and --ssh, as golden YAML (the
// Secrets' random data and the job's random directory replaced).
func TestAttachmentsGolden(t *testing.T) {
	s := webToolsSubmission(t, "mnist", "pvc:team:/vision", "tensorboard", "jupyter", "code-server")
	s.Flags.Devtools.SSH = true
	dir := t.TempDir()
	key := filepath.Join(dir, "id.pub")
	if err := os.WriteFile(key, []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Flags.Devtools.SSHKey = key
	changed := s.Flags.Changed
	s.Flags.Changed = func(f string) bool { return f == "ssh" || f == "ssh-key" || changed(f) }
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	jobDir := res.Object.GetAnnotations()[jobmodel.JobDirAnnotation]
	var docs []string
	for _, a := range res.Attachments {
		a = a.DeepCopy()
		if data, ok := a.Object["stringData"].(map[string]any); ok {
			for k := range data {
				if k != SSHAuthorizedKeys {
					data[k] = "(random)"
				}
			}
		}
		b, err := yaml.Marshal(a.Object)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, strings.ReplaceAll(string(b), jobDir, "JOBDIR"))
	}
	got := strings.Join(docs, "---\n")
	path := filepath.Join("testdata", "attachments.golden.yaml")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./pkg/submit -run Golden -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("the attachments differ from %s (-update rewrites it):\n%s", path, got)
	}
}
