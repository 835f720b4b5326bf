//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// debugCommand prints the exec directory it runs in (one per pod: kwok runs
// exec'd commands on this machine) and fails with 3.
const debugCommand = "echo ran in $(basename $PWD); exit 3"

// TestDebugMode: a namespace's user submits a job whose worker-1 waits in
// debug mode; its pod runs the wait, keeps the command and has a deadline;
// list and get say DEBUG; attach tells how to start it; run starts it,
// streams its output and exits with its code.
func TestDebugMode(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	for _, task := range []string{"worker-0", "worker-1"} {
		c.PodExecDir(t, ns, "dbg-"+task)
	}
	easyai.RunWith(t, alice, "submit", "tf", "-n", ns, "--name", "dbg", "--workers", "2", "--image", "example.com/train:1",
		"--debug-task", "worker-1", "--debug-timeout", "2h", "--", "sh", "-c", debugCommand).MustSucceed(t)

	pod := podOf(t, c, ns, "dbg-worker-1")
	env := envOf(pod)
	argv := pod.Spec.Containers[0].Command
	if len(argv) < 4 || argv[0] != "/bin/sh" || !strings.Contains(argv[2], "debug mode") || strings.Join(argv[4:], " ") != "sh -c "+debugCommand {
		t.Errorf("dbg-worker-1 runs %q: want the debug wrapper before the command", argv)
	}
	if env["EASYAI_COMMAND"] != "'sh' '-c' '"+debugCommand+"'" || env["EASYAI_DEBUG_TASKS"] != "worker-1" {
		t.Errorf("dbg-worker-1's env: %v", env)
	}
	if d := pod.Spec.ActiveDeadlineSeconds; d == nil || *d != 7200 {
		t.Errorf("activeDeadlineSeconds = %v, want 7200 (--debug-timeout 2h)", d)
	}
	for _, task := range []string{"worker-0", "worker-1"} {
		c.WaitPodPhase(t, ns, "dbg-"+task, string(corev1.PodRunning), 90*time.Second)
	}

	// (The job is Running once the operator says so, which can come a
	// moment after its pods run.)
	eventually(t, "list and get say DEBUG", func() string {
		res := easyai.RunWith(t, alice, "list", "-n", ns).MustSucceed(t)
		if !strings.Contains(res.Stdout, "DEBUG") {
			return "list does not say DEBUG:\n" + res.Stdout
		}
		res = easyai.RunWith(t, alice, "get", "dbg", "-n", ns).MustSucceed(t)
		if !strings.Contains(res.Stdout, "DEBUG (Running; easyai run dbg starts the command)") {
			return "get does not say DEBUG:\n" + res.Stdout
		}
		res = easyai.RunWith(t, alice, "get", "dbg", "-n", ns, "-o", "json").MustSucceed(t)
		var doc struct {
			Debug  bool `json:"debug"`
			Status struct{ State string }
		}
		if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil || !doc.Debug || doc.Status.State != "Running" {
			return fmt.Sprintf("get -o json: debug %v, state %q (%v); want true and Running", doc.Debug, doc.Status.State, err)
		}
		return ""
	})

	res := easyai.RunWith(t, alice, "attach", "dbg", "-n", ns, "--task", "worker-1", "--command", "true")
	if !strings.Contains(res.Stderr, "Start it with: easyai run dbg --task worker-1") {
		t.Errorf("attach to a waiting replica: exit %d, stderr %q; want how to start the command", res.Code, res.Stderr)
	}

	// run: the first replica that waits, the command's output and exit code.
	res = easyai.RunWith(t, alice, "run", "dbg", "-n", ns)
	if res.Code != 3 || res.Stdout != "ran in exec-dbg-worker-1\n" || !strings.Contains(res.Stderr, "Running the command in worker-1") {
		t.Errorf("run: exit %d, stdout %q, stderr %q; want 3 and the command's output from worker-1", res.Code, res.Stdout, res.Stderr)
	}
	res = easyai.RunWith(t, alice, "run", "dbg", "-n", ns, "--all")
	if res.Code != 1 || res.Stdout != "[worker-1] ran in exec-dbg-worker-1\n" || !strings.Contains(res.Stderr, "failed in 1 of 1 replicas") {
		t.Errorf("run --all: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
	res = easyai.RunWith(t, alice, "run", "dbg", "-n", ns, "--task", "worker-0")
	if res.Code != 2 || !strings.Contains(res.Stderr, "runs its command already") {
		t.Errorf("run --task of a replica that does not wait: exit %d, stderr %q; want 2", res.Code, res.Stderr)
	}
}

// TestDebugModeOfEveryReplica: --debug alone makes every replica wait, and
// run --all starts the command in each.
func TestDebugModeOfEveryReplica(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	for _, task := range []string{"worker-0", "worker-1"} {
		// The recorded command is "python train.py": here, this machine's.
		dir := c.PodExecDir(t, ns, "all-"+task)
		if err := os.WriteFile(filepath.Join(dir, "train.py"), []byte("print('trained')\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	submitTF(t, ns, "all", "2", "--debug").MustSucceed(t)
	pod := podOf(t, c, ns, "all-worker-0")
	if d := pod.Spec.ActiveDeadlineSeconds; d == nil || *d != 8*3600 {
		t.Errorf("activeDeadlineSeconds = %v, want 8h by default", d)
	}
	if _, ok := envOf(pod)["EASYAI_DEBUG_TASKS"]; ok {
		t.Errorf("EASYAI_DEBUG_TASKS is set without --debug-task")
	}
	for _, task := range []string{"worker-0", "worker-1"} {
		c.WaitPodPhase(t, ns, "all-"+task, string(corev1.PodRunning), 90*time.Second)
	}
	res := easyai.Run(t, "run", "all", "-n", ns, "--all").MustSucceed(t)
	for _, task := range []string{"worker-0", "worker-1"} {
		if !strings.Contains(res.Stdout, "["+task+"] trained\n") {
			t.Errorf("run --all did not run in %s:\n%s", task, res.Stdout)
		}
	}

	// A job not in debug mode: run says to use exec.
	submitTF(t, ns, "plain", "1").MustSucceed(t)
	res = easyai.Run(t, "run", "plain", "-n", ns)
	if res.Code != 2 || !strings.Contains(res.Stderr, "not in debug mode") {
		t.Errorf("run of a job not in debug mode: exit %d, stderr %q", res.Code, res.Stderr)
	}
}

// TestDebugModeOfOtherKinds: a TrainJob's trainer waits and the job gets
// the deadline; ColossalAI's own debug mode takes no --debug-task.
func TestDebugModeOfOtherKinds(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	res := easyai.Run(t, "submit", "trainjob", "-n", ns, "--name", "tj", "--runtime", "torch-distributed", "--workers", "2",
		"--image", "example.com/train:1", "--debug", "--debug-timeout", "1h", "--dry-run=server", "-o", "json", "--", "torchrun", "train.py").MustSucceed(t)
	var tj struct {
		Spec struct {
			ActiveDeadlineSeconds int64 `json:"activeDeadlineSeconds"`
			Trainer               struct {
				Command []string        `json:"command"`
				Env     []corev1.EnvVar `json:"env"`
			} `json:"trainer"`
		} `json:"spec"`
	}
	if err := json.Unmarshal([]byte(res.Stdout), &tj); err != nil {
		t.Fatalf("submit -o json: %v\n%s", err, res.Stdout)
	}
	env := envOf(&corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Env: tj.Spec.Trainer.Env}}}})
	if argv := tj.Spec.Trainer.Command; len(argv) < 4 || argv[0] != "/bin/sh" || !strings.Contains(argv[2], "debug mode") ||
		env["EASYAI_COMMAND"] != "'torchrun' 'train.py'" || tj.Spec.ActiveDeadlineSeconds != 3600 {
		t.Errorf("the debugged TrainJob: command %q, env %v, activeDeadlineSeconds %d", argv, env, tj.Spec.ActiveDeadlineSeconds)
	}

	res = easyai.Run(t, "submit", "colossalai", "-n", ns, "--name", "cai", "--backend", "volcano", "--workers", "2",
		"--image", "example.com/colossalai:1", "--debug-task", "worker-0", "--", "train.py")
	if res.Code != 2 || !strings.Contains(res.Stderr, "own debug mode stops every replica") {
		t.Errorf("colossalai --debug-task: exit %d, stderr %q; want 2", res.Code, res.Stderr)
	}
}

func TestDebugFlagsRefuseBadInput(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"bad-task", []string{"--debug-task", "nope"}, `--debug-task "nope": not a replica's name`},
		{"no-such-task", []string{"--debug-task", "worker-5"}, "--debug-task worker-5: the job has no such replica (its replicas: worker-0, worker-1)"},
		{"zero-timeout", []string{"--debug", "--debug-timeout", "0s"}, "--debug-timeout 0s: must be 1s or more"},
	} {
		res := submitTF(t, ns, tt.name, "2", tt.args...)
		if res.Code != 2 || !strings.Contains(res.Stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tt.name, res.Code, res.Stderr, tt.want)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := c.Dynamic.Resource(tfJobs).Namespace(ns).Get(ctx, tt.name, metav1.GetOptions{})
		cancel()
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s: the TFJob exists after a refused submit (%v)", tt.name, err)
		}
	}
}
