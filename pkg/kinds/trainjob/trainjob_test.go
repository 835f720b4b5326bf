package trainjob_test

import (
	"context"
	"errors"
	"io/fs"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/jaxjob"
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
	"github.com/easyai-dev/easyai/pkg/kinds/pytorchjob"
	"github.com/easyai-dev/easyai/pkg/kinds/trainjob"
	"github.com/easyai-dev/easyai/pkg/kinds/xgboostjob"
	"github.com/easyai-dev/easyai/pkg/render"
)

var (
	_ kinds.Kind            = trainjob.New()
	_ kinds.BackendChooser  = trainjob.New()
	_ kinds.SubmitDoc       = trainjob.New()
	_ kinds.Suspender       = trainjob.New()
	_ kinds.Detailer        = trainjob.New()
	_ kinds.NoPriorityClass = trainjob.New()
	_ kinds.Kind            = trainjob.OnTrainer{}
)

func runtimeValue(kind, name string) map[string]any {
	return map[string]any{"name": name, "kind": kind}
}

// TestSubmitFlags: each flag of "easyai submit trainjob" becomes its value,
// and only flags the user set do.
func TestSubmitFlags(t *testing.T) {
	cluster, namespaced := trainjob.ClusterRuntimeKind, trainjob.RuntimeKind
	for _, tc := range []struct {
		args []string
		want map[string]any
	}{
		{nil, map[string]any{}},
		{[]string{"--runtime", "torch-distributed"}, map[string]any{"runtime": runtimeValue(cluster, "torch-distributed")}},
		{[]string{"--runtime", "clustertrainingruntime/torch-distributed"}, map[string]any{"runtime": runtimeValue(cluster, "torch-distributed")}},
		{[]string{"--runtime", "ctr/torch-distributed"}, map[string]any{"runtime": runtimeValue(cluster, "torch-distributed")}},
		{[]string{"--runtime", "trainingruntime/my-torch"}, map[string]any{"runtime": runtimeValue(namespaced, "my-torch")}},
		{[]string{"--runtime", "TrainingRuntime/my-torch"}, map[string]any{"runtime": runtimeValue(namespaced, "my-torch")}},
		{[]string{"--runtime", "tr/my.torch"}, map[string]any{"runtime": runtimeValue(namespaced, "my.torch")}},
		// The MPI runtimes run the trainer's container in their launcher too.
		{[]string{"--runtime", "deepspeed-distributed"}, map[string]any{"runtime": runtimeValue(cluster, "deepspeed-distributed"),
			"podPatchJobs": []any{"node", "launcher"}}},
		{[]string{"--runtime", "clustertrainingruntime/mlx-distributed"}, map[string]any{"runtime": runtimeValue(cluster, "mlx-distributed"),
			"podPatchJobs": []any{"node", "launcher"}}},
		{[]string{"--workers", "3"}, map[string]any{"roles": map[string]any{"node": map[string]any{"replicas": 3}}}},
		{[]string{"--workers", "2147483647"}, map[string]any{"roles": map[string]any{"node": map[string]any{"replicas": 2147483647}}}},
		{[]string{"--nproc-per-node", "4"}, map[string]any{"nprocPerNode": 4}},
		{[]string{"--model", "hf://meta-llama/Llama-3.2-1B-Instruct"}, map[string]any{"initializer": map[string]any{
			"model": map[string]any{"storageUri": "hf://meta-llama/Llama-3.2-1B-Instruct"}}}},
		{[]string{"--dataset", "s3://bucket/alpaca", "--model", "hf://org/model", "--initializer-secret", "hf-token"}, map[string]any{"initializer": map[string]any{
			"dataset": map[string]any{"storageUri": "s3://bucket/alpaca", "secret": "hf-token"},
			"model":   map[string]any{"storageUri": "hf://org/model", "secret": "hf-token"}}}},
		{[]string{"--dataset", "hf://tatsu-lab/alpaca", "--initializer-secret", "hf-token"}, map[string]any{"initializer": map[string]any{
			"dataset": map[string]any{"storageUri": "hf://tatsu-lab/alpaca", "secret": "hf-token"}}}},
		{[]string{"--suspend"}, map[string]any{"suspend": true}},
		{[]string{"--suspend=false"}, map[string]any{"suspend": false}},
	} {
		got, _, err := kindstest.SubmitValues(t, trainjob.New(), tc.args...)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: values %v, %v; want %v", tc.args, got, err, tc.want)
		}
	}
}

func TestBadFlagsAreUsageErrorsNamingTheFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--runtime", "runtime/torch"}, "--runtime"},
		{[]string{"--runtime", "a/b/c"}, "--runtime"},
		{[]string{"--runtime", "trainingruntime/"}, "--runtime"},
		{[]string{"--runtime", "trainingruntime/a/b"}, "--runtime"},
		{[]string{"--runtime", "Torch"}, "--runtime"},
		{[]string{"--runtime", "torch distributed"}, "--runtime"},
		{[]string{"--runtime", strings.Repeat("a", 254)}, "--runtime"},
		{[]string{"--workers", "0"}, "--workers"},
		{[]string{"--workers", "-1"}, "--workers"},
		{[]string{"--workers", "2147483648"}, "--workers"},
		{[]string{"--nproc-per-node", "0"}, "--nproc-per-node"},
		{[]string{"--nproc-per-node", "2147483648"}, "--nproc-per-node"},
		{[]string{"--dataset", "http://example.com/data"}, "--dataset"},
		{[]string{"--dataset", "hf://"}, "--dataset"},
		{[]string{"--dataset", "hf://org/a b"}, "--dataset"},
		{[]string{"--model", "/models/llama"}, "--model"},
		{[]string{"--model", "gs://bucket/model"}, "--model"},
		{[]string{"--initializer-secret", "hf-token"}, "--initializer-secret"},
		{[]string{"--model", "hf://org/m", "--initializer-secret", "HF_Token"}, "--initializer-secret"},
		{[]string{"--retry", "2"}, "--retry"},
		// A flag left at its default is still set by the user.
		{[]string{"--retry", "0"}, "--retry"},
	} {
		_, _, err := kindstest.SubmitValues(t, trainjob.New(), tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%q: %v (exit %d), want a usage error naming %s", tc.args, err, exit.Code(err), tc.flag)
		}
	}
}

func TestParseRuntime(t *testing.T) {
	for _, tc := range []struct{ arg, kind, name string }{
		{"torch-distributed", trainjob.ClusterRuntimeKind, "torch-distributed"},
		{"CTR/torch-distributed", trainjob.ClusterRuntimeKind, "torch-distributed"},
		{"trainingruntime/mine", trainjob.RuntimeKind, "mine"},
	} {
		kind, name, err := trainjob.ParseRuntime(tc.arg)
		if err != nil || kind != tc.kind || name != tc.name {
			t.Errorf("ParseRuntime(%q) = %q, %q, %v; want %q, %q", tc.arg, kind, name, err, tc.kind, tc.name)
		}
	}
	for _, arg := range []string{"", "/x", "x/", "trainingruntimes/x", "tr/X", "tr/-x"} {
		if _, _, err := trainjob.ParseRuntime(arg); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--runtime") {
			t.Errorf("ParseRuntime(%q): %v, want a usage error naming --runtime", arg, err)
		}
	}
}

// TestCheckFlags: every common flag a TrainJob cannot honour exits 2 naming
// it, and the others pass.
func TestCheckFlags(t *testing.T) {
	for _, flag := range []string{"retry", "ttl-after-finished", "clean-pod-policy", "working-dir", "image-pull-policy", "priority"} {
		err := trainjob.CheckFlags(func(f string) bool { return f == flag })
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--"+flag+":") {
			t.Errorf("--%s: %v (exit %d), want a usage error naming it", flag, err, exit.Code(err))
		}
	}
	for _, flag := range []string{"gang", "queue", "max-duration", "data", "gpus", "env", "node-selector"} {
		if err := trainjob.CheckFlags(func(f string) bool { return f == flag }); err != nil {
			t.Errorf("--%s: %v; a TrainJob honours it", flag, err)
		}
	}
	if err := trainjob.CheckFlags(func(string) bool { return false }); err != nil {
		t.Errorf("no flag set: %v", err)
	}
}

func chartName(t *testing.T, chart fs.FS) string {
	t.Helper()
	data, err := fs.ReadFile(chart, "Chart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Name string }
	if err := yaml.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	return c.Name
}

// TestKindsOnARuntime: deepspeed and mlx are TrainJobs whose chart names
// their runtime (and its launcher): --runtime only overrides the runtime.
func TestKindsOnARuntime(t *testing.T) {
	for _, tc := range []struct {
		kind    trainjob.Kind
		name    string
		runtime string
	}{
		{trainjob.New(), "trainjob", ""},
		{trainjob.DeepSpeed(), "deepspeed", "deepspeed-distributed"},
		{trainjob.MLX(), "mlx", "mlx-distributed"},
	} {
		k := tc.kind
		if k.Name() != tc.name || chartName(t, k.Chart()) != tc.name {
			t.Errorf("%s: chart %s", k.Name(), chartName(t, k.Chart()))
		}
		if gvk := k.GroupVersionKind(); gvk.Group != "trainer.kubeflow.org" || gvk.Version != "v1alpha1" || gvk.Kind != "TrainJob" {
			t.Errorf("%s: GroupVersionKind %v", tc.name, gvk)
		}
		if r := k.Resource(); r != trainjob.GroupVersion.WithResource("trainjobs") {
			t.Errorf("%s: Resource %v", tc.name, r)
		}
		if sel := k.PodSelector("llm"); sel != "jobset.sigs.k8s.io/jobset-name=llm" {
			t.Errorf("%s: PodSelector %q", tc.name, sel)
		}
		if !strings.Contains(k.SubmitExample(), "easyai submit "+tc.name) {
			t.Errorf("%s: examples do not submit it:\n%s", tc.name, k.SubmitExample())
		}
		v, flags, err := kindstest.SubmitValues(t, k, "--runtime", "deepspeed-distributed", "--workers", "2")
		if err != nil {
			t.Fatal(err)
		}
		if tc.runtime == "" {
			if !strings.Contains(k.SubmitLong(), "--runtime names") {
				t.Errorf("%s: long help does not say --runtime names the runtime", tc.name)
			}
			continue
		}
		if !strings.Contains(k.SubmitLong(), tc.runtime) || !strings.Contains(flags.Lookup("runtime").Usage, "(default "+tc.runtime+")") {
			t.Errorf("%s: help does not name the default runtime %s", tc.name, tc.runtime)
		}
		if _, ok := v["podPatchJobs"]; ok {
			t.Errorf("%s: values %v set podPatchJobs, which its chart holds", tc.name, v)
		}
		if w := flags.Lookup("workers").Usage; !strings.Contains(w, "numNodes") {
			t.Errorf("%s: --workers help %q", tc.name, w)
		}
	}
	if a := trainjob.DeepSpeed().Aliases(); !slices.Contains(a, "ds") {
		t.Errorf("deepspeed aliases %v", a)
	}
	if a := trainjob.New().Aliases(); !slices.Contains(a, "tj") || !slices.Contains(a, "trainjobs") {
		t.Errorf("trainjob aliases %v", a)
	}
}

// TestFlagsRenderTheTrainJob: the values of the flags render a TrainJob
// holding them where the trainer reads them.
func TestFlagsRenderTheTrainJob(t *testing.T) {
	values, _, err := kindstest.SubmitValues(t, trainjob.New(), "--runtime", "trainingruntime/my-torch", "--workers", "3",
		"--nproc-per-node", "2", "--dataset", "hf://tatsu-lab/alpaca", "--model", "s3://models/llama", "--initializer-secret", "hf-token", "--suspend")
	if err != nil {
		t.Fatal(err)
	}
	values["name"], values["image"], values["command"] = "tj", "example.com/train:1", []string{"torchrun", "train.py"}
	objs, err := render.Render(render.Request{Kind: trainjob.New(), Values: values})
	if err != nil {
		t.Fatal(err)
	}
	typed, err := trainjob.New().Decode(objs[0])
	if err != nil {
		t.Fatal(err)
	}
	j := typed.(*trainjob.TrainJob)
	if j.Name != "tj" || j.Spec.RuntimeRef.Name != "my-torch" || j.Spec.RuntimeRef.Kind == nil || *j.Spec.RuntimeRef.Kind != trainjob.RuntimeKind {
		t.Errorf("runtimeRef %+v of %s", j.Spec.RuntimeRef, j.Name)
	}
	if tr := j.Spec.Trainer; tr == nil || trainjob.Nodes(j) != 3 || tr.NumProcPerNode == nil || *tr.NumProcPerNode != 2 || *tr.Image != "example.com/train:1" {
		t.Errorf("trainer %+v", tr)
	}
	in := j.Spec.Initializer
	if in == nil || in.Dataset == nil || in.Model == nil {
		t.Fatalf("initializer %+v", in)
	}
	for _, src := range []struct {
		s   *trainjob.Source
		uri string
	}{{in.Dataset, "hf://tatsu-lab/alpaca"}, {in.Model, "s3://models/llama"}} {
		if src.s.StorageURI == nil || *src.s.StorageURI != src.uri || src.s.SecretRef == nil || src.s.SecretRef.Name != "hf-token" {
			t.Errorf("initializer source %+v, want %s with the Secret hf-token", src.s, src.uri)
		}
	}
	if j.Spec.Suspend == nil || !*j.Spec.Suspend {
		t.Errorf("suspend %v", j.Spec.Suspend)
	}
}

// A decoded TrainJob with a misspelt field is an error naming it.
func TestDecodeIsStrict(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
		"metadata": map[string]any{"name": "tj"},
		"spec":     map[string]any{"runtimeRef": map[string]any{"name": "torch-distributed"}, "trainer": map[string]any{"numNode": int64(2)}},
	}}
	if _, err := trainjob.New().Decode(obj); err == nil || !strings.Contains(err.Error(), "numNode") {
		t.Errorf("a misspelt field: %v", err)
	}
}

// fakeCluster is a BackendProbe's view of a cluster: which resources it
// serves and which runtimes it has (or what reading one fails with).
type fakeCluster struct {
	t        *testing.T
	served   map[string]bool // by resource
	probeErr error           // what asking whether a resource is served fails with
	runtimes map[string]*unstructured.Unstructured
	getErr   error
	gets     []string // "resource namespace/name" of each Get
}

func (c *fakeCluster) probe() kinds.BackendProbe {
	return kinds.BackendProbe{
		Namespace: "team-a",
		Served: func(_ context.Context, gvr schema.GroupVersionResource) (bool, error) {
			return c.served[gvr.Resource], c.probeErr
		},
		Get: func(_ context.Context, gvr schema.GroupVersionResource, ns, name string) (*unstructured.Unstructured, error) {
			c.gets = append(c.gets, gvr.Resource+" "+ns+"/"+name)
			if gvr.Group != trainjob.GroupVersion.Group {
				c.t.Errorf("read %v %s", gvr, name)
			}
			if c.getErr != nil {
				return nil, c.getErr
			}
			if rt, ok := c.runtimes[name]; ok {
				return rt, nil
			}
			return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
		},
	}
}

// clusterRuntime is a ClusterTrainingRuntime, with the podGroupPolicy given
// (nil: none).
func clusterRuntime(name string, podGroupPolicy map[string]any) *unstructured.Unstructured {
	spec := map[string]any{"mlPolicy": map[string]any{"numNodes": int64(1)}}
	if podGroupPolicy != nil {
		spec["podGroupPolicy"] = podGroupPolicy
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
}

// submitFlags parses args as "easyai submit KIND" would: the common flags
// ChooseBackend reads and the kind's own.
func submitFlags(t *testing.T, k kinds.Kind, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet(k.Name(), pflag.ContinueOnError)
	fs.Int("workers", 1, "")
	fs.Bool("gang", false, "")
	for _, f := range []string{"retry", "ttl-after-finished"} {
		fs.Int(f, 0, "")
	}
	for _, f := range []string{"working-dir", "image-pull-policy", "priority", "clean-pod-policy", "queue"} {
		fs.String(f, "", "")
	}
	k.SubmitFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestChooseBackend: --backend, else the cluster, else the configuration,
// decides whether a pytorch job is a PyTorchJob or a TrainJob.
func TestChooseBackend(t *testing.T) {
	torch := clusterRuntime("torch-distributed", nil)
	volcanoTorch := clusterRuntime("torch-distributed", map[string]any{"volcano": map[string]any{}})
	both := map[string]bool{"pytorchjobs": true, "trainjobs": true}
	for _, tc := range []struct {
		name      string
		args      []string
		served    map[string]bool
		runtimes  map[string]*unstructured.Unstructured
		getErr    error
		probeErr  error
		offline   bool
		preferred string // the configuration's kubeflow-backend
		trainer   bool   // a TrainJob, not a PyTorchJob
		note      []string
		usage     string // a usage error naming this
		err       string // another error
	}{
		{name: "only the training-operator", served: map[string]bool{"pytorchjobs": true}},
		{name: "only the trainer", served: map[string]bool{"trainjobs": true}, runtimes: map[string]*unstructured.Unstructured{"torch-distributed": torch},
			trainer: true, note: []string{"Backend: trainer", "no training-operator", "torch-distributed"}},
		{name: "neither: the training-operator, whose absence submit reports", served: map[string]bool{}},
		{name: "both, no preference", served: both, trainer: false, note: []string{"Backend: training-operator", "kubeflow-backend"}},
		{name: "both, the training-operator preferred", served: both, preferred: "training-operator", note: []string{"Backend: training-operator"}},
		{name: "both, the trainer preferred", served: both, preferred: "trainer", runtimes: map[string]*unstructured.Unstructured{"torch-distributed": torch},
			trainer: true, note: []string{"Backend: trainer", "kubeflow-backend"}},
		{name: "offline, no preference", offline: true},
		{name: "offline, the trainer preferred", offline: true, preferred: "trainer", trainer: true},
		{name: "offline with --gang on the trainer", args: []string{"--gang"}, offline: true, preferred: "trainer", trainer: true,
			note: []string{"Gang: a client dry run cannot check", "torch-distributed"}},
		{name: "--backend trainer where only the training-operator is", args: []string{"--backend", "trainer"}, served: map[string]bool{"pytorchjobs": true},
			runtimes: map[string]*unstructured.Unstructured{"torch-distributed": torch}, trainer: true},
		{name: "--backend trainer offline", args: []string{"--backend", "trainer"}, offline: true, trainer: true},
		{name: "--backend training-operator where only the trainer is", args: []string{"--backend", "training-operator"}, served: map[string]bool{"trainjobs": true}},
		{name: "--backend training-operator over the preference", args: []string{"--backend", "training-operator"}, served: both, preferred: "trainer"},
		{name: "--backend auto", args: []string{"--backend", "auto"}, served: map[string]bool{"pytorchjobs": true}},
		{name: "--backend bogus", args: []string{"--backend", "bogus"}, served: both, usage: "--backend"},
		{name: "--backend trainer --elastic-min", args: []string{"--backend", "trainer", "--elastic-min", "2", "--elastic-max", "4"}, served: both,
			runtimes: map[string]*unstructured.Unstructured{"torch-distributed": torch}, usage: "--elastic-min"},
		{name: "--backend trainer --retry", args: []string{"--backend", "trainer", "--retry", "3"}, served: both, usage: "--retry"},
		{name: "--backend trainer --nproc-per-node auto", args: []string{"--backend", "trainer", "--nproc-per-node", "auto"}, served: both, usage: "--nproc-per-node"},
		{name: "--backend trainer --priority", args: []string{"--backend", "trainer", "--priority", "high"}, served: both, usage: "--priority"},
		{name: "--retry with the training-operator", args: []string{"--retry", "3", "--elastic-min", "2", "--elastic-max", "4"}, served: both,
			note: []string{"Backend: training-operator"}},
		{name: "the trainer without its runtime", served: map[string]bool{"trainjobs": true}, usage: "torch-distributed"},
		{name: "the runtime may not be read", served: map[string]bool{"trainjobs": true}, getErr: apierrors.NewForbidden(trainjob.ClusterRuntimes.GroupResource(), "torch-distributed", errors.New("no")),
			trainer: true, note: []string{"Backend: trainer", "Runtime: not checked"}},
		{name: "the runtime may not be read, with --gang", args: []string{"--gang"}, served: map[string]bool{"trainjobs": true},
			getErr:  apierrors.NewForbidden(trainjob.ClusterRuntimes.GroupResource(), "torch-distributed", errors.New("no")),
			trainer: true, note: []string{"Runtime: not checked", "--gang works only if it has a podGroupPolicy"}},
		{name: "asking the cluster fails", served: both, probeErr: errors.New("discovery failed"), err: "discovery failed"},
		{name: "asking the cluster is not needed with --backend", args: []string{"--backend", "training-operator"}, probeErr: errors.New("discovery failed")},
		{name: "reading the runtime fails", served: map[string]bool{"trainjobs": true}, getErr: errors.New("connection refused"), err: "connection refused"},
		{name: "--gang on a runtime with a volcano podGroupPolicy", args: []string{"--gang"}, served: map[string]bool{"trainjobs": true},
			runtimes: map[string]*unstructured.Unstructured{"torch-distributed": volcanoTorch}, trainer: true, note: []string{"Gang:", "podGroupPolicy: volcano"}},
		{name: "--gang on a runtime without a podGroupPolicy", args: []string{"--gang"}, served: map[string]bool{"trainjobs": true},
			runtimes: map[string]*unstructured.Unstructured{"torch-distributed": torch}, usage: "--gang"},
		{name: "--gang with the training-operator reads no runtime", args: []string{"--gang"}, served: map[string]bool{"pytorchjobs": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeCluster{t: t, served: tc.served, runtimes: tc.runtimes, getErr: tc.getErr, probeErr: tc.probeErr}
			probe := c.probe()
			if tc.offline {
				probe = kinds.BackendProbe{Offline: true}
			}
			probe.KubeflowBackend = tc.preferred
			k, note, err := pytorchjob.New().SubmitBackend(context.Background(), submitFlags(t, pytorchjob.New(), tc.args...), probe)
			switch {
			case tc.usage != "":
				if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.usage) {
					t.Errorf("%v (exit %d), want a usage error naming %s", err, exit.Code(err), tc.usage)
				}
				return
			case tc.err != "":
				if err == nil || exit.Code(err) != exit.Error || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%v (exit %d), want an error with %q", err, exit.Code(err), tc.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if k.Name() != "pytorch" {
				t.Errorf("rendered as %s: the job must be labelled as a pytorch job", k.Name())
			}
			wantGVK := pytorchjob.New().GroupVersionKind()
			if tc.trainer {
				wantGVK = trainjob.New().GroupVersionKind()
				on, ok := k.(trainjob.OnTrainer)
				if !ok || on.Runtime != "torch-distributed" || chartName(t, k.Chart()) != "pytorchjob-trainer" {
					t.Errorf("kind %#v, want a TrainJob on torch-distributed", k)
				}
			}
			if k.GroupVersionKind() != wantGVK {
				t.Errorf("kind %v, want %v", k.GroupVersionKind(), wantGVK)
			}
			for _, want := range tc.note {
				if !strings.Contains(note, want) {
					t.Errorf("note %q, want %q in it", note, want)
				}
			}
			if len(tc.note) == 0 && note != "" {
				t.Errorf("note %q, want none", note)
			}
			if !tc.trainer && len(c.gets) > 0 {
				t.Errorf("a PyTorchJob read runtimes: %v", c.gets)
			}
		})
	}
}

// The trainer's kind of each training-operator kind runs on the runtime of
// its framework, and the runtime read is that one.
func TestChooseBackendRuntimes(t *testing.T) {
	for _, tc := range []struct {
		kind           kinds.Kind
		runtime, chart string
	}{
		{pytorchjob.New(), "torch-distributed", "pytorchjob-trainer"},
		{jaxjob.New(), "jax-distributed", "jaxjob-trainer"},
		{xgboostjob.New(), "xgboost-distributed", "xgboostjob-trainer"},
	} {
		c := &fakeCluster{t: t, served: map[string]bool{"trainjobs": true}, runtimes: map[string]*unstructured.Unstructured{tc.runtime: clusterRuntime(tc.runtime, nil)}}
		k, note, err := tc.kind.(kinds.BackendChooser).SubmitBackend(context.Background(), submitFlags(t, tc.kind), c.probe())
		if err != nil {
			t.Fatalf("%s: %v", tc.kind.Name(), err)
		}
		on, ok := k.(trainjob.OnTrainer)
		if !ok || on.Name() != tc.kind.Name() || on.Runtime != tc.runtime || chartName(t, on.Chart()) != tc.chart {
			t.Errorf("%s: kind %#v", tc.kind.Name(), k)
		}
		if want := []string{"clustertrainingruntimes /" + tc.runtime}; !reflect.DeepEqual(c.gets, want) {
			t.Errorf("%s: read %v, want %v", tc.kind.Name(), c.gets, want)
		}
		if !strings.Contains(note, tc.runtime) {
			t.Errorf("%s: note %q does not name %s", tc.kind.Name(), note, tc.runtime)
		}
	}
}

// TestSubmitBackendReadsTheRuntime: submit trainjob reads the runtime
// --runtime names (a TrainingRuntime in the job's namespace), deepspeed its
// own unless --runtime names another, and a job file's runtime is left to
// the trainer's webhook.
func TestSubmitBackendReadsTheRuntime(t *testing.T) {
	runtimes := map[string]*unstructured.Unstructured{
		"torch-distributed":     clusterRuntime("torch-distributed", nil),
		"deepspeed-distributed": clusterRuntime("deepspeed-distributed", map[string]any{"coscheduling": map[string]any{"scheduleTimeoutSeconds": int64(60)}}),
		"my-torch":              clusterRuntime("my-torch", map[string]any{"volcano": map[string]any{}, "coscheduling": map[string]any{}}),
	}
	for _, tc := range []struct {
		kind  trainjob.Kind
		args  []string
		gets  []string
		note  string
		usage string
	}{
		{kind: trainjob.New()},
		{kind: trainjob.New(), args: []string{"--runtime", "torch-distributed"}, gets: []string{"clustertrainingruntimes /torch-distributed"}},
		{kind: trainjob.New(), args: []string{"--runtime", "trainingruntime/my-torch", "--gang"}, gets: []string{"trainingruntimes team-a/my-torch"},
			note: "podGroupPolicy: coscheduling,volcano"},
		{kind: trainjob.New(), args: []string{"--runtime", "trainingruntime/missing"}, gets: []string{"trainingruntimes team-a/missing"},
			usage: `namespace team-a has no TrainingRuntime`},
		{kind: trainjob.New(), args: []string{"--runtime", "missing"}, gets: []string{"clustertrainingruntimes /missing"},
			usage: `this cluster has no ClusterTrainingRuntime`},
		{kind: trainjob.New(), args: []string{"--runtime", "torch-distributed", "--gang"}, gets: []string{"clustertrainingruntimes /torch-distributed"},
			usage: "--gang"},
		{kind: trainjob.New(), args: []string{"--runtime", "bad/x"}, usage: "--runtime"},
		{kind: trainjob.DeepSpeed(), args: []string{"--gang"}, gets: []string{"clustertrainingruntimes /deepspeed-distributed"}, note: "podGroupPolicy: coscheduling"},
		{kind: trainjob.DeepSpeed(), args: []string{"--runtime", "torch-distributed"}, gets: []string{"clustertrainingruntimes /torch-distributed"}},
		{kind: trainjob.MLX(), gets: []string{"clustertrainingruntimes /mlx-distributed"}, usage: `the runtime "mlx-distributed"`},
	} {
		c := &fakeCluster{t: t, runtimes: runtimes}
		k, note, err := tc.kind.SubmitBackend(context.Background(), submitFlags(t, tc.kind, tc.args...), c.probe())
		if !reflect.DeepEqual(c.gets, tc.gets) {
			t.Errorf("%s %q: read %v, want %v", tc.kind.Name(), tc.args, c.gets, tc.gets)
		}
		if tc.usage != "" {
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.usage) {
				t.Errorf("%s %q: %v, want a usage error with %q", tc.kind.Name(), tc.args, err, tc.usage)
			}
			continue
		}
		if err != nil || k.Name() != tc.kind.Name() || !strings.Contains(note, tc.note) || (tc.note == "" && note != "") {
			t.Errorf("%s %q: %v, note %q, %v; want note %q", tc.kind.Name(), tc.args, k, note, err, tc.note)
		}
	}
	// A client dry run reads nothing.
	k, note, err := trainjob.New().SubmitBackend(context.Background(), submitFlags(t, trainjob.New(), "--runtime", "x"), kinds.BackendProbe{Offline: true})
	if err != nil || k.Name() != "trainjob" || note != "" {
		t.Errorf("offline: %v, %q, %v", k, note, err)
	}
}

func TestGangPlugin(t *testing.T) {
	for _, tc := range []struct {
		policy map[string]any
		want   string
	}{
		{nil, ""},
		{map[string]any{}, "yes"},
		{map[string]any{"volcano": map[string]any{}}, "volcano"},
		{map[string]any{"volcano": map[string]any{}, "coscheduling": map[string]any{}}, "coscheduling,volcano"},
	} {
		if got := trainjob.GangPlugin(clusterRuntime("r", tc.policy)); got != tc.want {
			t.Errorf("podGroupPolicy %v: %q, want %q", tc.policy, got, tc.want)
		}
	}
	// null, or not a map: no policy easyai can read.
	for _, policy := range []any{nil, "volcano"} {
		rt := clusterRuntime("r", nil)
		rt.Object["spec"].(map[string]any)["podGroupPolicy"] = policy
		if got := trainjob.GangPlugin(rt); got != "" {
			t.Errorf("podGroupPolicy %#v: %q", policy, got)
		}
	}
}
