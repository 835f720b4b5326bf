// Package jaxjob is the Kubeflow JAXJob kind: workers only, worker 0 being
// the coordinator. The operator injects COORDINATOR_ADDRESS,
// COORDINATOR_PORT, NUM_PROCESSES and PROCESS_ID for
// jax.distributed.initialize, and the job succeeds when every worker has.
package jaxjob

import (
	"context"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/kubeflow"
	"github.com/easyai-dev/easyai/pkg/kinds/trainjob"
)

// Kind is the JAXJob kind; use New.
type Kind struct{ kubeflow.Base }

// Shape is how JAXJob differs from the other training-operator kinds.
var Shape = kubeflow.Shape{
	Name: "jax", Aliases: []string{"jaxjob"}, Chart: "jaxjob",
	New:     func() runtime.Object { return &kubeflowv1.JAXJob{} },
	APIKind: kubeflowv1.JAXJobKind, Plural: kubeflowv1.JAXJobPlural, ReplicaSpecsField: "jaxReplicaSpecs",
	Roles: []string{string(kubeflowv1.JAXJobReplicaTypeWorker)},
}

// New returns the kind.
func New() Kind { return Kind{kubeflow.Base{Shape: Shape}} }

// SubmitLong explains the worker-only job.
func (Kind) SubmitLong() string {
	return `Submit a JAXJob (kubeflow.org/v1), served by ` + kubeflow.Operator + `.

A JAXJob has workers only: every worker runs the command after "--", worker 0
being the coordinator. The operator injects COORDINATOR_ADDRESS,
COORDINATOR_PORT, NUM_PROCESSES and PROCESS_ID, which
jax.distributed.initialize() reads. The job succeeds when every worker has.`
}

// SubmitExample shows a multi-host job.
func (Kind) SubmitExample() string {
	return `  # 4 hosts with 8 GPUs each
  easyai submit jax --workers 4 --gpus 8 --image ghcr.io/nvidia/jax:jax -- python train.py`
}

// SubmitFlags checks --workers; JAX has no flags of its own.
func (Kind) SubmitFlags(fs *pflag.FlagSet) kinds.KindValues {
	trainjob.AddBackendFlag(fs)
	kinds.DescribeWorkers(fs, "number of workers (processes of jax.distributed), the first being the coordinator")
	return func(common kinds.SubmitCommon) (map[string]any, error) {
		values, roles := map[string]any{}, kinds.Roles{}
		if err := roles.SetWorkers("worker", common, "a JAX job needs at least 1 worker"); err != nil {
			return nil, err
		}
		roles.AddTo(values)
		return values, nil
	}
}

// SubmitBackend implements kinds.BackendChooser: the training-operator's
// kind, or a TrainJob on jax-distributed (trainjob.ChooseBackend).
func (k Kind) SubmitBackend(ctx context.Context, flags *pflag.FlagSet, probe kinds.BackendProbe) (kinds.Kind, string, error) {
	on := trainjob.OnTrainer{Kind: trainjob.New(), Of: k.Name(), ChartName: "jaxjob-trainer", Runtime: "jax-distributed"}
	return trainjob.ChooseBackend(ctx, k, on, flags, probe)
}
