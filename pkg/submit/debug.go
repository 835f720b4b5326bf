package submit

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// taskName is a replica's name as --debug-task takes it: ROLE-INDEX.
var taskName = regexp.MustCompile(`^([a-z][a-z0-9]*(?:-[a-z0-9]+)*)-([0-9]+)$`)

// debugValues are --debug, --debug-task and --debug-timeout as the
// "devtools.debug" value. --debug-task implies --debug.
func (f *Flags) debugValues() (map[string]any, error) {
	d := f.Devtools
	v := map[string]any{}
	if f.Changed("debug") {
		v["enabled"] = d.Debug
	}
	if f.Changed("debug-task") {
		tasks := make([]any, 0, len(d.DebugTasks))
		for _, t := range d.DebugTasks {
			if !taskName.MatchString(t) {
				return nil, exit.UsageErrorf("--debug-task %q: not a replica's name, ROLE-INDEX such as worker-0", t)
			}
			tasks = append(tasks, t)
		}
		v["tasks"] = tasks
		v["enabled"] = true
	}
	if f.Changed("debug-timeout") {
		if d.DebugTimeout < time.Second {
			return nil, exit.UsageErrorf("--debug-timeout %s: must be 1s or more", d.DebugTimeout)
		}
		v["timeoutSeconds"] = int64(d.DebugTimeout / time.Second)
	}
	if len(v) == 0 {
		return nil, nil
	}
	return map[string]any{"debug": v}, nil
}

// fillDebug labels a job in debug mode (get and list show DEBUG) and checks
// that the replicas --debug-task names are the job's.
func (s *Submission) fillDebug(ctx context.Context, req *Request) error {
	resolved, err := req.Resolved()
	if err != nil {
		return err
	}
	devtools, _ := resolved["devtools"].(map[string]any)
	debug, _ := devtools["debug"].(map[string]any)
	if debug["enabled"] != true {
		return nil
	}
	if req.Labels == nil {
		req.Labels = map[string]string{}
	}
	req.Labels[jobmodel.DebugLabel] = "true"
	tasks, _ := debug["tasks"].([]any)
	valid := replicaNames(resolved)
	if valid == nil {
		return nil
	}
	for _, t := range tasks {
		name := fmt.Sprint(t)
		if !valid[name] {
			names := make([]string, 0, len(valid))
			for n := range valid {
				names = append(names, n)
			}
			sort.Strings(names)
			return exit.UsageErrorf("--debug-task %s: the job has no such replica (its replicas: %s)", name, strings.Join(names, ", "))
		}
	}
	return nil
}

// replicaNames are the replicas the values ask for, by ROLE-INDEX (nil when
// the values name no roles: a TrainJob's nodes).
func replicaNames(values map[string]any) map[string]bool {
	roles := rolesOf(values)
	if roles == nil {
		if n, ok := number(values["nodes"]); ok {
			out := map[string]bool{}
			for i := int64(0); i < int64(n); i++ {
				out["node-"+strconv.FormatInt(i, 10)] = true
			}
			return out
		}
		return nil
	}
	out := map[string]bool{}
	for role, r := range roles {
		m, _ := r.(map[string]any)
		n, _ := number(m["replicas"])
		for i := int64(0); i < int64(n); i++ {
			out[role+"-"+strconv.FormatInt(i, 10)] = true
		}
	}
	return out
}

// rolesOf are the roles of the values by name: "roles" (the
// training-operator's kinds) or "tasks" (Volcano's); nil when they have
// neither (a TrainJob's nodes).
func rolesOf(values map[string]any) map[string]any {
	for _, key := range []string{"roles", "tasks"} {
		if r, ok := values[key].(map[string]any); ok {
			return r
		}
	}
	return nil
}
