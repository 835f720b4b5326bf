// Package paddlejob is the Kubeflow PaddleJob kind. Unlike PyTorch's, its
// Master replicas are not rank 0 of the workers but PaddlePaddle's parameter
// servers: without them a PaddleJob runs in collective mode, workers only,
// worker 0 being the endpoint every node meets at (PADDLE_MASTER). So
// --workers counts workers, and --ps adds parameter servers (Master).
package paddlejob

import (
	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/kubeflow"
)

// Kind is the PaddleJob kind; use New.
type Kind struct{ kubeflow.Base }

// Shape is how PaddleJob differs from the other training-operator kinds.
var Shape = kubeflow.Shape{
	Name: "paddle", Aliases: []string{"paddlejob", "paddlepaddle"}, Chart: "paddlejob",
	New:     func() runtime.Object { return &kubeflowv1.PaddleJob{} },
	APIKind: kubeflowv1.PaddleJobKind, Plural: kubeflowv1.PaddleJobPlural, ReplicaSpecsField: "paddleReplicaSpecs",
	Roles: []string{string(kubeflowv1.PaddleJobReplicaTypeMaster), string(kubeflowv1.PaddleJobReplicaTypeWorker)},
}

// New returns the kind.
func New() Kind { return Kind{kubeflow.Base{Shape: Shape}} }

// SubmitLong explains the two modes and what elastic bounds do.
func (Kind) SubmitLong() string {
	return `Submit a PaddleJob (kubeflow.org/v1), served by ` + kubeflow.Operator + `.

A PaddleJob's Master replicas are not a rank-0 node as in PyTorch: the
operator treats them as PaddlePaddle's parameter servers. So:

  collective mode (the default): --workers workers and no master; worker 0 is
  the endpoint every node meets at. The job succeeds when every worker has.

  parameter-server mode: --ps N adds N servers (the job's Master replicas)
  beside the --workers trainers. The job succeeds when the servers have.

Every replica runs the command after "--" (python -m paddle.distributed.launch
...); the operator injects PADDLE_MASTER, PADDLE_NNODES and PADDLE_JOB_ID.

--elastic-min/--elastic-max write spec.elasticPolicy (collective mode only).
The v1 operator only records these bounds: it neither rescales the job nor
passes them to the pods, so give them to the launcher too
(paddle.distributed.launch --nnodes MIN:MAX).`
}

// SubmitExample shows both modes.
func (Kind) SubmitExample() string {
	return `  # collective: 4 workers with 8 GPUs each
  easyai submit paddle --workers 4 --gpus 8 --shm-size 16Gi --image paddlepaddle/paddle:2.6.1-gpu-cuda12.0-cudnn8.9-trt8.6 -- python -m paddle.distributed.launch train.py
  # parameter servers: 2 servers and 4 CPU trainers
  easyai submit paddle --ps 2 --workers 4 --cpu 8 --image paddlepaddle/paddle:2.6.1 -- python -m paddle.distributed.launch train.py`
}

// SubmitFlags adds Paddle's own flags: parameter servers and elastic bounds.
func (Kind) SubmitFlags(fs *pflag.FlagSet) kinds.KindValues {
	var ps int
	kinds.DescribeWorkers(fs, "number of workers (trainers); in collective mode worker 0 is the endpoint the others meet at")
	fs.IntVar(&ps, "ps", 0, "parameter servers (the PaddleJob's Master replicas): parameter-server mode")
	elastic := kubeflow.AddElasticFlags(fs, "workers")
	return func(common kinds.SubmitCommon) (map[string]any, error) {
		values := map[string]any{}
		roles := kinds.Roles{}
		if err := roles.SetWorkers("worker", common, "a Paddle job needs at least 1 worker"); err != nil {
			return nil, err
		}
		if common.Changed("ps") {
			if err := kinds.CheckCount("--ps", ps, 0); err != nil {
				return nil, err
			}
			roles.Set("master", "replicas", ps)
		}
		if elastic.Set() {
			if err := elastic.CheckBounds(); err != nil {
				return nil, err
			}
			if ps > 0 {
				return nil, exit.UsageErrorf("--ps %d: elastic training runs in collective mode, without parameter servers", ps)
			}
			v, err := elastic.Value(common)
			if err != nil {
				return nil, err
			}
			values["elastic"] = v
			// Without --workers the job starts with the fewest workers it runs with.
			roles.Set("worker", "replicas", elastic.Start(common))
		}
		roles.AddTo(values)
		return values, nil
	}
}
