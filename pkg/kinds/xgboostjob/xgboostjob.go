// Package xgboostjob is the Kubeflow XGBoostJob kind: exactly one master (the
// tracker, rank 0) and workers; --workers counts all nodes, the first being
// the master, as for PyTorch. The operator injects MASTER_ADDR, MASTER_PORT,
// WORLD_SIZE and RANK, and the job succeeds when the master does.
package xgboostjob

import (
	"context"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/kubeflow"
	"github.com/easyai-dev/easyai/pkg/kinds/trainjob"
)

// Kind is the XGBoostJob kind; use New.
type Kind struct{ kubeflow.Base }

// Shape is how XGBoostJob differs from the other training-operator kinds.
var Shape = kubeflow.Shape{
	Name: "xgboost", Aliases: []string{"xgboostjob"}, Chart: "xgboostjob",
	New:     func() runtime.Object { return &kubeflowv1.XGBoostJob{} },
	APIKind: kubeflowv1.XGBoostJobKind, Plural: kubeflowv1.XGBoostJobPlural, ReplicaSpecsField: "xgbReplicaSpecs",
	Roles: []string{string(kubeflowv1.XGBoostJobReplicaTypeMaster), string(kubeflowv1.XGBoostJobReplicaTypeWorker)},
}

// New returns the kind.
func New() Kind { return Kind{kubeflow.Base{Shape: Shape}} }

// SubmitLong explains how --workers makes the master and the workers.
func (Kind) SubmitLong() string {
	return `Submit an XGBoostJob (kubeflow.org/v1), served by ` + kubeflow.Operator + `.

--workers counts all the nodes, the first being the master (the API requires
exactly one: it runs the tracker and is rank 0), as for PyTorch. Every
replica runs the command after "--"; the operator injects MASTER_ADDR,
MASTER_PORT, WORLD_SIZE and RANK (and WORKER_ADDRS, which LightGBM reads). The job
succeeds when the master does.`
}

// SubmitExample shows a distributed job.
func (Kind) SubmitExample() string {
	return `  # 1 master + 3 workers with 8 CPUs each
  easyai submit xgboost --workers 4 --cpu 8 --memory 32Gi --image xgboost-dist:1 -- python train.py --n_estimators 100`
}

// SubmitFlags maps --workers onto the master and the workers; XGBoost has no
// flags of its own.
func (Kind) SubmitFlags(fs *pflag.FlagSet) kinds.KindValues {
	trainjob.AddBackendFlag(fs)
	kinds.DescribeWorkers(fs, "number of nodes, the first being the master")
	return func(common kinds.SubmitCommon) (map[string]any, error) {
		values, roles := map[string]any{}, kinds.Roles{}
		if err := roles.SetNodes(common, "an XGBoost job needs at least 1 node (the master)"); err != nil {
			return nil, err
		}
		roles.AddTo(values)
		return values, nil
	}
}

// SubmitBackend implements kinds.BackendChooser: the training-operator's
// kind, or a TrainJob on xgboost-distributed (trainjob.ChooseBackend).
func (k Kind) SubmitBackend(ctx context.Context, flags *pflag.FlagSet, probe kinds.BackendProbe) (kinds.Kind, string, error) {
	on := trainjob.OnTrainer{Kind: trainjob.New(), Of: k.Name(), ChartName: "xgboostjob-trainer", Runtime: "xgboost-distributed"}
	return trainjob.ChooseBackend(ctx, k, on, flags, probe)
}
