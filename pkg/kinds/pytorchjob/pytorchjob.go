// Package pytorchjob is the Kubeflow PyTorchJob kind: a master and workers
// (--workers counts all nodes, the first being the master), or, when elastic,
// workers only between --elastic-min and --elastic-max; the operator injects
// MASTER_ADDR, WORLD_SIZE and RANK.
package pytorchjob

import (
	"context"
	"regexp"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/kubeflow"
	"github.com/easyai-dev/easyai/pkg/kinds/trainjob"
)

// Kind is the PyTorchJob kind; use New.
type Kind struct{ kubeflow.Base }

// Shape is how PyTorchJob differs from the other training-operator kinds.
var Shape = kubeflow.Shape{
	Name: "pytorch", Aliases: []string{"pytorchjob", "torch"}, Chart: "pytorchjob",
	New:     func() runtime.Object { return &kubeflowv1.PyTorchJob{} },
	APIKind: kubeflowv1.PyTorchJobKind, Plural: "pytorchjobs", ReplicaSpecsField: "pytorchReplicaSpecs",
	Roles: []string{"Master", "Worker"},
}

// New returns the kind.
func New() Kind { return Kind{kubeflow.Base{Shape: Shape}} }

// nprocPerNode is what torchrun's --nproc-per-node takes (as the chart
// checks it): a count of processes, or auto, cpu or gpu.
var nprocPerNode = regexp.MustCompile(`^([1-9][0-9]*|auto|cpu|gpu)$`)

// SubmitExample shows a gang-scheduled job and an elastic one.
func (Kind) SubmitExample() string {
	return `  # 3 nodes (1 master + 2 workers), 8 GPUs and 8 processes each, gang-scheduled
  easyai submit pytorch --workers 3 --gpus 8 --nproc-per-node 8 --gang --image pytorch/pytorch:2.4 -- torchrun train.py
  # elastic between 2 and 4 nodes
  easyai submit pytorch --workers 2 --elastic-min 2 --elastic-max 4 --image pt:1 -- python train.py`
}

// SubmitFlags adds PyTorch's own flags: processes per node and elastic bounds.
func (Kind) SubmitFlags(fs *pflag.FlagSet) kinds.KindValues {
	trainjob.AddBackendFlag(fs)
	var nproc string
	fs.StringVar(&nproc, "nproc-per-node", "", `processes per node for torchrun: a number, "auto", "cpu" or "gpu"`)
	elastic := kubeflow.AddElasticFlags(fs, "nodes")
	return func(common kinds.SubmitCommon) (map[string]any, error) {
		values := map[string]any{}
		roles := kinds.Roles{}
		if err := roles.SetNodes(common, "a PyTorch job needs at least 1 node (the master)"); err != nil {
			return nil, err
		}
		if nproc != "" {
			if !nprocPerNode.MatchString(nproc) {
				return nil, exit.UsageErrorf("--nproc-per-node %q: must be a number of processes (1 or more), auto, cpu or gpu", nproc)
			}
			values["nprocPerNode"] = nproc
		}
		if elastic.Set() {
			v, err := elastic.Value(common)
			if err != nil {
				return nil, err
			}
			values["elastic"] = v
			// Elastic jobs rendezvous among workers (the operator's elasticPolicy
			// bounds the Worker replicas): every node is a worker, none a master.
			roles.Set("master", "replicas", 0)
			roles.Set("worker", "replicas", elastic.Start(common))
		}
		roles.AddTo(values)
		return values, nil
	}
}

// SubmitBackend implements kinds.BackendChooser: the training-operator's
// kind, or a TrainJob on torch-distributed (trainjob.ChooseBackend).
func (k Kind) SubmitBackend(ctx context.Context, flags *pflag.FlagSet, probe kinds.BackendProbe) (kinds.Kind, string, error) {
	on := trainjob.OnTrainer{Kind: trainjob.New(), Of: k.Name(), ChartName: "pytorchjob-trainer", Runtime: "torch-distributed"}
	return trainjob.ChooseBackend(ctx, k, on, flags, probe)
}

// VolcanoFramework: a PyTorchJob runs as a Volcano Job with the pytorch
// plugin, whose tasks master and worker are its roles
// (kinds.VolcanoFramework).
func (Kind) VolcanoFramework() (string, map[string]string) { return "pytorch", nil }
