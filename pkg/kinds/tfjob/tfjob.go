// Package tfjob is the Kubeflow TFJob kind: parameter servers, workers, an
// optional chief and evaluator; the operator injects TF_CONFIG.
package tfjob

import (
	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/kubeflow"
)

// Kind is the TFJob kind; use New.
type Kind struct{ kubeflow.Base }

// Shape is how TFJob differs from the other training-operator kinds.
var Shape = kubeflow.Shape{
	Name: "tf", Aliases: []string{"tfjob", "tensorflow"}, Chart: "tfjob",
	New:     func() runtime.Object { return &kubeflowv1.TFJob{} },
	APIKind: kubeflowv1.TFJobKind, Plural: "tfjobs", ReplicaSpecsField: "tfReplicaSpecs",
	Roles: []string{"Chief", "Master", "PS", "Worker", "Evaluator"},
}

// New returns the kind.
func New() Kind { return Kind{kubeflow.Base{Shape: Shape}} }

// SubmitExample shows a job with a parameter server and a server dry run.
func (Kind) SubmitExample() string {
	return `  # 1 parameter server and 4 GPU workers
  easyai submit tf --ps 1 --workers 4 --gpus 1 --image tensorflow/tensorflow:2.16.1-gpu -- python train.py
  # print the TFJob instead of creating it, validated by the API server
  easyai submit tf --workers 2 --image tf:1 --dry-run=server -o yaml -- python train.py`
}

// SubmitFlags adds TF's own flags: the parameter servers, chief, evaluator and success policy.
func (Kind) SubmitFlags(fs *pflag.FlagSet) kinds.KindValues {
	var ps int
	var chief, evaluator bool
	var successPolicy string
	fs.IntVar(&ps, "ps", 0, "number of parameter servers")
	fs.BoolVar(&chief, "chief", false, "add a chief replica (it decides when the job is done)")
	fs.BoolVar(&evaluator, "evaluator", false, "add an evaluator replica")
	fs.StringVar(&successPolicy, "success-policy", "", `when the job succeeds: "" (chief, else worker 0, is done) or AllWorkers`)
	psFlags := kinds.AddRoleFlags(fs, "ps", "each parameter server", "the parameter servers")
	return func(common kinds.SubmitCommon) (map[string]any, error) {
		if common.Workers < 0 {
			return nil, exit.UsageErrorf("--workers %d: must be 0 or more", common.Workers)
		}
		if err := kinds.CheckCount("--ps", ps, 0); err != nil {
			return nil, err
		}
		if successPolicy != "" && successPolicy != string(kubeflowv1.SuccessPolicyAllWorkers) {
			return nil, exit.UsageErrorf("--success-policy %q: must be AllWorkers or empty", successPolicy)
		}
		roles := kinds.Roles{}
		if common.Changed("ps") {
			roles.Set("ps", "replicas", ps)
		}
		psValues, err := psFlags.Values()
		if err != nil {
			return nil, err
		}
		roles.Merge("ps", psValues)
		if common.Changed("workers") {
			roles.Set("worker", "replicas", common.Workers)
		}
		if common.Changed("chief") {
			roles.Set("chief", "replicas", boolToInt(chief))
		}
		if common.Changed("evaluator") {
			roles.Set("evaluator", "replicas", boolToInt(evaluator))
		}
		values := map[string]any{}
		roles.AddTo(values)
		if successPolicy != "" {
			values["successPolicy"] = successPolicy
		}
		return values, nil
	}
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// VolcanoFramework: a TFJob runs as a Volcano Job with the tensorflow
// plugin, whose tasks chief, ps, worker and evaluator are its roles
// (kinds.VolcanoFramework).
func (Kind) VolcanoFramework() (string, map[string]string) { return "tensorflow", nil }
