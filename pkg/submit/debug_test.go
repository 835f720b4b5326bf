package submit_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/render"
)

// debugPod renders a tf job of two workers in debug mode and returns the
// worker container's command and env.
func debugPod(t *testing.T, debug map[string]any, command ...any) (argv []string, env map[string]string, spec map[string]any) {
	t.Helper()
	k, _ := registry.Default().Lookup("tf")
	objs, err := render.Render(render.Request{Kind: k, Values: map[string]any{
		"name": "j", "image": "img", "command": command,
		"roles":    map[string]any{"worker": map[string]any{"replicas": 2}},
		"devtools": map[string]any{"debug": debug},
	}})
	if err != nil {
		t.Fatal(err)
	}
	spec = objs[0].Object["spec"].(map[string]any)["tfReplicaSpecs"].(map[string]any)["Worker"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	c := spec["containers"].([]any)[0].(map[string]any)
	for _, a := range c["command"].([]any) {
		argv = append(argv, a.(string))
	}
	env = map[string]string{}
	envList, _ := c["env"].([]any)
	for _, e := range envList {
		m := e.(map[string]any)
		if v, ok := m["value"].(string); ok {
			env[m["name"].(string)] = v
		}
	}
	return argv, env, spec
}

func TestDebugModeKeepsTheCommandAndSetsADeadline(t *testing.T) {
	argv, env, spec := debugPod(t, map[string]any{"enabled": true, "timeoutSeconds": 60}, "python", "train.py", "it's")
	if argv[0] != "/bin/sh" || argv[1] != "-c" || strings.Join(argv[4:], " ") != "python train.py it's" {
		t.Errorf("command %q: want the debug wrapper, then the command", argv)
	}
	if got := env["EASYAI_COMMAND"]; got != `'python' 'train.py' 'it'\''s'` {
		t.Errorf("EASYAI_COMMAND = %s", got)
	}
	if env["EASYAI_JOB"] != "j" {
		t.Errorf("EASYAI_JOB = %q", env["EASYAI_JOB"])
	}
	if spec["activeDeadlineSeconds"] != int64(60) && spec["activeDeadlineSeconds"] != float64(60) {
		t.Errorf("activeDeadlineSeconds = %v, want 60", spec["activeDeadlineSeconds"])
	}
	// EASYAI_COMMAND runs the same command under sh -c.
	out, err := exec.Command("/bin/sh", "-c", "set -- "+env["EASYAI_COMMAND"]+`; printf '%s|' "$@"`).Output()
	if err != nil || string(out) != "python|train.py|it's|" {
		t.Errorf("sh reads EASYAI_COMMAND as %q (%v)", out, err)
	}
}

func TestWithoutDebugModeTheCommandIsTheUsers(t *testing.T) {
	argv, env, spec := debugPod(t, map[string]any{"enabled": false}, "python", "train.py")
	if strings.Join(argv, " ") != "python train.py" || env["EASYAI_COMMAND"] != "" || spec["activeDeadlineSeconds"] != nil {
		t.Errorf("command %q, env %v, spec %v: debug mode off must change nothing", argv, env, spec)
	}
}

// runWrapper runs the rendered wrapper with the local /bin/sh as the
// replica task would, with the command given.
func runWrapper(t *testing.T, tasks []any, task string, command ...any) (*exec.Cmd, *lockedBuffer) {
	t.Helper()
	debug := map[string]any{"enabled": true}
	if tasks != nil {
		debug["tasks"] = tasks
	}
	argv, env, _ := debugPod(t, debug, command...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "EASYAI_TASK="+task, "EASYAI_JOB=j", "EASYAI_DEBUG_TASKS="+env["EASYAI_DEBUG_TASKS"])
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

func TestAChosenReplicaWaitsUntilTERM(t *testing.T) {
	cmd, out := runWrapper(t, []any{"worker-1"}, "worker-1", "sh", "-c", "echo ran; exit 3")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "debug mode") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "easyai run j --task worker-1") {
		t.Fatalf("output %q: want the hint naming easyai run", out.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the wait ended with %v, want exit 0 on TERM", err)
	}
	if strings.Contains(out.String(), "ran") {
		t.Errorf("output %q: the command ran on a replica that waits", out.String())
	}
}

func TestAReplicaNotChosenRunsItsCommand(t *testing.T) {
	cmd, out := runWrapper(t, []any{"worker-1"}, "worker-0", "sh", "-c", "echo ran; exit 3")
	err := cmd.Wait()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 || strings.TrimSpace(out.String()) != "ran" {
		t.Errorf("got %v and %q, want the command's exit 3 and its output", err, out.String())
	}
}

func TestABadDebugValueFailsRendering(t *testing.T) {
	k, _ := registry.Default().Lookup("tf")
	for _, debug := range []map[string]any{
		{"enabled": "yes"}, {"tasks": []any{"worker"}}, {"timeoutSeconds": 0}, {"unknown": true},
	} {
		_, err := render.Render(render.Request{Kind: k, Values: map[string]any{
			"name": "j", "image": "img", "command": []any{"x"}, "devtools": map[string]any{"debug": debug},
		}})
		if err == nil || !strings.Contains(err.Error(), "devtools.debug") {
			t.Errorf("devtools.debug %v: got %v, want an error naming devtools.debug", debug, err)
		}
	}
}

func TestADebuggedTrainJobWaitsWithADeadline(t *testing.T) {
	k, _ := registry.Default().Lookup("trainjob")
	for _, tt := range []struct {
		runPolicy map[string]any
		want      int64
	}{
		{nil, 600},
		{map[string]any{"activeDeadlineSeconds": 300}, 300},
		{map[string]any{"activeDeadlineSeconds": 9000}, 600},
	} {
		values := map[string]any{
			"name": "j", "image": "img", "command": []any{"torchrun", "train.py"},
			"runtime":  map[string]any{"name": "torch-distributed"},
			"devtools": map[string]any{"debug": map[string]any{"enabled": true, "timeoutSeconds": 600}},
		}
		if tt.runPolicy != nil {
			values["runPolicy"] = tt.runPolicy
		}
		objs, err := render.Render(render.Request{Kind: k, Values: values})
		if err != nil {
			t.Fatal(err)
		}
		spec := objs[0].Object["spec"].(map[string]any)
		trainer := spec["trainer"].(map[string]any)
		argv := trainer["command"].([]any)
		if argv[0] != "/bin/sh" || argv[len(argv)-1] != "train.py" {
			t.Errorf("trainer command %q: want the debug wrapper, then the command", argv)
		}
		env := map[string]any{}
		for _, e := range trainer["env"].([]any) {
			env[e.(map[string]any)["name"].(string)] = e.(map[string]any)["value"]
		}
		if env["EASYAI_COMMAND"] != "'torchrun' 'train.py'" || env["EASYAI_JOB"] != "j" {
			t.Errorf("trainer env %v: want EASYAI_COMMAND and EASYAI_JOB", env)
		}
		if _, ok := env["EASYAI_TASK"]; !ok {
			t.Errorf("trainer env %v: want EASYAI_TASK", env)
		}
		if got := fmt.Sprint(spec["activeDeadlineSeconds"]); got != fmt.Sprint(tt.want) {
			t.Errorf("runPolicy %v: activeDeadlineSeconds = %s, want %d", tt.runPolicy, got, tt.want)
		}
	}
}

// EASYAI_COMMAND under the storage's log copy: what "easyai run" starts
// keeps its output in log_dir as the replica's own command would, and its
// exit code.
func TestTheRecordedCommandKeepsItsLog(t *testing.T) {
	k, _ := registry.Default().Lookup("tf")
	objs, err := render.Render(render.Request{Kind: k, Values: map[string]any{
		"name": "j", "image": "img", "command": []any{"sh", "-c", "echo ran; exit 3"},
		"storage":  map[string]any{"claim": "team", "jobDir": "j-1", "dataDir": "data/alice", "persistLogs": true},
		"devtools": map[string]any{"debug": map[string]any{"enabled": true}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := objs[0].Object["spec"].(map[string]any)["tfReplicaSpecs"].(map[string]any)["Worker"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	command := ""
	for _, e := range c["env"].([]any) {
		if m := e.(map[string]any); m["name"] == "EASYAI_COMMAND" {
			command = m["value"].(string)
		}
	}
	if !strings.Contains(command, "easyai-tee") {
		t.Fatalf("EASYAI_COMMAND %q: want the log copy around the command", command)
	}
	logDir := t.TempDir()
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(), "log_dir="+logDir, "EASYAI_TASK=worker-0")
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 || string(out) != "ran\n" {
		t.Errorf("got %v and %q, want exit 3 and the command's output", err, out)
	}
	if log, err := os.ReadFile(logDir + "/worker-0.log"); err != nil || string(log) != "ran\n" {
		t.Errorf("log_dir/worker-0.log: %q (%v), want the output", log, err)
	}
}

// lockedBuffer is an output the test reads while the process writes it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
