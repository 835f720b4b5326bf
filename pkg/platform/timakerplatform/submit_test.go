package timakerplatform

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/timaker"
	"github.com/easyai-dev/easyai/test/timakerd/server"
)

// submission is the Submission "easyai submit KIND ARGS..." makes: the
// common flags bound to its Flags as pkg/cmd/submit binds them (the
// table's, and --chart and --set), the kind's own flags, the command after
// "--" and --dry-run.
func submission(t *testing.T, kind string, args ...string) *submit.JobRequest {
	t.Helper()
	reg := registry.Default()
	k, ok := reg.Lookup(kind)
	if !ok {
		t.Fatalf("no kind %s", kind)
	}
	s := &submit.JobRequest{Kinds: reg, Kind: k, Notes: io.Discard,
		Settings: submit.Settings{GPUResource: config.DefaultGPUResource}}
	fs := pflag.NewFlagSet("submit "+kind, pflag.ContinueOnError)
	v := &s.Flags
	v.Declare(fs)
	fs.StringVar(&s.ChartDir, "chart", "", "")
	fs.StringArrayVar(&s.Set, "set", nil, "")
	dryRun := fs.String("dry-run", string(submit.DryRunNone), "")
	fs.Lookup("dry-run").NoOptDefVal = string(submit.DryRunClient)
	s.KindValues = k.SubmitFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if dash := fs.ArgsLenAtDash(); dash >= 0 {
		v.Command = fs.Args()[dash:]
	}
	v.Changed = func(flag string) bool {
		if flag == "command" {
			return len(v.Command) > 0
		}
		fl := fs.Lookup(flag)
		return fl != nil && fl.Changed
	}
	s.BackendFlags = fs
	var err error
	if s.DryRun, err = submit.ParseDryRun(*dryRun); err != nil {
		t.Fatal(err)
	}
	return s
}

// createBody is the body of the one CreateTrainingJob the server received.
func (f *fixture) createBody(t *testing.T) map[string]any {
	t.Helper()
	var bodies []map[string]any
	for _, r := range f.srv.Requests() {
		if r.Action == timaker.ActionCreateTrainingJob {
			bodies = append(bodies, r.Body)
		}
	}
	if len(bodies) != 1 {
		t.Fatalf("%d CreateTrainingJob requests, want 1", len(bodies))
	}
	return bodies[0]
}

// field reads a dotted path of a JSON body.
func field(body map[string]any, path string) any {
	var v any = body
	for key := range strings.SplitSeq(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[key]
	}
	return v
}

func TestSubmitCreatesTheJobAndRecordsIt(t *testing.T) {
	f := newFixture(t)
	s := submission(t, "tf", "--name", "mnist", "--workers", "2", "--gpus", "1", "--image", "registry.example.com/mnist:1",
		"--env", "EPOCHS=3", "--experiment", "lr", "--", "python", "train.py", "--lr", "0.1")
	got, err := f.p.Submit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	body := f.createBody(t)
	for path, want := range map[string]any{
		"Uin":                                      testUin,
		"TiProjectId":                              float64(testProject),
		"TrainingJobName":                          "mnist",
		"TrainingJobSource":                        "easyai",
		"ResourceConfig.InstanceCount":             float64(2),
		"ResourceConfig.GpuNum":                    float64(100),
		"ResourceConfig.CpuNum":                    float64(0),
		"ResourceConfig.Memory":                    float64(0),
		"ResourceConfig.RDMAConfig.Enable":         false,
		"AlgorithmSpecification.TrainingImageName": "registry.example.com/mnist:1",
		"AlgorithmSpecification.EntryPoint":        "python train.py --lr 0.1",
		"Elastic":                                  false,
		"RestartPolicy.PolicyName":                 "AutoRestart",
	} {
		if v := field(body, path); !reflect.DeepEqual(v, want) {
			t.Errorf("%s = %#v, want %#v", path, v, want)
		}
	}
	if env, _ := json.Marshal(body["EnvConfig"]); !strings.Contains(string(env), `{"Name":"EPOCHS","Value":"3"}`) {
		t.Errorf("EnvConfig %s", env)
	}
	if got.Name != "tf/mnist" || got.Line != "tf/mnist submitted to timaker cluster prod as train-1" || got.Job == nil {
		t.Fatalf("submitted %+v", got)
	}
	if got.Shown["trainingJobId"] != "train-1" || got.Shown["cluster"] != "prod" || got.Shown["request"] == nil {
		t.Errorf("shown %v", got.Shown)
	}
	it := got.Job.Item
	if it.Name != "mnist" || it.KindName != "tf" || it.Status.Reason != "JobReceived" || it.Workers.Total != 2 || it.GPUs != 2 {
		t.Errorf("job %+v", it)
	}
	records, err := f.p.Index.Records()
	if err != nil || len(records) != 1 {
		t.Fatalf("index %+v, error %v", records, err)
	}
	r := records[0]
	want := Record{ID: "train-1", Name: "mnist", Kind: "tf", User: testUin, Experiment: "lr", Image: "registry.example.com/mnist:1",
		Command: "python train.py --lr 0.1", Instances: 2, GPUs: 2, Submitted: testEpoch}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("record %+v, want %+v", r, want)
	}
	// The submission is left as it was given.
	if s.DryRun != submit.DryRunNone || s.Flags.GPUs != 1 {
		t.Errorf("submission changed: dry run %q, gpus %v", s.DryRun, s.Flags.GPUs)
	}
	if f.notes.Len() != 0 {
		t.Errorf("notes %q", f.notes)
	}
}

func TestSubmitMapsFlagsToTheRequest(t *testing.T) {
	tests := []struct {
		name string
		kind string
		args []string
		want map[string]any
	}{
		{name: "tf workers", kind: "tf", args: []string{"--workers", "2"},
			want: map[string]any{"ResourceConfig.InstanceCount": 2.0}},
		{name: "pytorch master and workers", kind: "pytorch", args: []string{"--workers", "3"},
			want: map[string]any{"ResourceConfig.InstanceCount": 3.0}},
		{name: "a fraction of a GPU", kind: "tf", args: []string{"--gpus", "0.5"},
			want: map[string]any{"ResourceConfig.GpuNum": 50.0}},
		{name: "a quarter of a GPU", kind: "pytorch", args: []string{"--workers", "2", "--gpus", "0.25"},
			want: map[string]any{"ResourceConfig.GpuNum": 25.0, "ResourceConfig.InstanceCount": 2.0}},
		{name: "GPUs", kind: "tf", args: []string{"--gpus", "2", "--gpu-type", "A100"},
			want: map[string]any{"ResourceConfig.GpuNum": 200.0, "ResourceConfig.GpuType": "A100"}},
		{name: "millicores", kind: "tf", args: []string{"--cpu", "500m"},
			want: map[string]any{"ResourceConfig.CpuNum": 500.0}},
		{name: "cores", kind: "tf", args: []string{"--cpu", "2"},
			want: map[string]any{"ResourceConfig.CpuNum": 2000.0}},
		{name: "memory in MiB", kind: "tf", args: []string{"--memory", "1.5Gi"},
			want: map[string]any{"ResourceConfig.Memory": 1536.0}},
		{name: "memory rounded up", kind: "tf", args: []string{"--memory", "1M"},
			want: map[string]any{"ResourceConfig.Memory": 1.0}},
		{name: "working directory", kind: "tf", args: []string{"--working-dir", "/w"},
			want: map[string]any{"AlgorithmSpecification.EntryPoint": "cd /w && python train.py"}},
		{name: "a working directory with a space", kind: "tf", args: []string{"--working-dir", "/my code"},
			want: map[string]any{"AlgorithmSpecification.EntryPoint": "cd '/my code' && python train.py"}},
		{name: "rdma and elastic", kind: "tf", args: []string{"--rdma", "--elastic"},
			want: map[string]any{"ResourceConfig.RDMAConfig.Enable": true, "Elastic": true}},
		{name: "a file system", kind: "tf", args: []string{"--fs", "cfs:10.0.0.4:/team/code:ro"},
			want: map[string]any{
				"AlgorithmSpecification.AlgorithmSource.FileSystemDataSource.FileSystemType":     "cfs",
				"AlgorithmSpecification.AlgorithmSource.FileSystemDataSource.FileSystemEndpoint": "10.0.0.4",
				"AlgorithmSpecification.AlgorithmSource.FileSystemDataSource.DirectoryPath":      "/team/code",
				"AlgorithmSpecification.AlgorithmSource.FileSystemDataSource.ReadOnly":           true,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			args := append(append([]string{"--image", "train:1"}, tt.args...), "--", "python", "train.py")
			if _, err := f.p.Submit(context.Background(), submission(t, tt.kind, args...)); err != nil {
				t.Fatal(err)
			}
			body := f.createBody(t)
			for path, want := range tt.want {
				if v := field(body, path); !reflect.DeepEqual(v, want) {
					t.Errorf("%s = %#v, want %#v", path, v, want)
				}
			}
		})
	}
}

func TestSubmitRecordsFractionsOfGPUs(t *testing.T) {
	f := newFixture(t)
	s := submission(t, "pytorch", "--workers", "4", "--gpus", "0.5", "--image", "train:1", "--", "python", "train.py")
	got, err := f.p.Submit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if got.Job.Item.GPUs != 2 {
		t.Errorf("gpus %v, want 4 instances of 0.5", got.Job.Item.GPUs)
	}
	if records, _ := f.p.Index.Records(); len(records) != 1 || records[0].GPUs != 2 || records[0].Instances != 4 {
		t.Errorf("index %+v", records)
	}
	if s.Flags.GPUs != 0.5 {
		t.Errorf("--gpus changed to %v", s.Flags.GPUs)
	}
}

// TestSubmitChangesNoRequest: timaker renders a copy of the request
// (namespace, storage, whole GPUs, a client dry run) and says the name it
// generated once the job is created, and not when the job is refused.
func TestSubmitChangesNoRequest(t *testing.T) {
	f := newFixture(t)
	var notes strings.Builder
	s := submission(t, "pytorch", "--workers", "2", "--gpus", "0.5", "--image", "train:1", "--", "python", "train.py")
	s.Notes, s.Settings.Storage = &notes, "pvc:team"
	before := *s
	got, err := f.p.Submit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if s.Flags.GPUs != before.Flags.GPUs || s.DryRun != before.DryRun || s.Settings.Storage != before.Settings.Storage {
		t.Errorf("the request changed: gpus %v, dry run %q, settings %+v", s.Flags.GPUs, s.DryRun, s.Settings)
	}
	if n := strings.Count(notes.String(), "Job name: "+strings.TrimPrefix(got.Name, "pytorch/")+"\n"); n != 1 {
		t.Errorf("notes %q: the generated name said %d times, want once", notes.String(), n)
	}
	notes.Reset()
	s = submission(t, "tf", "--ps", "1", "--gpus", "1", "--image", "train:1", "--", "python", "train.py")
	s.Notes = &notes
	if _, err := f.p.Submit(context.Background(), s); err == nil || strings.Contains(notes.String(), "Job name") {
		t.Errorf("a refused job: error %v, notes %q", err, notes.String())
	}
}

// TestSubmitRefusals: what timaker cannot take is exit 2 naming it, and
// nothing is created.
func TestSubmitRefusals(t *testing.T) {
	tests := []struct {
		name string
		kind string
		args []string
		err  []string
	}{
		{name: "roles that differ", kind: "tf", args: []string{"--ps", "1", "--workers", "2", "--gpus", "1"},
			err: []string{"roles", "ps and worker", "differ in resources", "timaker runs one role"}},
		{name: "a role of its own image", kind: "tf", args: []string{"--ps", "1", "--ps-image", "ps:1"},
			err: []string{"ps and worker", "differ in image"}},
		{name: "a GPU in thirds", kind: "tf", args: []string{"--gpus", "0.333"},
			err: []string{"--gpus 0.333", "hundredths"}},
		{name: "server dry run", kind: "tf", args: []string{"--dry-run=server"},
			err: []string{"--dry-run=server", "--dry-run=client"}},
		{name: "a bad file system", kind: "tf", args: []string{"--fs", "cfs:10.0.0.4:team"},
			err: []string{`--fs "cfs:10.0.0.4:team"`, "absolute"}},
	}
	for _, flag := range []struct {
		name string
		args []string
	}{
		{"label", []string{"--label", "team=vision"}},
		{"annotation", []string{"--annotation", "note=x"}},
		{"node-selector", []string{"--node-selector", "zone=a"}},
		{"toleration", []string{"--toleration", "gpu:NoSchedule"}},
		{"image-pull-secret", []string{"--image-pull-secret", "regcred"}},
		{"shm-size", []string{"--shm-size", "8Gi"}},
		{"priority", []string{"--priority", "high"}},
		{"queue", []string{"--queue", "research"}},
		{"gang", []string{"--gang"}},
		{"max-duration", []string{"--max-duration", "24h"}},
		{"ttl-after-finished", []string{"--ttl-after-finished", "72h"}},
		{"clean-pod-policy", []string{"--clean-pod-policy", "All"}},
		{"data", []string{"--data", "datasets:/data"}},
		{"chart", []string{"--chart", "charts/tfjob"}},
	} {
		tests = append(tests, struct {
			name string
			kind string
			args []string
			err  []string
		}{name: "--" + flag.name, kind: "tf", args: flag.args, err: []string{"--" + flag.name + ": timaker jobs have no such setting (timaker cluster prod)"}})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			args := append(append([]string{"--image", "train:1"}, tt.args...), "--", "python", "train.py")
			_, err := f.p.Submit(context.Background(), submission(t, tt.kind, args...))
			if exit.Code(err) != exit.Usage {
				t.Fatalf("error %v (exit %d), want exit 2", err, exit.Code(err))
			}
			for _, want := range tt.err {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if n := f.requests(timaker.ActionCreateTrainingJob); n != 0 {
				t.Errorf("%d jobs created", n)
			}
			if records, _ := f.p.Index.Records(); len(records) != 0 {
				t.Errorf("index %+v", records)
			}
		})
	}
}

// TestUnsupportedFlagsAreTheDocumentedOnes: docs/timaker.md lists the
// Kubernetes-only flags timaker refuses.
func TestUnsupportedFlagsAreTheDocumentedOnes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "timaker.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, found := strings.Cut(strings.Join(strings.Fields(string(data)), " "), "the Kubernetes-only flags (")
	list, _, closed := strings.Cut(rest, ")")
	if !found || !closed {
		t.Fatal(`docs/timaker.md no longer says "the Kubernetes-only flags (...)"`)
	}
	var documented []string
	for _, m := range regexp.MustCompile("`--([a-z-]+)`").FindAllStringSubmatch(list, -1) {
		documented = append(documented, m[1])
	}
	got := slices.Sorted(slices.Values(submit.FlagsNotOn(submit.Timaker)))
	slices.Sort(documented)
	if !reflect.DeepEqual(got, documented) {
		t.Errorf("submit.FlagsNotOn(submit.Timaker) %v, docs/timaker.md %v", got, documented)
	}
}

func TestSubmitRefusesEnvReferences(t *testing.T) {
	f := newFixture(t)
	s := submission(t, "tf", "--image", "train:1", "--", "python", "train.py")
	s.JobFiles = []render.ValueFile{{Name: "job.yaml", Data: []byte(`
env:
  - name: POD_NAME
    valueFrom:
      fieldRef:
        fieldPath: metadata.name
`)}}
	_, err := f.p.Submit(context.Background(), s)
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "env POD_NAME: timaker takes values, not references (valueFrom)") {
		t.Errorf("error %v (exit %d)", err, exit.Code(err))
	}
	if n := f.requests(timaker.ActionCreateTrainingJob); n != 0 {
		t.Errorf("%d jobs created", n)
	}
}

func TestSubmitClientDryRunSendsNothing(t *testing.T) {
	f := newFixture(t)
	s := submission(t, "tf", "--dry-run", "--name", "mnist", "--workers", "2", "--gpus", "0.5", "--image", "train:1", "--", "python", "train.py")
	got, err := f.p.Submit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d requests sent by a dry run", n)
	}
	if records, _ := f.p.Index.Records(); len(records) != 0 {
		t.Errorf("index %+v", records)
	}
	if got.Job != nil || got.Name != "tf/mnist" {
		t.Errorf("submitted %+v", got)
	}
	if got.Shown["method"] != "POST" || !strings.HasSuffix(got.Shown["url"].(string), "/gateway") {
		t.Errorf("shown %v", got.Shown)
	}
	headers, _ := got.Shown["headers"].(map[string]any)
	for k := range headers {
		if strings.EqualFold(k, "Authorization") {
			t.Errorf("the dry run shows %s", k)
		}
	}
	if headers["X-Tc-Action"] != timaker.ActionCreateTrainingJob || headers["Host"] == nil || headers["X-Tc-Timestamp"] == nil {
		t.Errorf("headers %v", headers)
	}
	shown, _ := json.Marshal(got.Shown)
	if strings.Contains(string(shown), testSecretKey) || strings.Contains(string(shown), "Signature") {
		t.Errorf("the dry run shows the secret or a signature: %s", shown)
	}
	body, _ := got.Shown["body"].(map[string]any)
	if field(body, "ResourceConfig.GpuNum") != 50.0 || field(body, "ResourceConfig.InstanceCount") != 2.0 || body["TrainingJobName"] != "mnist" {
		t.Errorf("body %v", body)
	}
	if s.DryRun != submit.DryRunClient {
		t.Errorf("dry run changed to %q", s.DryRun)
	}
}

func TestSubmitThatFailsRecordsNothing(t *testing.T) {
	f := newFixture(t)
	f.srv.Inject(timaker.ActionCreateTrainingJob, server.Fault{Count: 1, Error: &server.APIErrorBody{Code: "FailedOperation.QuotaExceeded", Message: "no quota"}})
	_, err := f.p.Submit(context.Background(), submission(t, "tf", "--image", "train:1", "--", "python", "train.py"))
	if err == nil || !strings.Contains(err.Error(), "no quota") {
		t.Errorf("error %v", err)
	}
	if records, _ := f.p.Index.Records(); len(records) != 0 {
		t.Errorf("index %+v", records)
	}
}

func TestParseFS(t *testing.T) {
	tests := []struct {
		arg  string
		want *timaker.FileSystemDataSource
		err  string
	}{
		{arg: "cfs:10.0.0.4:/team/code", want: &timaker.FileSystemDataSource{FileSystemType: "cfs", FileSystemEndpoint: "10.0.0.4", DirectoryPath: "/team/code"}},
		{arg: "nfs:nas.example.com:/export/code:ro", want: &timaker.FileSystemDataSource{FileSystemType: "nfs", FileSystemEndpoint: "nas.example.com", DirectoryPath: "/export/code", ReadOnly: true}},
		{arg: "nfs:nas.example.com:2049:/export", want: &timaker.FileSystemDataSource{FileSystemType: "nfs", FileSystemEndpoint: "nas.example.com:2049", DirectoryPath: "/export"}},
		{arg: "nfs:[fe80::1]:/export:ro", want: &timaker.FileSystemDataSource{FileSystemType: "nfs", FileSystemEndpoint: "[fe80::1]", DirectoryPath: "/export", ReadOnly: true}},
		{arg: "cfs:10.0.0.4:/", want: &timaker.FileSystemDataSource{FileSystemType: "cfs", FileSystemEndpoint: "10.0.0.4", DirectoryPath: "/"}},
		{arg: "", err: "no TYPE"},
		{arg: "cfs", err: "no TYPE"},
		{arg: ":10.0.0.4:/code", err: "no TYPE"},
		{arg: "cfs:/code", err: "no ENDPOINT or PATH"},
		{arg: "cfs::/code", err: "no ENDPOINT or PATH"},
		{arg: "cfs:10.0.0.4:", err: "no ENDPOINT or PATH"},
		{arg: "cfs:10.0.0.4:/code:ro:", err: "no ENDPOINT or PATH"},
		{arg: "cfs:10.0.0.4:code", err: "PATH must be absolute"},
		{arg: "cfs:10.0.0.4:/code:rw", err: "PATH must be absolute"},
		{arg: "cfs:10.0.0.4:/my code", err: "spaces are not allowed"},
		{arg: "cfs:10.0.0.4:/code\n", err: "spaces are not allowed"},
	}
	for _, tt := range tests {
		got, err := ParseFS(tt.arg)
		if tt.err != "" {
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "TYPE:ENDPOINT:PATH[:ro]") {
				t.Errorf("ParseFS(%q): %v (exit %d), want exit 2 with %q", tt.arg, err, exit.Code(err), tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseFS(%q) = %+v, %v; want %+v", tt.arg, got, err, tt.want)
		}
	}
}

func FuzzParseFS(f *testing.F) {
	for _, seed := range []string{"cfs:10.0.0.4:/team/code", "nfs:nas.example.com:2049:/export:ro", "nfs:[fe80::1]:/x", "a::/", ":", "x:y:z:ro", "t:e:/p:ro:ro"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		fs, err := ParseFS(arg)
		if err != nil {
			if exit.Code(err) != exit.Usage {
				t.Errorf("ParseFS(%q): exit %d, want 2", arg, exit.Code(err))
			}
			return
		}
		if !strings.HasPrefix(fs.DirectoryPath, "/") || fs.FileSystemType == "" || fs.FileSystemEndpoint == "" {
			t.Errorf("ParseFS(%q) = %+v", arg, fs)
		}
	})
}
