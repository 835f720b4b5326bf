//go:build e2e

package realnode

import (
	_ "embed"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

//go:embed testdata/tfconfig.py
var tfConfigScript string

// The same DDP training runs to success on every other backend that can run
// PyTorch here: a PyTorchJob gang-scheduled by Volcano, a Volcano Job with
// Volcano's pytorch plugin, and a TrainJob of Kubeflow Trainer v2 on the
// torch-distributed runtime (torchrun, as that runtime expects).
func TestDDPTrainsOnEveryBackend(t *testing.T) {
	// The script, written to a file by the replica itself: torchrun runs a
	// file, and the command line takes no file.
	viaTorchrun := []string{"sh", "-c", `printf '%s' "$DDP_SCRIPT" >/tmp/ddp.py && exec torchrun /tmp/ddp.py`}
	tests := []struct {
		name     string
		args     []string
		command  []string
		replicas []string // the log prefixes of the two ranks
	}{
		{"gang", []string{"pytorch", "--workers", "2", "--gang"}, []string{"python3", "-c", ddpScript}, []string{"master-0", "worker-0"}},
		{"volcano", []string{"volcano", "--framework", "pytorch", "--task", "master=1", "--task", "worker=1"}, []string{"python3", "-c", ddpScript}, []string{"master-0", "worker-0"}},
		{"trainjob", []string{"trainjob", "--runtime", "torch-distributed", "--workers", "2", "--nproc-per-node", "1", "--env", "DDP_SCRIPT=" + ddpScript}, viaTorchrun, []string{"node-0", "node-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, placement, _, alice := onTheRealNode(t)
			args := append([]string{"submit"}, tt.args...)
			args = append(append(args, "--name", tt.name, "--env", "HOLD_SECONDS=0"), placement...)
			easyai.RunWith(t, alice, append(append(args, "--"), tt.command...)...).MustSucceed(t)
			follow := startFollowing(t, alice, "logs", "-f", tt.name)

			res := easyai.RunWith(t, alice, "wait", tt.name, "--timeout", "8m")
			if res.Code != 0 || !strings.Contains(res.Stderr, " Succeeded after ") {
				t.Errorf("wait: exit %d, stderr %q; want 0 and Succeeded", res.Code, res.Stderr)
			}
			follow.wait(t, 2*time.Minute)
			out := follow.text()
			for _, replica := range tt.replicas {
				prefix := regexp.QuoteMeta("[" + replica + "] ")
				for _, want := range []string{"all_reduce sum 3 (want 3)", ": falls", "the same on every rank", "training done"} {
					if !regexp.MustCompile(prefix + "[^\n]*" + regexp.QuoteMeta(want)).MatchString(out) {
						t.Errorf("logs -f shows no line of %s with %q", replica, want)
					}
				}
			}
		})
	}
}

// A TFJob's tasks find each other at the addresses TF_CONFIG names, as
// TensorFlow would: the operator's TF_CONFIG and headless Services, and the
// cluster's DNS, are right.
func TestTFJobTasksReachEachOther(t *testing.T) {
	t.Parallel()
	_, placement, _, alice := onTheRealNode(t)
	args := append([]string{"submit", "tf", "--name", "tfconfig", "--ps", "1", "--workers", "2"}, placement...)
	easyai.RunWith(t, alice, append(args, "--", "python3", "-c", tfConfigScript)...).MustSucceed(t)
	follow := startFollowing(t, alice, "logs", "-f", "tf/tfconfig")

	res := easyai.RunWith(t, alice, "wait", "tf/tfconfig", "--timeout", "6m")
	if res.Code != 0 || !strings.Contains(res.Stderr, "tf/tfconfig Succeeded after ") {
		t.Errorf("wait: exit %d, stderr %q; want 0 and Succeeded", res.Code, res.Stderr)
	}
	follow.wait(t, 2*time.Minute)
	out := follow.text()
	for _, replica := range []string{"ps-0", "worker-0", "worker-1"} {
		prefix := regexp.QuoteMeta("[" + replica + "] ")
		for _, want := range []string{"TF_CONFIG: task " + replica + " of ", "every task reached", "reached by 2 of 2 tasks"} {
			if !regexp.MustCompile(prefix + "[^\n]*" + regexp.QuoteMeta(want)).MatchString(out) {
				t.Errorf("logs -f shows no line of %s with %q", replica, want)
			}
		}
	}
}

//go:embed testdata/xgboost_dist.py
var xgboostScript string

// An XGBoostJob trains for real (Debian's python3-xgboost 1.7): the master
// runs the rabit tracker at the address the operator gives, both ranks
// join it, the loss falls and the model is the same on both.
func TestXGBoostTrainsAcrossItsReplicas(t *testing.T) {
	t.Parallel()
	_, placement, _, alice := onTheRealNode(t)
	args := append([]string{"submit", "xgboost", "--name", "xgb", "--workers", "2"}, placement...)
	easyai.RunWith(t, alice, append(args, "--", "python3", "-c", xgboostScript)...).MustSucceed(t)
	follow := startFollowing(t, alice, "logs", "-f", "xgboost/xgb")
	res := easyai.RunWith(t, alice, "wait", "xgboost/xgb", "--timeout", "6m")
	if res.Code != 0 || !strings.Contains(res.Stderr, "xgboost/xgb Succeeded after ") {
		t.Errorf("wait: exit %d, stderr %q; want 0 and Succeeded", res.Code, res.Stderr)
	}
	follow.wait(t, 2*time.Minute)
	out := follow.text()
	for _, replica := range []string{"master-0", "worker-0"} {
		prefix := regexp.QuoteMeta("[" + replica + "] ")
		for _, want := range []string{" of 2", ": falls", "the same on every rank", "training done"} {
			if !regexp.MustCompile(prefix + "[^\n]*" + regexp.QuoteMeta(want)).MatchString(out) {
				t.Errorf("logs -f shows no line of %s with %q", replica, want)
			}
		}
	}
}

// An MPIJob of the training-operator runs an MPI program across its two
// workers: the launcher's mpirun starts a rank on each through the kubectl
// its init container delivered (the cluster's own), and the ranks reduce
// over MPI. The launcher reaches the API server at the node's bridge (no
// kube-proxy here: KUBERNETES_SERVICE_HOST says where); Open MPI runs as
// root in the image, which it refuses unless told.
func TestMPIJobRunsAcrossItsWorkers(t *testing.T) {
	t.Parallel()
	c, placement, _, alice := onTheRealNode(t)
	host, port := c.RealNodeAPIServer(t)
	script := `from mpi4py import MPI
comm = MPI.COMM_WORLD
total = comm.allreduce(comm.rank + 1)
print("rank %d of %d on %s: allreduce %d (want 3)" % (comm.rank, comm.size, MPI.Get_processor_name(), total), flush=True)`
	args := append([]string{"submit", "mpi", "--name", "mpi", "--workers", "2",
		"--env", "KUBERNETES_SERVICE_HOST=" + host, "--env", "KUBERNETES_SERVICE_PORT=" + port,
		"--env", "OMPI_ALLOW_RUN_AS_ROOT=1", "--env", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}, placement...)
	easyai.RunWith(t, alice, append(args, "--", "mpirun", "-np", "2", "--mca", "btl", "tcp,self", "python3", "-c", script)...).MustSucceed(t)

	res := easyai.RunWith(t, alice, "wait", "mpi", "--timeout", "5m")
	logs := easyai.RunWith(t, alice, "logs", "mpi", "--role", "launcher")
	if res.Code != 0 {
		get := easyai.RunWith(t, alice, "get", "mpi")
		t.Fatalf("wait: exit %d, stderr %q\nlogs:\n%s%s\nget:\n%s", res.Code, res.Stderr, logs.Stdout, logs.Stderr, get.Stdout)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^\[launcher-0\] rank 0 of 2 on mpi-worker-\d: allreduce 3 \(want 3\)$`),
		regexp.MustCompile(`(?m)^\[launcher-0\] rank 1 of 2 on mpi-worker-\d: allreduce 3 \(want 3\)$`),
	} {
		if !want.MatchString(logs.Stdout) {
			t.Errorf("the launcher's log has no line %s:\n%s", want, logs.Stdout)
		}
	}
	// get names each replica's own pod (the operator labels an MPIJob's
	// pods without an index: it is in their names).
	res = easyai.RunWith(t, alice, "get", "mpi", "-o", "json").MustSucceed(t)
	var doc struct {
		Replicas []struct{ Task, Pod string } `json:"replicas"`
	}
	var pods []string
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err == nil {
		for _, r := range doc.Replicas {
			pods = append(pods, r.Task+"="+r.Pod)
		}
	}
	if strings.Join(pods, ",") != "launcher-0=mpi-launcher,worker-0=mpi-worker-0,worker-1=mpi-worker-1" {
		t.Errorf("get's replicas %v", pods)
	}
	// Each rank ran on its own worker.
	if ranks := regexp.MustCompile(`on (mpi-worker-\d):`).FindAllStringSubmatch(logs.Stdout, -1); len(ranks) != 2 || ranks[0][1] == ranks[1][1] {
		t.Errorf("the ranks ran on %v; want one on each worker", ranks)
	}
}
