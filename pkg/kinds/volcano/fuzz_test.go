package volcano_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
	"github.com/easyai-dev/easyai/pkg/kinds/volcano"
)

// fuzzFlag parses the kind's flags with fixed args and flag=value; it must
// never panic, and a bad value is a usage error naming it.
func fuzzFlag(t *testing.T, flag, value string, fixed ...string) map[string]any {
	t.Helper()
	v, _, err := kindstest.SubmitValues(t, volcano.New(), append(fixed, flag+"="+value)...)
	if err != nil {
		msg := err.Error()
		if exit.Code(err) != exit.Usage || !strings.Contains(msg, flag) || !(strings.Contains(msg, strconv.Quote(value)) || strings.Contains(msg, value)) {
			t.Fatalf("%s %q: exit %d, %v; want a usage error naming the flag and the value", flag, value, exit.Code(err), err)
		}
		return nil
	}
	return v
}

// FuzzTaskFlag is submit volcano --task NAME=REPLICAS.
func FuzzTaskFlag(f *testing.F) {
	for _, seed := range []string{"master=1", "worker=3", "worker", "Worker=2", "worker=-1", "worker=", "=1", "a=b=c",
		"worker=0x10", "worker=+1", "worker=9223372036854775808", "worker=2147483648", strings.Repeat("a", 64) + "=1", "worker=1\n", "\xff=1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		v := fuzzFlag(t, "--task", value)
		if v == nil {
			return
		}
		name, _, _ := strings.Cut(value, "=")
		tasks, _ := v["tasks"].(map[string]any)
		task, ok := tasks[name].(map[string]any)
		if !ok {
			t.Fatalf("--task %q: values %v have no task %q", value, v, name)
		}
		if n, _ := task["replicas"].(int); n < 0 || n > math.MaxInt32 {
			t.Fatalf("--task %q: %d replicas, which the job's int32 field cannot hold", value, n)
		}
	})
}

// FuzzPolicyFlag is submit volcano --policy EVENT=ACTION.
func FuzzPolicyFlag(f *testing.F) {
	for _, seed := range []string{"podfailed=restartjob", "TaskCompleted=CompleteJob", "PodFailed", "PodCrashed=RestartJob",
		"PodFailed=Reboot", "PodFailed=RestartTask", "*=AbortJob", "=", "PodFailed==RestartJob", "podfailed=RESTARTJOB\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if v := fuzzFlag(t, "--policy", value); v != nil {
			if _, ok := v["policies"].([]any); !ok {
				t.Fatalf("--policy %q: values %v have no policies", value, v)
			}
		}
	})
}

// FuzzTaskPolicyFlag is submit volcano --task-policy TASK:EVENT=ACTION, with
// tasks master and worker.
func FuzzTaskPolicyFlag(f *testing.F) {
	for _, seed := range []string{"master:TaskCompleted=CompleteJob", "worker:PodFailed=RestartTask", "worker:PodEvicted=RestartTask",
		"master:PodFailed", "PodFailed=RestartTask", ":PodFailed=RestartJob", "ps:PodFailed=RestartTask", "master:*=AbortJob",
		"master:PodFailed=RestartTask:x", "master::=", "worker:podfailed=restarttask"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, value string) {
		v := fuzzFlag(t, "--task-policy", value, "--task", "master=1", "--task", "worker=2")
		if v == nil {
			return
		}
		task, _, _ := strings.Cut(value, ":")
		tasks, _ := v["tasks"].(map[string]any)
		tv, _ := tasks[task].(map[string]any)
		if _, ok := tv["policies"].([]any); !ok {
			t.Fatalf("--task-policy %q: task %q has no policies in %v", value, task, v)
		}
	})
}
