package render

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/colossalai"
	"github.com/easyai-dev/easyai/pkg/kinds/jaxjob"
	"github.com/easyai-dev/easyai/pkg/kinds/mpijob"
	"github.com/easyai-dev/easyai/pkg/kinds/paddlejob"
	"github.com/easyai-dev/easyai/pkg/kinds/pytorchjob"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
	"github.com/easyai-dev/easyai/pkg/kinds/trainjob"
	"github.com/easyai-dev/easyai/pkg/kinds/volcano"
	"github.com/easyai-dev/easyai/pkg/kinds/xgboostjob"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/ with what Render returns")

// goldenCase is a values file of testdata/ and the kind it is rendered as;
// its golden file is NAME.golden.yaml beside it.
type goldenCase struct {
	name  string
	kind  kinds.Kind
	chart string // the kind's chart folder under charts/
}

var goldenCases = []goldenCase{
	{"tf-ps-workers", tfjob.New(), "tfjob"},
	{"tf-chief-evaluator", tfjob.New(), "tfjob"},
	{"tf-debug", tfjob.New(), "tfjob"},
	{"tf-webtools", tfjob.New(), "tfjob"},
	{"tf-ssh", tfjob.New(), "tfjob"},
	{"pytorch-elastic", pytorchjob.New(), "pytorchjob"},
	{"pytorch-minimal", pytorchjob.New(), "pytorchjob"},
	{"pytorch-notebook", pytorchjob.New(), "pytorchjob"},
	{"mpi-horovod", mpijob.New(), "mpijob"},
	{"xgboost-iris", xgboostjob.New(), "xgboostjob"},
	{"paddle-elastic", paddlejob.New(), "paddlejob"},
	{"paddle-ps", paddlejob.New(), "paddlejob"},
	{"jax-workers", jaxjob.New(), "jaxjob"},
	{"volcano-pytorch", volcano.New(), "volcano"},
	{"volcano-minimal", volcano.New(), "volcano"},
	{"volcano-jupyter", volcano.New(), "volcano"},
	{"colossalai-t9k", colossalai.New(), "colossalai"},
	{"colossalai-volcano", colossalai.OnVolcano{}, "colossalai-volcano"},
	{"colossalai-volcano-debug", colossalai.OnVolcano{}, "colossalai-volcano"},
	{"trainjob-torch", trainjob.New(), "trainjob"},
	{"trainjob-initializer", trainjob.New(), "trainjob"},
	{"trainjob-debug", trainjob.New(), "trainjob"},
	{"deepspeed-minimal", trainjob.DeepSpeed(), "deepspeed"},
	{"mlx-minimal", trainjob.MLX(), "mlx"},
	{"pytorch-trainer", trainjob.OnTrainer{Kind: trainjob.New(), Of: "pytorch", ChartName: "pytorchjob-trainer", Runtime: "torch-distributed"}, "pytorchjob-trainer"},
	{"jax-trainer", trainjob.OnTrainer{Kind: trainjob.New(), Of: "jax", ChartName: "jaxjob-trainer", Runtime: "jax-distributed"}, "jaxjob-trainer"},
	{"xgboost-trainer", trainjob.OnTrainer{Kind: trainjob.New(), Of: "xgboost", ChartName: "xgboostjob-trainer", Runtime: "xgboost-distributed"}, "xgboostjob-trainer"},
}

// valueFiles reads values files as the CLI does, once.
func valueFiles(t *testing.T, paths ...string) []ValueFile {
	t.Helper()
	files, err := ReadValueFiles(t.Context(), nil, paths)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func (c goldenCase) valuesFile() string { return filepath.Join("testdata", c.name+".values.yaml") }

// toYAML writes objects as one YAML stream, keys sorted.
func toYAML(t *testing.T, objs []*unstructured.Unstructured) []byte {
	t.Helper()
	var buf bytes.Buffer
	for i, obj := range objs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		data, err := yaml.Marshal(obj.Object)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(data)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			objs, err := Render(Request{Kind: c.kind, ValueFiles: valueFiles(t, c.valuesFile())})
			if err != nil {
				t.Fatal(err)
			}
			got := toYAML(t, objs)
			golden := filepath.Join("testdata", c.name+".golden.yaml")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./pkg/render -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Render differs from %s (go test ./pkg/render -update rewrites it):\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}

// render renders the kind's chart with the CLI's values and --set.
func render(t *testing.T, kind kinds.Kind, values map[string]any, set ...string) *unstructured.Unstructured {
	t.Helper()
	objs, err := Render(Request{Kind: kind, Values: values, Set: set})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Fatalf("%d objects, want 1", len(objs))
	}
	return objs[0]
}

// replicaSpecs returns the job's replica specs by replica type.
func replicaSpecs(t *testing.T, obj *unstructured.Unstructured) map[string]any {
	t.Helper()
	field := map[string]string{
		"TFJob": "tfReplicaSpecs", "PyTorchJob": "pytorchReplicaSpecs", "MPIJob": "mpiReplicaSpecs",
		"XGBoostJob": "xgbReplicaSpecs", "PaddleJob": "paddleReplicaSpecs", "JAXJob": "jaxReplicaSpecs",
	}[obj.GetKind()]
	specs, found, err := unstructured.NestedMap(obj.Object, "spec", field)
	if err != nil || !found {
		t.Fatalf("spec.%s: found %v, %v", field, found, err)
	}
	return specs
}

// container returns the only container of a replica type's pods.
func container(t *testing.T, obj *unstructured.Unstructured, replicaType string) map[string]any {
	t.Helper()
	spec, ok := replicaSpecs(t, obj)[replicaType].(map[string]any)
	if !ok {
		t.Fatalf("no %s replicas", replicaType)
	}
	containers, _, _ := unstructured.NestedSlice(spec, "template", "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("%s: %d containers, want 1", replicaType, len(containers))
	}
	return containers[0].(map[string]any)
}

func nested(t *testing.T, m map[string]any, fields ...string) any {
	t.Helper()
	v, _, err := unstructured.NestedFieldNoCopy(m, fields...)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestPrecedence: chart defaults < -f files (in order) < the CLI's values < --set.
func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first.yaml")
	second := filepath.Join(dir, "second.yaml")
	write(t, first, `
name: from-first-file
image: from-first-file
workingDir: /first
command: [a, b, c]
labels: {a: first, b: first, c: first, d: first}
`)
	write(t, second, `
image: from-second-file
labels: {b: second, c: second, d: second}
`)
	objs, err := Render(Request{
		Kind:       tfjob.New(),
		ValueFiles: valueFiles(t, first, second),
		Values: map[string]any{
			"image":   "from-flags",
			"command": []string{"python", "train.py"},
			"labels":  map[string]string{"c": "flags", "d": "flags"},
		},
		Set: []string{"labels.d=set", "name=from-set"},
	})
	if err != nil {
		t.Fatal(err)
	}
	job := objs[0]
	if got := job.GetName(); got != "from-set" {
		t.Errorf("name %q, want --set's", got)
	}
	wantLabels := map[string]string{"a": "first", "b": "second", "c": "flags", "d": "set"}
	if got := job.GetLabels(); !reflect.DeepEqual(got, wantLabels) {
		t.Errorf("labels %v, want %v", got, wantLabels)
	}
	c := container(t, job, "Worker")
	if c["image"] != "from-flags" || c["workingDir"] != "/first" {
		t.Errorf("image %v, workingDir %v: want the flags' and the first file's", c["image"], c["workingDir"])
	}
	// Lists are replaced, not merged.
	if got := c["command"]; !reflect.DeepEqual(got, []any{"python", "train.py"}) {
		t.Errorf("command %v, want the flags'", got)
	}
	// The chart's defaults under everything: imagePullPolicy and 1 worker.
	if c["imagePullPolicy"] != "IfNotPresent" || nested(t, replicaSpecs(t, job), "Worker", "replicas") != int64(1) {
		t.Errorf("chart defaults lost: %v", replicaSpecs(t, job))
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.TrimLeft(content, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRoleOverrides: a role's own value wins over the top-level one, even
// when it is 0 or empty, field by field in resources.
func TestRoleOverrides(t *testing.T) {
	job := render(t, tfjob.New(), map[string]any{
		"name":       "override",
		"image":      "top",
		"command":    []string{"top"},
		"workingDir": "/top",
		"env":        []map[string]any{{"name": "TOP", "value": "1"}},
		"resources":  map[string]any{"cpu": "4", "memory": "16Gi", "gpus": 2},
		"roles": map[string]any{
			"worker": map[string]any{"replicas": 2, "resources": map[string]any{"gpus": 0}, "workingDir": "", "command": []string{}},
			"ps":     map[string]any{"replicas": 1, "image": "ps-image", "resources": map[string]any{"cpu": "1"}, "env": []any{}},
			"chief":  map[string]any{"replicas": 1, "restartPolicy": "OnFailure"},
		},
	})

	worker := container(t, job, "Worker")
	wantWorkerRes := map[string]any{
		"limits":   map[string]any{"cpu": "4", "memory": "16Gi"},
		"requests": map[string]any{"cpu": "4", "memory": "16Gi"},
	}
	if !reflect.DeepEqual(worker["resources"], wantWorkerRes) {
		t.Errorf("worker resources %v, want no GPUs (roles.worker.resources.gpus 0): %v", worker["resources"], wantWorkerRes)
	}
	for _, field := range []string{"workingDir", "command"} {
		if v, ok := worker[field]; ok {
			t.Errorf("worker %s %v: the role's empty value should win", field, v)
		}
	}
	if worker["image"] != "top" || !reflect.DeepEqual(worker["env"], []any{map[string]any{"name": "TOP", "value": "1"}}) {
		t.Errorf("worker image %v, env %v: want the top-level ones", worker["image"], worker["env"])
	}

	ps := container(t, job, "PS")
	// PS: its own cpu and image; memory from the top; no GPUs (the chart's
	// default roles.ps.resources.gpus is 0); its own empty env.
	wantPSRes := map[string]any{
		"limits":   map[string]any{"cpu": "1", "memory": "16Gi"},
		"requests": map[string]any{"cpu": "1", "memory": "16Gi"},
	}
	if ps["image"] != "ps-image" || !reflect.DeepEqual(ps["resources"], wantPSRes) || ps["env"] != nil {
		t.Errorf("ps container %v, want image ps-image, resources %v, no env", ps, wantPSRes)
	}

	chief := container(t, job, "Chief")
	if got := nested(t, chief, "resources", "limits", "nvidia.com/gpu"); got != int64(2) {
		t.Errorf("chief GPUs %v, want the top-level 2", got)
	}
	specs := replicaSpecs(t, job)
	if nested(t, specs, "Chief", "restartPolicy") != "OnFailure" || nested(t, specs, "Worker", "restartPolicy") != "Never" {
		t.Errorf("restart policies: chief %v (want its own), worker %v (want the default)",
			nested(t, specs, "Chief", "restartPolicy"), nested(t, specs, "Worker", "restartPolicy"))
	}
}

// TestZeroReplicaRolesOmitted: roles with 0 replicas have no replica spec.
func TestZeroReplicaRolesOmitted(t *testing.T) {
	tf := render(t, tfjob.New(), map[string]any{"name": "tf", "image": "i",
		"roles": map[string]any{"worker": map[string]any{"replicas": 3}, "ps": map[string]any{"replicas": 0}}})
	if got := keys(replicaSpecs(t, tf)); !reflect.DeepEqual(got, []string{"Worker"}) {
		t.Errorf("TFJob replica types %v, want [Worker]", got)
	}
	pt := render(t, pytorchjob.New(), map[string]any{"name": "pt", "image": "i"}, "roles.worker.replicas=0")
	if got := keys(replicaSpecs(t, pt)); !reflect.DeepEqual(got, []string{"Master"}) {
		t.Errorf("PyTorchJob replica types %v, want [Master]", got)
	}
	pt = render(t, pytorchjob.New(), map[string]any{"name": "pt", "image": "i",
		"roles": map[string]any{"master": map[string]any{"replicas": 0}, "worker": map[string]any{"replicas": 2}}})
	if got := keys(replicaSpecs(t, pt)); !reflect.DeepEqual(got, []string{"Worker"}) {
		t.Errorf("PyTorchJob replica types %v, want [Worker]", got)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestRunPolicy: only what is set is rendered; gang defaults minAvailable
// to all replicas and takes the priority class.
func TestRunPolicy(t *testing.T) {
	base := map[string]any{"name": "rp", "image": "i", "priorityClassName": "high",
		"roles": map[string]any{"worker": map[string]any{"replicas": 3}, "ps": map[string]any{"replicas": 1}}}
	for _, c := range []struct {
		name string
		set  []string
		want map[string]any // spec.runPolicy; nil: none
	}{
		{"unset", nil, nil},
		{"gang", []string{"runPolicy.gang=true"},
			map[string]any{"schedulingPolicy": map[string]any{"minAvailable": int64(4), "priorityClass": "high"}}},
		{"gang with minAvailable", []string{"runPolicy.gang=true", "runPolicy.minAvailable=2", "runPolicy.queue=q"},
			map[string]any{"schedulingPolicy": map[string]any{"minAvailable": int64(2), "priorityClass": "high", "queue": "q"}}},
		{"queue without gang", []string{"runPolicy.queue=q"},
			map[string]any{"schedulingPolicy": map[string]any{"queue": "q"}}},
		{"limits", []string{"runPolicy.backoffLimit=0", "runPolicy.activeDeadlineSeconds=3600", "runPolicy.ttlSecondsAfterFinished=60", "runPolicy.cleanPodPolicy=All"},
			map[string]any{"backoffLimit": int64(0), "activeDeadlineSeconds": int64(3600), "ttlSecondsAfterFinished": int64(60), "cleanPodPolicy": "All"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			job := render(t, tfjob.New(), base, c.set...)
			got, found, _ := unstructured.NestedMap(job.Object, "spec", "runPolicy")
			if c.want == nil && found || c.want != nil && !reflect.DeepEqual(got, c.want) {
				t.Errorf("runPolicy %v, want %v", got, c.want)
			}
		})
	}
}

// TestBadInput: bad values, files, --set and charts are usage errors (exit
// 2) whose message names what is wrong.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	notYAML := filepath.Join(dir, "list.yaml")
	write(t, notYAML, "- a\n- b\n")
	ok := map[string]any{"name": "job", "image": "i"}
	for _, c := range []struct {
		name string
		req  Request
		want []string // in the message
	}{
		{"empty name", Request{Kind: tfjob.New(), Values: map[string]any{"image": "i"}}, []string{"name: required"}},
		{"name set to empty", Request{Kind: pytorchjob.New(), Values: ok, Set: []string{"name="}}, []string{"name: required"}},
		{"no image", Request{Kind: tfjob.New(), Values: map[string]any{"name": "job"}}, []string{"image: required", "roles.worker.image"}},
		{"bad --set", Request{Kind: tfjob.New(), Values: ok, Set: []string{"roles.worker[=3"}}, []string{"--set roles.worker[=3"}},
		{"-f file not a map", Request{Kind: tfjob.New(), ValueFiles: valueFiles(t, notYAML)}, []string{"list.yaml"}},
		{"misspelt value", Request{Kind: tfjob.New(), Values: ok, Set: []string{"imagePullPolicty=Always"}}, []string{"imagePullPolicty: unknown field"}},
		{"misspelt role field", Request{Kind: tfjob.New(), Values: ok, Set: []string{"roles.worker.imag=x"}}, []string{"roles.worker.imag: unknown field"}},
		{"unknown role", Request{Kind: pytorchjob.New(), Values: ok, Set: []string{"roles.chief.replicas=1"}}, []string{"roles.chief: unknown field", "master, worker"}},
		{"bad replicas", Request{Kind: tfjob.New(), Values: ok, Set: []string{"roles.worker.replicas=two"}}, []string{"roles.worker.replicas: must be a whole number", "two"}},
		{"negative gpus", Request{Kind: tfjob.New(), Values: ok, Set: []string{"roles.ps.resources.gpus=-1"}}, []string{"roles.ps.resources.gpus: must be 0 or more"}},
		{"bad quantity", Request{Kind: tfjob.New(), Values: ok, Set: []string{"roles.ps.resources.memory=4 GB"}}, []string{`roles.ps.resources.memory: not a quantity`, `"4 GB"`}},
		{"bad shm size", Request{Kind: pytorchjob.New(), Values: ok, Set: []string{"shmSize=big"}}, []string{`shmSize: not a quantity`}},
		{"bad enum", Request{Kind: tfjob.New(), Values: ok, Set: []string{"runPolicy.cleanPodPolicy=Some"}}, []string{"runPolicy.cleanPodPolicy: must be one of None, Running, All", "Some"}},
		{"bad success policy", Request{Kind: tfjob.New(), Values: ok, Set: []string{"successPolicy=Chief"}}, []string{"successPolicy: must be one of AllWorkers"}},
		{"command not a list", Request{Kind: tfjob.New(), Values: ok, Set: []string{"command=python train.py"}}, []string{"command: must be a list"}},
		{"data without claim", Request{Kind: tfjob.New(), Values: ok, Set: []string{"data[0].mountPath=/data"}}, []string{"data[0].claim: required"}},
		{"env without name", Request{Kind: tfjob.New(), Values: ok, Set: []string{"env[0].value=1"}}, []string{"env[0].name: required"}},
		{"no replicas", Request{Kind: tfjob.New(), Values: ok, Set: []string{"roles.worker.replicas=0"}}, []string{"roles: no replicas"}},
		{"two masters", Request{Kind: pytorchjob.New(), Values: ok, Set: []string{"roles.master.replicas=2"}}, []string{"roles.master.replicas: a PyTorchJob has at most 1 master"}},
		{"elastic without workers", Request{Kind: pytorchjob.New(), Values: ok, Set: []string{"elastic.minReplicas=1", "elastic.maxReplicas=2"}}, []string{"elastic: an elastic PyTorchJob needs workers"}},
		{"elastic min over max", Request{Kind: pytorchjob.New(), Values: ok, Set: []string{"roles.worker.replicas=2", "elastic.minReplicas=3", "elastic.maxReplicas=2"}}, []string{"elastic.minReplicas: 3 is more than elastic.maxReplicas 2"}},
		{"bad nprocPerNode", Request{Kind: pytorchjob.New(), Values: ok, Set: []string{"nprocPerNode=many"}}, []string{"nprocPerNode: must be"}},
		{"two launchers", Request{Kind: mpijob.New(), Values: ok, Set: []string{"roles.launcher.replicas=2"}}, []string{"roles.launcher.replicas: an MPIJob has exactly 1 launcher, got 2"}},
		{"bad slots", Request{Kind: mpijob.New(), Values: ok, Set: []string{"slotsPerWorker=0"}}, []string{"slotsPerWorker: must be 1 or more"}},
		{"no xgboost master", Request{Kind: xgboostjob.New(), Values: ok, Set: []string{"roles.master.replicas=0", "roles.worker.replicas=2"}}, []string{"roles.master.replicas: an XGBoostJob has exactly 1 master, got 0"}},
		{"elastic paddle with servers", Request{Kind: paddlejob.New(), Values: ok, Set: []string{"roles.master.replicas=1", "elastic.minReplicas=1"}}, []string{"elastic: an elastic PaddleJob runs in collective mode"}},
		{"unknown paddle elastic field", Request{Kind: paddlejob.New(), Values: ok, Set: []string{"elastic.maxRestarts=3"}}, []string{"elastic.maxRestarts: unknown field"}},
		{"unknown jax role", Request{Kind: jaxjob.New(), Values: ok, Set: []string{"roles.master.replicas=1"}}, []string{"roles.master: unknown field", "(known: worker)"}},
		{"unknown field through a custom chart", Request{Kind: tfjob.New(), ChartDir: "testdata/charts/passthrough", Set: []string{"name=job", "container.imag=x"}},
			[]string{`spec.tfReplicaSpecs.Worker.template.spec.containers[0].imag`}},
		{"wrongly typed field through a custom chart", Request{Kind: tfjob.New(), ChartDir: "testdata/charts/passthrough", Set: []string{"name=job", "container.ports=80"}},
			[]string{`spec.tfReplicaSpecs.Worker.template.spec.containers[0].ports: got a number, want []v1.ContainerPort`}},
		{"bad quantity through a custom chart", Request{Kind: tfjob.New(), ChartDir: "testdata/charts/passthrough", Set: []string{"name=job", "container.resources.limits.memory=lots"}},
			[]string{`spec.tfReplicaSpecs.Worker.template.spec.containers[0].resources.limits.memory: quantities must match`}},
		{"custom chart without a name", Request{Kind: tfjob.New(), ChartDir: "testdata/charts/passthrough"}, []string{"no metadata.name"}},
		{"chart of another kind", Request{Kind: tfjob.New(), ChartDir: "../../charts/pytorchjob", Values: ok}, []string{"renders a PyTorchJob", "not a TFJob"}},
		{"missing chart", Request{Kind: tfjob.New(), ChartDir: filepath.Join(dir, "nochart"), Values: ok}, []string{"--chart", "nochart"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Render(c.req)
			if err == nil {
				t.Fatal("no error")
			}
			if code := exit.Code(err); code != exit.Usage {
				t.Errorf("exit code %d, want %d (%v)", code, exit.Usage, err)
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// TestCustomChart: a team's chart that depends on easyai-lib without
// vendoring it gets easyai's, if the version suits it.
func TestCustomChart(t *testing.T) {
	objs, err := Render(Request{Kind: tfjob.New(), ChartDir: "testdata/charts/team", Values: map[string]any{"name": "team-job"}})
	if err != nil {
		t.Fatal(err)
	}
	job := objs[0]
	if job.GetName() != "team-job" || job.GetAnnotations()["team.example.com/cost-centre"] != "ml-research" {
		t.Errorf("metadata %v", job.Object["metadata"])
	}
	if c := container(t, job, "Worker"); c["name"] != "tensorflow" || c["image"] != "team/trainer:latest" {
		t.Errorf("worker container %v", c)
	}

	// A chart that needs another easyai-lib must vendor it.
	dir := filepath.Join(t.TempDir(), "team")
	copyDir(t, "testdata/charts/team", dir)
	chartYAML := filepath.Join(dir, "Chart.yaml")
	data, _ := os.ReadFile(chartYAML)
	write(t, chartYAML, strings.Replace(string(data), `">=0.1.0 <1.0.0"`, `"~9.0.0"`, 1))
	_, err = Render(Request{Kind: tfjob.New(), ChartDir: dir, Values: map[string]any{"name": "team-job"}})
	if exit.Code(err) != exit.Usage || !strings.Contains(fmtErr(err), "needs easyai-lib ~9.0.0") {
		t.Errorf("error %v, want a usage error about the easyai-lib version", err)
	}
	// Vendored, it is used as it is.
	copyDir(t, "../../charts/easyai-lib", filepath.Join(dir, "charts", "easyai-lib"))
	libChart := filepath.Join(dir, "charts", "easyai-lib", "Chart.yaml")
	data, _ = os.ReadFile(libChart)
	write(t, libChart, strings.Replace(string(data), "version: 0.1.0", "version: 9.0.1", 1))
	if _, err := Render(Request{Kind: tfjob.New(), ChartDir: dir, Values: map[string]any{"name": "team-job"}}); err != nil {
		t.Errorf("with easyai-lib vendored: %v", err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMergedValues(t *testing.T) {
	vals, err := MergedValues(Request{Kind: pytorchjob.New(), Values: map[string]any{"name": "m", "image": "i", "roles": map[string]any{"worker": map[string]any{"replicas": 3}}}, Set: []string{"nprocPerNode=4"}})
	if err != nil {
		t.Fatal(err)
	}
	if vals["name"] != "m" || vals["nprocPerNode"] != int64(4) || vals["imagePullPolicy"] != "IfNotPresent" {
		t.Errorf("values %v: want the flags', --set's and the chart's defaults", vals)
	}
	if got := nested(t, vals, "roles", "worker", "replicas"); got != float64(3) {
		t.Errorf("roles.worker.replicas %v (%T), want 3", got, got)
	}
	if got := nested(t, vals, "roles", "master", "replicas"); got != float64(1) {
		t.Errorf("roles.master.replicas %v, want the default 1", got)
	}
	for _, k := range []string{LibraryName, "global"} {
		if _, ok := vals[k]; ok {
			t.Errorf("%s: %v, want no empty tables", k, vals[k])
		}
	}
	if _, ok := vals["elastic"].(map[string]any)["minReplicas"]; ok {
		t.Errorf("elastic %v: want no nulls", vals["elastic"])
	}
	if _, err := yaml.Marshal(vals); err != nil {
		t.Error(err)
	}
}

// TestReadValueFiles: each -f file is read once, bounded; a missing or
// endless one is a usage error naming it.
func TestReadValueFiles(t *testing.T) {
	files, err := ReadValueFiles(t.Context(), strings.NewReader("name: from-stdin\n"), []string{"-"})
	if err != nil || len(files) != 1 || files[0].Name != "-" || string(files[0].Data) != "name: from-stdin\n" {
		t.Fatalf("stdin: %+v, %v", files, err)
	}
	for path, want := range map[string]string{
		filepath.Join(t.TempDir(), "nope.yaml"): "no such file",
		"/dev/zero":                             "larger than 4 MiB",
	} {
		_, err := ReadValueFiles(t.Context(), nil, []string{path})
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "-f "+path) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want exit 2 naming -f %s and %q", path, err, path, want)
		}
	}
}

// TestOriginOf: the last source that sets a value is where it came from,
// as the merge takes it: --set over the flags over the files, later files
// over earlier ones.
func TestOriginOf(t *testing.T) {
	req := Request{
		Kind: tfjob.New(),
		ValueFiles: []ValueFile{
			{Name: "a.yaml", Data: []byte("name: a\nimage: a\nenv: [{name: X}]\n")},
			{Name: "b.yaml", Data: []byte("image: b\nroles: {worker: {replicas: 2}}\n")},
		},
		Values: map[string]any{"workingDir": "/w"},
		Set:    []string{"name=s", "roles.worker.image=x"},
	}
	for path, want := range map[string]Origin{
		"name":                  {Set: "name=s"},
		"roles.worker.image":    {Set: "roles.worker.image=x"},
		"roles.worker.replicas": {File: "b.yaml"},
		"image":                 {File: "b.yaml"},
		"env":                   {File: "a.yaml"},
		"workingDir":            {Flags: true},
		"shmSize":               {},
	} {
		if got := OriginOf(req, path); got != want {
			t.Errorf("OriginOf(%s) = %+v, want %+v", path, got, want)
		}
	}
}

// TestChartChecksNameTheValueNotTheTemplate: a chart's check that fails is
// a ValueError with the value's path, without Helm's "execution error at
// (chart/templates/file.yaml:3:4)".
func TestChartChecksNameTheValueNotTheTemplate(t *testing.T) {
	_, err := Render(Request{Kind: tfjob.New(), Values: map[string]any{"name": "j", "image": "i"}, Set: []string{"roles.worker.replicas=two"}})
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Path != "roles.worker.replicas" || exit.Code(err) != exit.Usage {
		t.Fatalf("error %v, want a usage ValueError of roles.worker.replicas", err)
	}
	if strings.Contains(err.Error(), "execution error") || strings.Contains(err.Error(), "templates/") {
		t.Errorf("the message names a template: %v", err)
	}
}
