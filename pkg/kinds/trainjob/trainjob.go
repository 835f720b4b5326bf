package trainjob

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/charts"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// The labels the JobSet controller puts on the pods of a TrainJob's JobSet
// (named as the TrainJob), and the Job controller's index of a pod.
const (
	JobSetNameLabel     = "jobset.sigs.k8s.io/jobset-name"
	ReplicatedJobLabel  = "jobset.sigs.k8s.io/replicatedjob-name"
	JobIndexLabel       = "jobset.sigs.k8s.io/job-index"
	CompletionIndexAnno = "batch.kubernetes.io/job-completion-index"
	// FrameworkLabel is the label of a runtime naming its framework.
	FrameworkLabel = "trainer.kubeflow.org/framework"
)

// Runtimes are the API resources of training runtimes.
var (
	ClusterRuntimes = GroupVersion.WithResource("clustertrainingruntimes")
	Runtimes        = GroupVersion.WithResource("trainingruntimes")
)

// Kind is the TrainJob kind, or, named otherwise, one of the kinds that are
// TrainJobs on a given runtime (deepspeed, mlx); use New, DeepSpeed or MLX.
type Kind struct {
	name    string
	aliases []string
	chart   string
	// runtime is the runtime the chart defaults to ("": --runtime is
	// required).
	runtime string
	// example is the examples of its submit command.
	example string
}

// New returns the TrainJob kind.
func New() Kind {
	return Kind{name: "trainjob", aliases: []string{"trainjobs", "tj"}, chart: "trainjob", example: `  # 3 nodes of torch-distributed, 4 GPUs and 4 processes each
  easyai submit trainjob --runtime torch-distributed --workers 3 --gpus 4 --nproc-per-node 4 --image pytorch/pytorch:2.4 -- torchrun train.py
  # fetch a model and a dataset first, with the credentials of a Secret
  easyai submit trainjob --runtime torchtune-llama3.2-1b --dataset hf://tatsu-lab/alpaca --model hf://meta-llama/Llama-3.2-1B-Instruct --initializer-secret hf-token --image my/tune:1 -- tune run
  # a TrainingRuntime of the namespace; created suspended
  easyai submit trainjob --runtime trainingruntime/my-torch --suspend --image my/img:1 -- python train.py`}
}

// DeepSpeed is "easyai submit deepspeed": a TrainJob on deepspeed-distributed.
func DeepSpeed() Kind {
	return Kind{name: "deepspeed", aliases: []string{"ds"}, chart: "deepspeed", runtime: "deepspeed-distributed", example: `  # 2 nodes with 8 GPUs each; the launcher runs the command over MPI
  easyai submit deepspeed --workers 2 --gpus 8 --image ghcr.io/kubeflow/trainer/deepspeed-runtime -- deepspeed train.py`}
}

// MLX is "easyai submit mlx": a TrainJob on mlx-distributed.
func MLX() Kind {
	return Kind{name: "mlx", chart: "mlx", runtime: "mlx-distributed",
		example: `  easyai submit mlx --workers 2 --image ghcr.io/kubeflow/trainer/mlx-runtime -- python3 train.py`}
}

func (k Kind) Name() string      { return k.name }
func (k Kind) Aliases() []string { return k.aliases }
func (k Kind) Chart() fs.FS      { return charts.Get(k.chart) }
func (Kind) Operator() string {
	return "Kubeflow Trainer v2 (its trainer-controller-manager, with the JobSet controller)"
}

// NoPriorityClass implements kinds.NoPriorityClass.
func (Kind) NoPriorityClass() {}

// GroupVersionKind of TrainJobs.
func (Kind) GroupVersionKind() schema.GroupVersionKind { return GroupVersion.WithKind(KindName) }

// KueueIntegration is Kueue's integration of TrainJobs
// (kinds.KueueIntegration).
func (Kind) KueueIntegration() string { return GroupVersion.Group + "/trainjob" }

// Resource of TrainJobs.
func (Kind) Resource() schema.GroupVersionResource { return GroupVersion.WithResource(Plural) }

// PodSelector selects the pods of the TrainJob's JobSet, which the trainer
// names as the TrainJob: its nodes and its initializers.
func (Kind) PodSelector(jobName string) string { return JobSetNameLabel + "=" + jobName }

// Decode strictly decodes a rendered TrainJob.
func (Kind) Decode(obj *unstructured.Unstructured) (runtime.Object, error) {
	return kinds.StrictDecode(obj, &TrainJob{})
}

// SubmitLong implements kinds.SubmitDoc.
func (k Kind) SubmitLong() string {
	on := "on the training runtime --runtime names (easyai runtimes lists them)"
	if k.runtime != "" {
		on = "on the ClusterTrainingRuntime " + k.runtime + " (another with --runtime)"
	}
	return fmt.Sprintf(`Submit a TrainJob of Kubeflow Trainer v2 (trainer.kubeflow.org/v1alpha1)
%s. The trainer turns it into a JobSet whose Jobs make
the pods: the nodes (replica node-N), and where the runtime has them a
launcher (launcher-0) and initializers (dataset-initializer-0,
model-initializer-0). "easyai logs", "exec" and "attach" take those names.

The flags map onto the TrainJob: --image, the command after "--" and --env
onto spec.trainer; --workers is numNodes, --nproc-per-node numProcPerNode,
--gpus/--cpu/--memory resourcesPerNode; --dataset and --model (hf://...,
s3://...) the initializers, with --initializer-secret naming the Secret of
their credentials (never read by easyai); --suspend and --max-duration
(activeDeadlineSeconds). Node selectors, tolerations, --data, --shm-size,
image pull Secrets and labels go into one runtime patch. --gang needs a
runtime with a podGroupPolicy, which the submit checks. What a TrainJob
cannot set (--retry, --priority, --working-dir, ...) exits 2 naming the flag.
docs/trainer.md says what maps to what.`, on)
}

// SubmitExample implements kinds.SubmitDoc.
func (k Kind) SubmitExample() string { return k.example }

// unsupported are the common flags a TrainJob cannot honour.
var unsupported = []struct{ flag, why string }{
	{"retry", "the backoffLimit of its runtime's Jobs says how often a pod is retried"},
	{"ttl-after-finished", "its runtime's JobSet template decides what is kept"},
	{"clean-pod-policy", "its runtime's JobSet template decides what is kept"},
	{"working-dir", "the trainer has no working directory: cd in the command"},
	{"image-pull-policy", "its runtime's template decides it"},
	{"priority", "a runtime patch cannot set the pods' PriorityClass"},
}

// CheckFlags is a usage error naming the first flag set that a TrainJob
// cannot honour; changed tells whether the user set a flag.
func CheckFlags(changed func(string) bool) error {
	for _, u := range unsupported {
		if changed(u.flag) {
			return exit.UsageErrorf("--%s: a TrainJob cannot honour it (%s)", u.flag, u.why)
		}
	}
	return nil
}

var storageURI = regexp.MustCompile(`^(hf|s3)://[^\s]+$`)

// ParseRuntime reads --runtime: NAME or clustertrainingruntime/NAME (a
// ClusterTrainingRuntime), trainingruntime/NAME (a TrainingRuntime of the
// job's namespace).
func ParseRuntime(arg string) (kind, name string, err error) {
	kind, name = ClusterRuntimeKind, arg
	if prefix, rest, ok := strings.Cut(arg, "/"); ok {
		switch strings.ToLower(prefix) {
		case "clustertrainingruntime", "ctr":
		case "trainingruntime", "tr":
			kind = RuntimeKind
		default:
			return "", "", exit.UsageErrorf("--runtime %q: want NAME, clustertrainingruntime/NAME or trainingruntime/NAME", arg)
		}
		name = rest
	}
	if err := checkObjectName(name); err != nil {
		return "", "", exit.UsageErrorf("--runtime %q: %v", arg, err)
	}
	return kind, name, nil
}

// submitFlags are the TrainJob's own submit flags, of kind.
type submitFlags struct {
	kind                            Kind
	runtime, dataset, model, secret string
	nproc                           int
	suspend                         bool
}

// SubmitFlags adds the TrainJob's own flags.
func (k Kind) SubmitFlags(fs *pflag.FlagSet) kinds.KindValues {
	f := &submitFlags{kind: k}
	kinds.DescribeWorkers(fs, "number of nodes (spec.trainer.numNodes)")
	runtimeHelp := "training runtime: NAME (a ClusterTrainingRuntime) or trainingruntime/NAME (of the namespace); easyai runtimes lists them"
	if k.runtime != "" {
		runtimeHelp += " (default " + k.runtime + ")"
	}
	fs.StringVar(&f.runtime, "runtime", "", runtimeHelp)
	fs.IntVar(&f.nproc, "nproc-per-node", 0, "processes per node (spec.trainer.numProcPerNode; default: the runtime's)")
	fs.StringVar(&f.dataset, "dataset", "", "dataset the runtime's dataset-initializer fetches first: hf://ORG/NAME or s3://BUCKET/PATH")
	fs.StringVar(&f.model, "model", "", "model the runtime's model-initializer fetches first: hf://ORG/NAME or s3://BUCKET/PATH")
	fs.StringVar(&f.secret, "initializer-secret", "", "Secret (in the namespace) with the initializers' credentials (ACCESS_TOKEN for hf://; ACCESS_KEY_ID, SECRET_ACCESS_KEY, ... for s3://); named only, never read")
	fs.BoolVar(&f.suspend, "suspend", false, "create the job suspended: no pods until easyai resume")
	return f.values
}

// values turns the flags the user set into the chart's values.
func (f *submitFlags) values(common kinds.SubmitCommon) (map[string]any, error) {
	if err := CheckFlags(common.Changed); err != nil {
		return nil, err
	}
	values := map[string]any{}
	if f.runtime != "" {
		kind, name, err := ParseRuntime(f.runtime)
		if err != nil {
			return nil, err
		}
		values["runtime"] = map[string]any{"name": name, "kind": kind}
		if f.kind.runtime == "" && isMPIRuntime(name) {
			values["podPatchJobs"] = []any{"node", "launcher"}
		}
	}
	if common.Changed("workers") {
		if err := kinds.CheckCount("--workers", common.Workers, 1); err != nil {
			return nil, err
		}
		values["roles"] = map[string]any{"node": kinds.Replicas(common.Workers)}
	}
	if common.Changed("nproc-per-node") {
		if err := kinds.CheckCount("--nproc-per-node", f.nproc, 1); err != nil {
			return nil, err
		}
		values["nprocPerNode"] = f.nproc
	}
	init, err := f.initializer()
	if err != nil {
		return nil, err
	}
	if len(init) > 0 {
		values["initializer"] = init
	}
	if common.Changed("suspend") {
		values["suspend"] = f.suspend
	}
	return values, nil
}

// initializer is the initializer value of --dataset, --model and
// --initializer-secret: the storage each fetches from, with the Secret of
// their credentials.
func (f *submitFlags) initializer() (map[string]any, error) {
	init := map[string]any{}
	for _, src := range []struct{ flag, key, uri string }{{"dataset", "dataset", f.dataset}, {"model", "model", f.model}} {
		if src.uri == "" {
			continue
		}
		if !storageURI.MatchString(src.uri) {
			return nil, exit.UsageErrorf("--%s %q: want hf://ORG/NAME or s3://BUCKET/PATH", src.flag, src.uri)
		}
		s := map[string]any{"storageUri": src.uri}
		if f.secret != "" {
			s["secret"] = f.secret
		}
		init[src.key] = s
	}
	if f.secret != "" {
		if len(init) == 0 {
			return nil, exit.UsageErrorf("--initializer-secret %q: give --dataset or --model, whose initializer reads it", f.secret)
		}
		if err := checkObjectName(f.secret); err != nil {
			return nil, exit.UsageErrorf("--initializer-secret %q: %v", f.secret, err)
		}
	}
	return init, nil
}

// isMPIRuntime tells the default runtimes whose launcher runs the trainer's
// container too (mlPolicy.mpi with runLauncherAsNode).
func isMPIRuntime(name string) bool {
	return name == "deepspeed-distributed" || name == "mlx-distributed"
}

// SubmitBackend implements kinds.BackendChooser: a TrainJob is always a
// TrainJob, but before it is created the runtime it names is read, when the
// flag names it and the user may: a runtime that does not exist, or --gang
// on a runtime without a podGroupPolicy, exits 2.
func (k Kind) SubmitBackend(ctx context.Context, flags *pflag.FlagSet, probe kinds.BackendProbe) (kinds.Kind, string, error) {
	f := flags.Lookup("runtime")
	if f == nil {
		// "submit -f": the job file names its runtime, which this does not
		// read; the trainer's webhook checks it.
		return k, "", nil
	}
	kind, name := ClusterRuntimeKind, k.runtime
	if f.Value.String() != "" {
		var err error
		if kind, name, err = ParseRuntime(f.Value.String()); err != nil {
			return nil, "", err
		}
	}
	if name == "" {
		// A job file names its runtime; the trainer's webhook checks it.
		return k, "", nil
	}
	note, err := checkRuntime(ctx, probe, kind, name, gangAsked(flags))
	return k, note, err
}

func gangAsked(flags *pflag.FlagSet) bool {
	f := flags.Lookup("gang")
	return f != nil && f.Value.String() == "true"
}
