//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// kindCase is one training-operator kind run end to end: submitted with
// args, it makes pods for tasks, and ending the pods of ends (in that
// order) with exit code 0 makes it succeed.
type kindCase struct {
	kind     string // easyai's name of the kind
	resource string
	// group and version of resource; default kubeflow.org/v1.
	group, version string
	args           []string
	tasks          []string // every replica, as get names them
	pods           map[string]string
	ends           []string // the tasks whose end decides success, last
	gpus           map[string]int64
}

var kindCases = []kindCase{
	{
		kind: "mpi", resource: "mpijobs",
		args:  []string{"--workers", "2", "--gpus", "1", "--slots-per-worker", "2", "--launcher-cpu", "1", "--", "mpirun", "-np", "4", "python", "train.py"},
		tasks: []string{"launcher-0", "worker-0", "worker-1"},
		// The operator names the launcher's pod without an index.
		pods: map[string]string{"launcher-0": "launcher"},
		ends: []string{"worker-0", "worker-1", "launcher-0"},
		gpus: map[string]int64{"launcher-0": 0, "worker-0": 1, "worker-1": 1},
	},
	{
		kind: "xgboost", resource: "xgboostjobs",
		args:  []string{"--workers", "3", "--", "python", "train.py"},
		tasks: []string{"master-0", "worker-0", "worker-1"},
		ends:  []string{"worker-0", "worker-1", "master-0"},
	},
	{
		kind: "paddle", resource: "paddlejobs",
		args:  []string{"--workers", "2", "--gpus", "2", "--", "python", "-m", "paddle.distributed.launch", "train.py"},
		tasks: []string{"worker-0", "worker-1"},
		ends:  []string{"worker-0", "worker-1"},
		gpus:  map[string]int64{"worker-0": 2, "worker-1": 2},
	},
	{
		kind: "jax", resource: "jaxjobs",
		args:  []string{"--workers", "2", "--", "python", "train.py"},
		tasks: []string{"worker-0", "worker-1"},
		ends:  []string{"worker-0", "worker-1"},
	},
	{
		kind: "volcano", resource: "jobs", group: "batch.volcano.sh", version: "v1alpha1",
		args:  []string{"--task", "master=1", "--task", "worker=2", "--framework", "pytorch", "--gpus", "1", "--", "torchrun", "train.py"},
		tasks: []string{"master-0", "worker-0", "worker-1"},
		ends:  []string{"master-0", "worker-0", "worker-1"},
		gpus:  map[string]int64{"master-0": 1, "worker-0": 1, "worker-1": 1},
	},
}

func (k kindCase) pod(name, task string) string {
	if p, ok := k.pods[task]; ok {
		return name + "-" + p
	}
	return name + "-" + task
}

// getJob is "easyai get KIND/NAME -o json", the fields the test reads.
type getJob struct {
	JobKind string `json:"jobKind"`
	Status  struct {
		State string `json:"state"`
	} `json:"status"`
	Replicas []struct {
		Task  string `json:"task"`
		Pod   string `json:"pod"`
		Phase string `json:"phase"`
	} `json:"replicas"`
	Events []struct {
		Object, Reason, Message string
	} `json:"events"`
}

func getKind(t *testing.T, ns, ref string) getJob {
	t.Helper()
	r := easyai.Run(t, "get", "-n", ns, ref, "-o", "json").MustSucceed(t)
	var j getJob
	if err := json.Unmarshal([]byte(r.Stdout), &j); err != nil {
		t.Fatalf("get %s -o json: %v\n%s", ref, err, r.Stdout)
	}
	return j
}

// TestKindsRunFromSubmitToDelete: each of the MPI, XGBoost, Paddle and JAX
// kinds is submitted by easyai, runs with labelled pods, is listed and shown,
// prints its replicas' logs, succeeds when its pods end with exit code 0, and
// is deleted, by the same kind-neutral commands as TF and PyTorch jobs.
func TestKindsRunFromSubmitToDelete(t *testing.T) {
	for _, k := range kindCases {
		t.Run(k.kind, func(t *testing.T) {
			t.Parallel()
			c, _ := clients(t)
			ns := c.Namespace(t)
			name := "e2e-" + k.kind
			ref := k.kind + "/" + name
			for _, task := range k.tasks {
				c.PodLog(t, ns, k.pod(name, task), nil).Println("hello from " + task)
			}
			execDir := c.PodExecDir(t, ns, k.pod(name, k.tasks[len(k.tasks)-1]))
			if err := os.WriteFile(filepath.Join(execDir, "whoami.txt"), []byte("I am "+k.tasks[len(k.tasks)-1]+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}

			args := append([]string{"submit", k.kind, "-n", ns, "--name", name, "--image", "example.com/train:1",
				"--experiment", "kinds", "-o", "name"}, k.args...)
			r := easyai.Run(t, args...).MustSucceed(t)
			if got := strings.TrimSpace(r.Stdout); got != ref {
				t.Errorf("submit -o name printed %q, want %s", got, ref)
			}

			easyai.Run(t, "wait", "-n", ns, ref, "--for", "running", "--timeout", "90s").MustSucceed(t)
			// A job runs once some replicas do (MPI: its launcher); the checks
			// below want every replica's pod running and counted by the operator.
			for _, task := range k.tasks {
				c.WaitPodPhase(t, ns, k.pod(name, task), "Running", 90*time.Second)
			}
			eventually(t, ref+" listed with every replica ready", func() string {
				row := rows(t, "-n", ns)[name]
				if len(row) < 4 || row[3] != fmt.Sprintf("%d/%d", len(k.tasks), len(k.tasks)) {
					return fmt.Sprintf("row %q", row)
				}
				return ""
			})

			ctx := cluster.Context(t, time.Minute)
			pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/job-name=" + name})
			if err != nil {
				t.Fatal(err)
			}
			var podNames []string
			for _, p := range pods.Items {
				podNames = append(podNames, p.Name)
				for label, want := range map[string]string{"app.kubernetes.io/managed-by": "easyai", "easyai.io/kind": k.kind, "easyai.io/experiment": "kinds"} {
					if p.Labels[label] != want {
						t.Errorf("pod %s: label %s = %q, want %q", p.Name, label, p.Labels[label], want)
					}
				}
			}
			var wantPods []string
			for _, task := range k.tasks {
				wantPods = append(wantPods, k.pod(name, task))
			}
			sort.Strings(podNames)
			sort.Strings(wantPods)
			if strings.Join(podNames, " ") != strings.Join(wantPods, " ") {
				t.Errorf("pods labelled easyai.io/job-name=%s: %v, want %v", name, podNames, wantPods)
			}
			for task, want := range k.gpus {
				p, err := c.Kube.CoreV1().Pods(ns).Get(ctx, k.pod(name, task), metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if got := p.Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]; got.Value() != want {
					t.Errorf("%s asks for %d GPUs, want %d", task, got.Value(), want)
				}
			}

			row := rows(t, "-n", ns)[name]
			if len(row) < 4 || row[1] != k.kind || row[2] != "Running" || row[3] != fmt.Sprintf("%d/%d", len(k.tasks), len(k.tasks)) {
				t.Errorf("list row %q, want %s Running %d/%d", row, k.kind, len(k.tasks), len(k.tasks))
			}
			j := getKind(t, ns, ref)
			var tasks []string
			for _, rep := range j.Replicas {
				tasks = append(tasks, rep.Task+"="+rep.Pod+":"+rep.Phase)
			}
			var want []string
			for _, task := range k.tasks {
				want = append(want, task+"="+k.pod(name, task)+":Running")
			}
			if j.JobKind != k.kind || j.Status.State != "Running" || strings.Join(tasks, " ") != strings.Join(want, " ") {
				t.Errorf("get: kind %s, state %s, replicas %v; want %s Running %v", j.JobKind, j.Status.State, tasks, k.kind, want)
			}
			// Every job here is gang-scheduled by Volcano; its waits before
			// the pods existed are over once it runs.
			for _, ev := range j.Events {
				if ev.Reason == "Unschedulable" || ev.Reason == "PodGroupPending" {
					t.Errorf("get of a running job shows a passed gang wait: %+v", ev)
				}
			}

			r = easyai.Run(t, "logs", "-n", ns, ref).MustSucceed(t)
			var wantLogs []string
			for _, task := range k.tasks {
				wantLogs = append(wantLogs, fmt.Sprintf("[%s] hello from %s\n", task, task))
			}
			if r.Stdout != strings.Join(wantLogs, "") {
				t.Errorf("logs:\n%s\nwant:\n%s", r.Stdout, strings.Join(wantLogs, ""))
			}

			last := k.tasks[len(k.tasks)-1]
			r = easyai.Run(t, "exec", "-n", ns, ref, "--task", last, "--", "cat", "whoami.txt").MustSucceed(t)
			if r.Stdout != "I am "+last+"\n" {
				t.Errorf("exec in %s printed %q", last, r.Stdout)
			}

			for _, task := range k.ends {
				c.EndPod(t, ns, k.pod(name, task), 0)
			}
			r = easyai.Run(t, "wait", "-n", ns, ref, "--for", "succeeded", "--timeout", "90s")
			if r.Code != 0 {
				t.Fatalf("wait --for succeeded: exit %d\n%s", r.Code, r.Stderr)
			}
			if r := easyai.Run(t, "get", "-n", ns, ref, "-o", "jsonpath={.status.state}").MustSucceed(t); r.Stdout != "Succeeded" {
				t.Errorf("get -o jsonpath={.status.state} after the pods ended: %q, want Succeeded", r.Stdout)
			}

			easyai.Run(t, "delete", "-n", ns, ref, "--yes").MustSucceed(t)
			gvr := schema.GroupVersionResource{Group: "kubeflow.org", Version: "v1", Resource: k.resource}
			if k.group != "" {
				gvr.Group, gvr.Version = k.group, k.version
			}
			cluster.Eventually(t, timeout, ref+" gone", func(ctx context.Context) (bool, error) {
				_, err := c.Dynamic.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
				return apierrors.IsNotFound(err), nil
			})
			if r := easyai.Run(t, "get", "-n", ns, ref); r.Code != 3 {
				t.Errorf("get after delete: exit %d, want 3 (not found)\n%s", r.Code, r.Stderr)
			}
		})
	}
}
