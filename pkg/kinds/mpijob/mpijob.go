// Package mpijob is the training-operator's MPIJob (kubeflow.org/v1, not
// mpi-operator's v2beta1): one launcher that runs the command (mpirun ...)
// and workers that mpirun starts its ranks on. The operator writes a hostfile
// of the workers, each with --slots-per-worker slots, and lets mpirun reach
// them through kubectl exec; workers without a command of their own sleep.
package mpijob

import (
	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/kubeflow"
)

// Kind is the MPIJob kind; use New.
type Kind struct{ kubeflow.Base }

// Shape is how MPIJob differs from the other training-operator kinds.
var Shape = kubeflow.Shape{
	Name: "mpi", Aliases: []string{"mpijob"}, Chart: "mpijob",
	New:     func() runtime.Object { return &kubeflowv1.MPIJob{} },
	APIKind: kubeflowv1.MPIJobKind, Plural: kubeflowv1.MPIJobPlural, ReplicaSpecsField: "mpiReplicaSpecs",
	Roles:   []string{string(kubeflowv1.MPIJobReplicaTypeLauncher), string(kubeflowv1.MPIJobReplicaTypeWorker)},
	NoKueue: true,
}

// New returns the kind.
func New() Kind { return Kind{kubeflow.Base{Shape: Shape}} }

// SubmitLong explains which replica runs the command.
func (Kind) SubmitLong() string {
	return `Submit an MPIJob (kubeflow.org/v1), served by ` + kubeflow.Operator + `:
the training-operator's own MPIJob, not mpi-operator's v2beta1.

The launcher (one pod, no GPUs unless roles.launcher.resources.gpus says so)
runs the command after "--", typically mpirun. The --workers worker pods get
--gpus each and run no command of their own (the operator keeps them
sleeping): mpirun starts its ranks on them through kubectl exec, using the
hostfile the operator writes (OMPI_MCA_orte_default_hostfile), with
--slots-per-worker slots per worker. The job succeeds when the launcher does.`
}

// SubmitExample shows a GPU job and a CPU one.
func (Kind) SubmitExample() string {
	return `  # 4 workers with 8 GPUs and 8 ranks each; the launcher runs mpirun
  easyai submit mpi --workers 4 --gpus 8 --slots-per-worker 8 --image horovod/horovod:0.28.1 -- mpirun -np 32 python train.py
  # a small launcher beside big CPU workers
  easyai submit mpi --workers 2 --cpu 16 --memory 64Gi --launcher-cpu 1 --launcher-memory 2Gi --image mpi:1 -- mpirun -np 2 ./app`
}

// SubmitFlags adds MPI's own flags: the slots of each worker and the
// launcher's resources.
func (Kind) SubmitFlags(fs *pflag.FlagSet) kinds.KindValues {
	var slots int
	kinds.DescribeWorkers(fs, "number of worker pods mpirun runs on (the launcher is one more pod)")
	fs.IntVar(&slots, "slots-per-worker", 0, "MPI slots (ranks) of each worker in the hostfile (default: the operator's, 1)")
	launcher := kinds.AddRoleFlags(fs, "launcher", "the launcher", "")
	return func(common kinds.SubmitCommon) (map[string]any, error) {
		values := map[string]any{}
		roles := kinds.Roles{}
		if err := roles.SetWorkers("worker", common, "an MPI job needs at least 1 worker"); err != nil {
			return nil, err
		}
		if common.Changed("slots-per-worker") {
			if err := kinds.CheckCount("--slots-per-worker", slots, 1); err != nil {
				return nil, err
			}
			values["slotsPerWorker"] = slots
		}
		launcherValues, err := launcher.Values()
		if err != nil {
			return nil, err
		}
		roles.Merge("launcher", launcherValues)
		roles.AddTo(values)
		return values, nil
	}
}

// VolcanoFramework: an MPIJob runs as a Volcano Job with the mpi plugin,
// its launcher as the plugin's master task (kinds.VolcanoFramework).
func (Kind) VolcanoFramework() (string, map[string]string) {
	return "mpi", map[string]string{"launcher": "master"}
}
