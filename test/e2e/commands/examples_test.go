//go:build e2e

package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// examplesDir is the repository's examples/ folder.
var examplesDir = filepath.Join("..", "..", "..", "examples")

// exampleBackends are the flags a job file's kind needs to be submitted the
// same way on every run: the local cluster has no T9k, but a test that
// installs a ColossalAIJob CRD may run alongside, so "auto" could pick either.
var exampleBackends = map[string][]string{
	"colossalai": {"--backend", "volcano"},
}

// exampleJob is a job file under examples/ and the kind it names.
type exampleJob struct {
	path string // relative to examples/
	kind kinds.Kind
	name string
}

// exampleJobs finds every job file under examples/: a YAML document whose
// "kind" names an easyai kind and that has no apiVersion (a Kubernetes
// manifest, such as examples/rbac/, has one).
func exampleJobs(t *testing.T, reg *kinds.Registry) []exampleJob {
	t.Helper()
	var jobs []exampleJob
	err := filepath.WalkDir(examplesDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(path) != ".yaml" && filepath.Ext(path) != ".yml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(examplesDir, path)
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				return nil
			} else if err != nil {
				t.Errorf("examples/%s: %v", rel, err)
				return nil
			}
			name, _ := doc["kind"].(string)
			k, known := reg.LookupSubmittable(name)
			if _, manifest := doc["apiVersion"]; !known || manifest {
				continue
			}
			jobName, _ := doc["name"].(string)
			jobs = append(jobs, exampleJob{path: rel, kind: k, name: jobName})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// TestExamples submits every job file under examples/ (found by looking, so
// a new example is tested without a line here) as a server dry run: the API
// server, the CRDs' schemas and the operators' admission webhooks check what
// it becomes. Every kind has an example, and every example folder a README.
func TestExamples(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	// The claim the examples with a storage name.
	c.BoundClaim(t, ns, "team-data")
	easyai.Binary(t)
	reg := registry.Default()
	jobs := exampleJobs(t, reg)
	if len(jobs) == 0 {
		t.Fatalf("no job files found under %s", examplesDir)
	}

	covered := map[string]bool{}
	for _, job := range jobs {
		covered[job.kind.Name()] = true
		if _, err := os.Stat(filepath.Join(examplesDir, filepath.Dir(job.path), "README.md")); err != nil {
			t.Errorf("examples/%s has no README.md beside it", job.path)
		}
		t.Run(job.path, func(t *testing.T) {
			t.Parallel()
			args := []string{"submit", "-n", ns, "-f", filepath.Join(examplesDir, job.path), "--dry-run=server", "-o", "json"}
			if extra, ok := exampleBackends[job.kind.Name()]; ok {
				args = append([]string{"submit", job.kind.Name()}, append(extra, args[1:]...)...)
			}
			r := easyai.Run(t, args...)
			if r.Code != 0 {
				t.Fatalf("examples/%s: easyai %s exited %d:\n%s", job.path, strings.Join(args, " "), r.Code, r.Stderr)
			}
			var obj struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct {
					Name, Namespace, UID string
				} `json:"metadata"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &obj); err != nil {
				t.Fatalf("examples/%s: the dry run printed no object: %v\n%s", job.path, err, r.Stdout)
			}
			if obj.APIVersion == "" || obj.Kind == "" || obj.Metadata.Name != job.name || obj.Metadata.Namespace != ns {
				t.Errorf("examples/%s: the dry run gave %s %s %s/%s, want the job %s in %s",
					job.path, obj.APIVersion, obj.Kind, obj.Metadata.Namespace, obj.Metadata.Name, job.name, ns)
			}
		})
	}
	pipelines, _ := filepath.Glob(filepath.Join(examplesDir, "*", "pipeline.yaml"))
	if len(pipelines) == 0 {
		t.Errorf("no pipeline file under %s", examplesDir)
	}
	for _, path := range pipelines {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			r := easyai.Run(t, "pipeline", "run", "-n", ns, "-f", path, "--dry-run=server", "-o", "json")
			if r.Code != 0 {
				t.Fatalf("%s: pipeline run --dry-run=server exited %d:\n%s", path, r.Code, r.Stderr)
			}
			var list struct {
				Items []struct{ Kind string } `json:"items"`
			}
			if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || len(list.Items) < 2 || list.Items[0].Kind != "JobFlow" || list.Items[1].Kind != "JobTemplate" {
				t.Errorf("%s: the dry run printed %+v (%v); want a JobFlow and its JobTemplates", path, list, err)
			}
		})
	}
	var missing []string
	for _, name := range reg.Names() {
		if !covered[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no job file under examples/ for the kinds %s", strings.Join(missing, ", "))
	}
}

// TestExamplesCIScript runs examples/ci/train.sh as a pipeline would, on the
// job file its GitHub Actions workflow names, and checks that the script
// ends as the job did: 0 when it succeeded, 4 when it failed, 5 (and the job
// deleted) when it ran past JOB_TIMEOUT.
func TestExamplesCIScript(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	bin := easyai.Binary(t)
	jobFile := workflowJobFile(t)

	for _, tc := range []struct {
		name        string
		exitCode    int
		runFor      time.Duration
		timeout     string
		wantCode    int
		wantStates  []string
		wantDeleted bool
	}{
		{name: "succeeded", exitCode: 0, runFor: 2 * time.Second, timeout: "2m", wantCode: 0, wantStates: []string{"Succeeded"}},
		{name: "failed", exitCode: 1, runFor: 2 * time.Second, timeout: "2m", wantCode: 4, wantStates: []string{"Failed"}},
		{name: "timed-out", exitCode: 0, runFor: time.Hour, timeout: "5s", wantCode: 5,
			wantStates: []string{"Queued", "Pending", "Running"}, wantDeleted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ns := c.Namespace(t)
			dir := t.TempDir()
			values := map[string]any{"podAnnotations": cluster.ExitAfter(tc.exitCode, tc.runFor)}
			data, err := yaml.Marshal(values)
			if err != nil {
				t.Fatal(err)
			}
			simulate := filepath.Join(dir, "simulate.yaml")
			if err := os.WriteFile(simulate, data, 0o644); err != nil {
				t.Fatal(err)
			}
			result := filepath.Join(dir, "result.json")
			name := "ci-" + tc.name

			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(examplesDir, "ci", "train.sh"), jobFile, "-f", simulate)
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1", "EASYAI="+bin,
				"JOB_NAME="+name, "JOB_NAMESPACE="+ns, "JOB_TIMEOUT="+tc.timeout, "JOB_RESULT="+result)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err = cmd.Run()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			t.Logf("train.sh -> %d\n%s", code, out.String())
			if code != tc.wantCode {
				t.Fatalf("train.sh exited %d, want %d", code, tc.wantCode)
			}

			var doc struct {
				Name   string `json:"name"`
				Status struct {
					State string `json:"state"`
				} `json:"status"`
			}
			data, err = os.ReadFile(result)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &doc); err != nil || doc.Name != name || !slices.Contains(tc.wantStates, doc.Status.State) {
				t.Errorf("result.json: %s %q (%v), want %s in state %s\n%s", doc.Name, doc.Status.State, err, name, strings.Join(tc.wantStates, " or "), data)
			}
			if tc.wantDeleted {
				cluster.Eventually(t, time.Minute, "the timed-out job deleted", func(ctx context.Context) (bool, error) {
					r := easyai.Run(t, "get", "-n", ns, name)
					return r.Code == 3, nil
				})
			}
		})
	}
}

// workflowJobFile is the job file that examples/ci/github-actions.yaml runs
// train.sh on; the test fails when the workflow does not parse, runs no
// train.sh, or names a job file that does not exist.
func workflowJobFile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(examplesDir, "ci", "github-actions.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var workflow struct {
		Jobs map[string]struct {
			Steps []struct {
				Run string `json:"run"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if err := yaml.Unmarshal(data, &workflow); err != nil {
		t.Fatalf("examples/ci/github-actions.yaml: %v", err)
	}
	for _, job := range workflow.Jobs {
		for _, step := range job.Steps {
			fields := strings.Fields(step.Run)
			if len(fields) < 2 || fields[0] != "examples/ci/train.sh" {
				continue
			}
			path := filepath.Join(examplesDir, "..", fields[1])
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("examples/ci/github-actions.yaml runs train.sh on %s: %v", fields[1], err)
			}
			return path
		}
	}
	t.Fatal("examples/ci/github-actions.yaml has no step that runs examples/ci/train.sh JOB_FILE")
	return ""
}
