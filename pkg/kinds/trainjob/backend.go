package trainjob

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/charts"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// The backends of --backend of the kinds both Kubeflow operators serve, and
// of the configuration's kubeflow-backend.
const (
	BackendAuto             = "auto"
	BackendTrainingOperator = "training-operator"
	BackendTrainer          = "trainer"
)

// OnTrainer is a training-operator kind (pytorch, jax, xgboost) rendered as
// a TrainJob on a runtime of the cluster: created and read back as the
// trainjob kind, labelled with the kind's own name.
type OnTrainer struct {
	Kind
	// Of is the training-operator kind's name; ChartName renders its
	// values as a TrainJob on the ClusterTrainingRuntime Runtime.
	Of, ChartName, Runtime string
}

func (o OnTrainer) Name() string { return o.Of }
func (o OnTrainer) Chart() fs.FS { return charts.Get(o.ChartName) }

// AddBackendFlag adds --backend to the submit flags of a kind both Kubeflow
// operators serve.
func AddBackendFlag(fs *pflag.FlagSet) {
	fs.String("backend", BackendAuto, "what serves the job: training-operator (its v1 kind), trainer (a TrainJob of Kubeflow Trainer v2) or auto (the one the cluster has; where it has both, the configuration's kubeflow-backend)")
}

// v1Only are the flags of the training-operator kinds a TrainJob cannot
// honour, beyond the common ones.
var v1Only = []struct{ flag, why string }{
	{"elastic-min", "a TrainJob is not elastic"},
	{"elastic-max", "a TrainJob is not elastic"},
}

// ChooseBackend is the kinds.BackendChooser of a kind both Kubeflow
// operators serve: v1 (the training-operator's kind) or on, a TrainJob.
// --backend decides; auto (the default) takes the one the cluster serves,
// and where it serves both, the configuration's kubeflow-backend
// (training-operator unless set). A client dry run asks no cluster: auto is
// the configuration's choice there.
func ChooseBackend(ctx context.Context, v1 kinds.Kind, on OnTrainer, flags *pflag.FlagSet, probe kinds.BackendProbe) (kinds.Kind, string, error) {
	backend := BackendAuto
	if f := flags.Lookup("backend"); f != nil && f.Value.String() != "" {
		backend = f.Value.String()
	}
	note := ""
	switch backend {
	case BackendTrainingOperator, BackendTrainer:
	case BackendAuto:
		var err error
		if backend, note, err = autoBackend(ctx, v1, on, probe); err != nil {
			return nil, "", err
		}
	default:
		return nil, "", exit.UsageErrorf("--backend %q: must be %s, %s or %s", backend, BackendTrainingOperator, BackendTrainer, BackendAuto)
	}
	if backend == BackendTrainingOperator {
		return v1, note, nil
	}
	if err := checkTrainerFlags(flags); err != nil {
		return nil, "", err
	}
	runtimeNote, err := checkRuntime(ctx, probe, ClusterRuntimeKind, on.Runtime, gangAsked(flags))
	return on, joinNotes(note, runtimeNote), err
}

// autoBackend is the backend of --backend auto and a note saying why: the
// one the cluster serves; where it serves both, or offline, the
// configuration's kubeflow-backend (training-operator unless set).
func autoBackend(ctx context.Context, v1 kinds.Kind, on OnTrainer, probe kinds.BackendProbe) (backend, note string, err error) {
	preferred := probe.KubeflowBackend
	if preferred == "" {
		preferred = BackendTrainingOperator
	}
	if probe.Offline {
		return preferred, "", nil
	}
	v1Served, err := probe.Served(ctx, v1.Resource())
	if err != nil {
		return "", "", err
	}
	trainerServed, err := probe.Served(ctx, on.Resource())
	if err != nil {
		return "", "", err
	}
	switch {
	case v1Served && trainerServed:
		return preferred, fmt.Sprintf("Backend: %s (this cluster has the training-operator and Kubeflow Trainer v2; the configuration's kubeflow-backend chooses, default %s)", preferred, BackendTrainingOperator), nil
	case trainerServed:
		return BackendTrainer, fmt.Sprintf("Backend: trainer (this cluster has Kubeflow Trainer v2 and no training-operator): the job is a TrainJob on %s", on.Runtime), nil
	}
	return BackendTrainingOperator, "", nil
}

// checkTrainerFlags is a usage error naming the first flag set that a
// TrainJob cannot honour, of the common ones (CheckFlags) and of the
// training-operator kind's own (v1Only, and --nproc-per-node other than a
// number).
func checkTrainerFlags(flags *pflag.FlagSet) error {
	changed := func(flag string) bool {
		f := flags.Lookup(flag)
		return f != nil && f.Changed
	}
	if err := CheckFlags(changed); err != nil {
		return err
	}
	for _, u := range v1Only {
		if changed(u.flag) {
			return exit.UsageErrorf("--%s: a TrainJob cannot honour it (%s); --backend training-operator can", u.flag, u.why)
		}
	}
	if f := flags.Lookup("nproc-per-node"); f != nil && f.Changed {
		if n, err := strconv.Atoi(f.Value.String()); err != nil || n < 1 {
			return exit.UsageErrorf("--nproc-per-node %q: a TrainJob takes a number of processes per node; auto, cpu and gpu need --backend training-operator", f.Value.String())
		}
	}
	return nil
}

func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "\n")
}

// checkRuntime reads the runtime a TrainJob is to run on, when the cluster
// is asked at all: one that does not exist is a usage error, and so is
// --gang on one without a podGroupPolicy. A user who may not read runtimes
// gets a note instead (the trainer's webhook still checks the runtime).
func checkRuntime(ctx context.Context, probe kinds.BackendProbe, kind, name string, gang bool) (string, error) {
	if probe.Offline || probe.Get == nil {
		if gang {
			return fmt.Sprintf("Gang: a client dry run cannot check that %s %s has a podGroupPolicy, which --gang needs", kind, name), nil
		}
		return "", nil
	}
	gvr, ns := ClusterRuntimes, ""
	if kind == RuntimeKind {
		gvr, ns = Runtimes, probe.Namespace
	}
	rt, err := probe.Get(ctx, gvr, ns, name)
	switch {
	case apierrors.IsNotFound(err):
		where := "this cluster has"
		if ns != "" {
			where = "namespace " + ns + " has"
		}
		return "", exit.UsageErrorf("the runtime %q: %s no %s of that name (easyai runtimes lists those it has)", name, where, kind)
	case apierrors.IsForbidden(err):
		note := fmt.Sprintf("Runtime: not checked (you may not read %s %s)", kind, name)
		if gang {
			note += "; --gang works only if it has a podGroupPolicy"
		}
		return note, nil
	case err != nil:
		return "", fmt.Errorf("reading %s %s: %w", kind, name, err)
	}
	if !gang {
		return "", nil
	}
	plugin := GangPlugin(rt)
	if plugin == "" {
		return "", exit.UsageErrorf("--gang: %s %s has no podGroupPolicy, so its pods cannot be gang-scheduled (easyai runtimes shows the runtimes that have one)", kind, name)
	}
	return fmt.Sprintf("Gang: %s %s schedules the pods as one gang (podGroupPolicy: %s)", kind, name, plugin), nil
}

// GangPlugin is the plugin of a runtime's podGroupPolicy (coscheduling,
// volcano, ...), "" when it has none.
func GangPlugin(rt *unstructured.Unstructured) string {
	policy, found, _ := unstructured.NestedMap(rt.Object, "spec", "podGroupPolicy")
	if !found {
		return ""
	}
	plugins := slices.Sorted(maps.Keys(policy))
	if len(plugins) == 0 {
		return "yes"
	}
	return strings.Join(plugins, ",")
}

func checkObjectName(name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}
