//go:build e2e

package commands

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/test/e2e/easyai"
	"github.com/easyai-dev/easyai/test/timakerd/server"
)

// timakerSecret is the secret key of the timaker tests: it must show in no
// output of easyai's, at any -v.
const timakerSecret = "sk-e2e-TIMAKER-never-printed-9f3a"

// timakerTarget is a contract test server of timaker on loopback and a
// configuration naming it as cluster "prod".
type timakerTarget struct {
	srv     *server.Server
	config  string
	env     []string
	outputs []string
}

func newTimakerTarget(t *testing.T) *timakerTarget {
	t.Helper()
	srv := server.New(server.Options{
		Host:        "ti.example.internal",
		Credentials: map[string]string{"AKIDe2e": timakerSecret},
		Step:        200 * time.Millisecond,
		TrainFor:    100, // 20 s of training: e2e-stop is still training when deleted, even on a slow machine
	})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yaml")
	body := fmt.Sprintf("clusters:\n  prod:\n    type: timaker\n    addr: %s\n    host: ti.example.internal\n    project-id: 3\n    uin: \"100012345\"\n", ts.URL)
	if err := os.WriteFile(config, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return &timakerTarget{srv: srv, config: config, env: []string{
		"EASYAI_TIMAKER_SECRET_ID=AKIDe2e", "EASYAI_TIMAKER_SECRET_KEY=" + timakerSecret,
		"XDG_STATE_HOME=" + filepath.Join(dir, "state"), "EASYAI_CLUSTER=",
	}}
}

// run runs easyai on cluster prod; every output is kept for the check
// that the secret shows nowhere.
func (tt *timakerTarget) run(t *testing.T, args ...string) easyai.Result {
	t.Helper()
	return tt.runWith(t, nil, args...)
}

func (tt *timakerTarget) runWith(t *testing.T, env []string, args ...string) easyai.Result {
	t.Helper()
	r := easyai.RunWith(t, append(append([]string{}, tt.env...), env...), append([]string{"--config", tt.config, "--cluster", "prod"}, args...)...)
	tt.outputs = append(tt.outputs, r.Stdout, r.Stderr)
	return r
}

// creates are the bodies of the CreateTrainingJob requests the server got.
func (tt *timakerTarget) creates() []map[string]any {
	var out []map[string]any
	for _, r := range tt.srv.Requests() {
		if r.Action == "v1/CreateTrainingJob" {
			out = append(out, r.Body)
		}
	}
	return out
}

func (tt *timakerTarget) count(action string) int {
	n := 0
	for _, r := range tt.srv.Requests() {
		if r.Action == action {
			n++
		}
	}
	return n
}

// TestTimaker: the same commands on a timaker cluster, against the
// project's contract test server (a contract reconstructed from public
// adapter code, not timaker itself): submit with every unit converted, a
// dry run that shows the request unsigned, get, wait 0 and 4, delete
// (StopTrainingJob), list from the local index in later processes, top
// node, what timaker cannot do, and the secret key nowhere in the output.
func TestTimaker(t *testing.T) {
	t.Parallel()
	tt := newTimakerTarget(t)
	common := []string{"--workers", "2", "--cpu", "2", "--memory", "4Gi", "--gpus", "0.5", "--image", "registry.example.com/team/train:1",
		"--env", "EPOCHS=3", "--rdma", "--gpu-type", "V100", "--fs", "cfs:10.0.0.4:/team/code:ro"}

	// A dry run prints the request, without its Authorization header, and sends nothing.
	r := tt.run(t, append(append([]string{"submit", "tf", "--name", "e2e-dry", "--dry-run"}, common...), "--", "python", "train.py", "--lr", "0.1")...).MustSucceed(t)
	for _, want := range []string{"CpuNum: 2000", "Memory: 4096", "GpuNum: 50", "InstanceCount: 2", "X-Tc-Action: v1/CreateTrainingJob", "Host: ti.example.internal"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("dry run: %q missing from\n%s", want, r.Stdout)
		}
	}
	if strings.Contains(strings.ToLower(r.Stdout), "authorization") || strings.Contains(r.Stdout, "Signature=") {
		t.Errorf("dry run shows the signature:\n%s", r.Stdout)
	}
	if n := len(tt.creates()); n != 0 {
		t.Fatalf("the dry run sent %d CreateTrainingJob requests", n)
	}

	// submit: every unit as timaker counts it.
	r = tt.run(t, append(append([]string{"submit", "tf", "--name", "e2e-ok"}, common...), "--", "python", "train.py", "--lr", "0.1")...).MustSucceed(t)
	if !regexp.MustCompile(`^tf/e2e-ok submitted to timaker cluster prod as \S+\n$`).MatchString(r.Stdout) {
		t.Errorf("submit: stdout %q", r.Stdout)
	}
	creates := tt.creates()
	if len(creates) != 1 {
		t.Fatalf("%d creates", len(creates))
	}
	body, _ := json.Marshal(creates[0])
	var create struct {
		Uin             string
		TiProjectId     int
		TrainingJobName string
		ResourceConfig  struct {
			Memory, CpuNum, GpuNum, InstanceCount int
			GpuType                               string
			RDMAConfig                            struct{ Enable bool }
		}
		EnvConfig              []struct{ Name, Value string }
		AlgorithmSpecification struct {
			EntryPoint, TrainingImageName string
			AlgorithmSource               struct {
				FileSystemDataSource struct {
					FileSystemType, FileSystemEndpoint, DirectoryPath string
					ReadOnly                                          bool
				}
			}
		}
	}
	if err := json.Unmarshal(body, &create); err != nil {
		t.Fatal(err)
	}
	rc := create.ResourceConfig
	if rc.CpuNum != 2000 || rc.Memory != 4096 || rc.GpuNum != 50 || rc.InstanceCount != 2 || rc.GpuType != "V100" || !rc.RDMAConfig.Enable {
		t.Errorf("resources %+v, want cpu 2000, memory 4096, gpu 50, 2 instances of V100 with RDMA", rc)
	}
	as := create.AlgorithmSpecification
	fsrc := as.AlgorithmSource.FileSystemDataSource
	if as.EntryPoint != "python train.py --lr 0.1" || as.TrainingImageName != "registry.example.com/team/train:1" ||
		fsrc.FileSystemType != "cfs" || fsrc.FileSystemEndpoint != "10.0.0.4" || fsrc.DirectoryPath != "/team/code" || !fsrc.ReadOnly {
		t.Errorf("algorithm %+v", as)
	}
	if create.Uin != "100012345" || create.TiProjectId != 3 || create.TrainingJobName != "e2e-ok" {
		t.Errorf("job %q of %q in project %d", create.TrainingJobName, create.Uin, create.TiProjectId)
	}
	found := false
	for _, e := range create.EnvConfig {
		found = found || (e.Name == "EPOCHS" && e.Value == "3")
	}
	if !found {
		t.Errorf("env %+v lacks EPOCHS=3", create.EnvConfig)
	}
	if n := tt.count("v1/StartTrainingJob"); n != 0 {
		t.Errorf("%d StartTrainingJob calls: Create starts the job", n)
	}

	// get, in both views.
	r = tt.run(t, "get", "e2e-ok").MustSucceed(t)
	for _, want := range []string{"Kind:       tf (TrainingJob.timaker/2020-10-12)", "Image:      registry.example.com/team/train:1", "GPUs:       1\n", "User:       100012345"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("get: %q missing from\n%s", want, r.Stdout)
		}
	}
	var doc struct {
		Kind, ObjectKind, JobKind string
		GPUs                      float64
		Status                    struct{ State string }
		Workers                   struct{ Total int }
	}
	r = tt.run(t, "get", "e2e-ok", "-o", "json").MustSucceed(t)
	if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil || doc.Kind != "Job" || doc.ObjectKind != "TrainingJob" || doc.JobKind != "tf" || doc.GPUs != 1 || doc.Workers.Total != 2 {
		t.Errorf("get -o json: %v %+v\n%s", err, doc, r.Stdout)
	}

	// A failing job and one to stop, while the first trains.
	tt.run(t, "submit", "tf", "--name", "e2e-bad", "--image", "registry.example.com/team/train:1", "--", "sh", "-c", "echo fail; exit 1").MustSucceed(t)
	tt.run(t, "submit", "tf", "--name", "e2e-stop", "--image", "registry.example.com/team/train:1", "--", "python", "train.py").MustSucceed(t)
	r = tt.run(t, "wait", "e2e-stop", "--for", "running", "--timeout", "1m").MustSucceed(t)
	if !strings.Contains(r.Stderr, "tf/e2e-stop Running after") {
		t.Errorf("wait --for running: stderr %q", r.Stderr)
	}
	r = tt.run(t, "delete", "e2e-stop", "--yes").MustSucceed(t)
	if r.Stdout != "deleted tf/e2e-stop\n" || tt.count("v1/StopTrainingJob") != 1 {
		t.Errorf("delete: stdout %q, %d stops", r.Stdout, tt.count("v1/StopTrainingJob"))
	}
	if r := tt.run(t, "get", "e2e-stop"); r.Code != 3 {
		t.Errorf("get of the deleted job: exit %d, stderr %q", r.Code, r.Stderr)
	}

	// wait: 0 for the one that completes (with its document), 4 for the one that fails.
	r = tt.run(t, "wait", "e2e-ok", "--timeout", "1m", "-o", "json").MustSucceed(t)
	if !strings.Contains(r.Stderr, "tf/e2e-ok Succeeded after") || !strings.Contains(r.Stdout, `"state": "Succeeded"`) {
		t.Errorf("wait: stdout %q stderr %q", r.Stdout, r.Stderr)
	}
	r = tt.run(t, "wait", "e2e-bad", "--timeout", "1m")
	if r.Code != 4 || !strings.Contains(r.Stderr, "ExitCode1") {
		t.Errorf("wait of the failing job: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if r := tt.run(t, "wait", "e2e-ok", "--for", "suspended"); r.Code != 2 {
		t.Errorf("wait --for suspended: exit %d, stderr %q", r.Code, r.Stderr)
	}

	// list: from the index, each in a new process, the status read from timaker.
	r = tt.run(t, "list").MustSucceed(t)
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "e2e-bad\ttf\tFailed\t") || !strings.HasPrefix(lines[1], "e2e-ok\ttf\tSucceeded\t0/2\t1\t") {
		t.Errorf("list: %q", r.Stdout)
	}
	r = tt.run(t, "list", "--status", "succeeded", "-o", "name", "-n", "team-a").MustSucceed(t)
	if r.Stdout != "tf/e2e-ok\n" || r.Stderr != "Warning: -n team-a is ignored: timaker cluster \"prod\" has no namespaces\n" {
		t.Errorf("list --status succeeded -o name -n team-a: stdout %q, stderr %q", r.Stdout, r.Stderr)
	}

	// top node: the pools, in GPUs.
	r = tt.run(t, "top", "node", "-o", "json").MustSucceed(t)
	var top struct {
		Rows  string
		Items []struct{ Name string }
		Total struct {
			GPUs struct{ Capacity float64 }
			CPU  struct{ Capacity float64 }
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &top); err != nil || top.Rows != "POOL" || len(top.Items) != 2 || top.Items[0].Name != "train" || top.Total.GPUs.Capacity != 8 || top.Total.CPU.Capacity != 64 {
		t.Errorf("top node -o json: %v %+v\n%s", err, top, r.Stdout)
	}
	tt.run(t, "top", "node").MustSucceed(t)

	// What timaker cannot express or do: one line each, exit 2.
	r = tt.run(t, "submit", "tf", "--ps", "1", "--workers", "2", "--gpus", "1", "--image", "i:1", "--", "python", "t.py")
	if r.Code != 2 || !strings.Contains(r.Stderr, "timaker runs one role") || !strings.Contains(r.Stderr, "ps") {
		t.Errorf("a tf job with a ps: exit %d, stderr %q", r.Code, r.Stderr)
	}
	r = tt.run(t, "submit", "tf", "--queue", "research", "--image", "i:1", "--", "python", "t.py")
	if r.Code != 2 || !strings.Contains(r.Stderr, "--queue") {
		t.Errorf("--queue: exit %d, stderr %q", r.Code, r.Stderr)
	}
	r = tt.run(t, "logs", "e2e-ok")
	if r.Code != 2 || !strings.Contains(r.Stderr, `timaker cluster "prod" has no Kubernetes API`) {
		t.Errorf("logs: exit %d, stderr %q", r.Code, r.Stderr)
	}

	// A job submitted elsewhere, named by its id, is adopted.
	id := strings.Fields(tt.run(t, "submit", "tf", "--name", "e2e-elsewhere", "--image", "i:1", "--", "python", "t.py").MustSucceed(t).Stdout)[7]
	r = tt.runWith(t, []string{"XDG_STATE_HOME=" + t.TempDir()}, "get", id).MustSucceed(t)
	if !strings.Contains(r.Stderr, "Adopted timaker job "+id) {
		t.Errorf("get by id from another machine: stderr %q", r.Stderr)
	}
	elsewhere := []string{"XDG_STATE_HOME=" + t.TempDir()}
	r = tt.runWith(t, elsewhere, "list", "--id", id, "-o", "name").MustSucceed(t)
	if r.Stdout != id+"\n" {
		t.Errorf("list --id on another machine: stdout %q", r.Stdout)
	}
	if r := tt.runWith(t, elsewhere, "list", "-o", "name").MustSucceed(t); r.Stdout != id+"\n" {
		t.Errorf("list after list --id: stdout %q", r.Stdout)
	}

	// A wrong key: the gateway's error, with the hint about the clock and keys.
	r = tt.runWith(t, []string{"EASYAI_TIMAKER_SECRET_KEY=wrong-key"}, "get", "e2e-ok")
	if r.Code != 1 || !strings.Contains(r.Stderr, "AuthFailure.SignatureFailure") || !strings.Contains(r.Stderr, "clock") {
		t.Errorf("a wrong key: exit %d, stderr %q", r.Code, r.Stderr)
	}

	// The most verbose run, and everything printed so far: no secret key.
	tt.run(t, "-v", "9", "get", "e2e-ok").MustSucceed(t)
	tt.run(t, "-v", "9", "submit", "tf", "--name", "e2e-verbose", "--image", "i:1", "--", "python", "t.py").MustSucceed(t)
	for _, out := range tt.outputs {
		if strings.Contains(out, timakerSecret) {
			t.Fatalf("the secret key was printed:\n%s", out)
		}
	}
}
