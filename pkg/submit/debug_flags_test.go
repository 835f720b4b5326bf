package submit

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

func TestDebugFlagsMakeValues(t *testing.T) {
	for _, tt := range []struct {
		name    string
		flags   DevtoolsFlags
		changed []string
		want    map[string]any
	}{
		{"none", DevtoolsFlags{DebugTimeout: 8 * time.Hour}, nil, nil},
		{"debug", DevtoolsFlags{Debug: true}, []string{"debug"}, map[string]any{"enabled": true}},
		{"task implies debug", DevtoolsFlags{DebugTasks: []string{"worker-1", "ps-0"}}, []string{"debug-task"},
			map[string]any{"enabled": true, "tasks": []any{"worker-1", "ps-0"}}},
		{"timeout", DevtoolsFlags{Debug: true, DebugTimeout: 2 * time.Hour}, []string{"debug", "debug-timeout"},
			map[string]any{"enabled": true, "timeoutSeconds": int64(7200)}},
		{"a role with a dash", DevtoolsFlags{DebugTasks: []string{"dataset-initializer-0"}}, []string{"debug-task"},
			map[string]any{"enabled": true, "tasks": []any{"dataset-initializer-0"}}},
	} {
		f := Flags{Devtools: tt.flags, Changed: changedOnly(tt.changed...)}
		got, err := f.debugValues()
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var want map[string]any
		if tt.want != nil {
			want = map[string]any{"debug": tt.want}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: values %#v, want %#v", tt.name, got, want)
		}
	}
}

func TestBadDebugFlagsNameTheFlag(t *testing.T) {
	for _, tt := range []struct {
		flags   DevtoolsFlags
		changed string
		want    string
	}{
		{DevtoolsFlags{DebugTasks: []string{"nope"}}, "debug-task", `--debug-task "nope"`},
		{DevtoolsFlags{DebugTasks: []string{"Worker-0"}}, "debug-task", `--debug-task "Worker-0"`},
		{DevtoolsFlags{DebugTasks: []string{"worker-0;id"}}, "debug-task", `--debug-task "worker-0;id"`},
		{DevtoolsFlags{DebugTimeout: 0}, "debug-timeout", "--debug-timeout 0s"},
		{DevtoolsFlags{DebugTimeout: 500 * time.Millisecond}, "debug-timeout", "--debug-timeout 500ms"},
	} {
		f := Flags{Devtools: tt.flags, Changed: changedOnly(tt.changed)}
		_, err := f.debugValues()
		if exit.Code(err) != exit.Usage || err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want exit 2 naming %s", tt.flags, err, tt.want)
		}
	}
}

// debugSubmission is a tf submission (one worker: the kind's flags, which
// make --workers the roles, are not set here) with the debug flags.
func debugSubmission(t *testing.T, d DevtoolsFlags, changed ...string) *Submission {
	t.Helper()
	s, _ := storageSubmission(t, nil)
	s.Flags.Devtools = d
	s.Flags.Changed = changedOnly(append(changed, "image", "command", "workers")...)
	return s
}

func TestADebuggedJobIsLabelled(t *testing.T) {
	res, err := debugSubmission(t, DevtoolsFlags{DebugTasks: []string{"worker-0"}}, "debug-task").Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Object.GetLabels()[jobmodel.DebugLabel]; got != "true" {
		t.Errorf("label %s = %q, want true", jobmodel.DebugLabel, got)
	}
	res, err = debugSubmission(t, DevtoolsFlags{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Object.GetLabels()[jobmodel.DebugLabel]; ok {
		t.Errorf("a job not in debug mode has the %s label", jobmodel.DebugLabel)
	}
}

func TestDebugTaskOfAReplicaTheJobHasNot(t *testing.T) {
	for _, task := range []string{"worker-1", "ps-0"} {
		_, err := debugSubmission(t, DevtoolsFlags{DebugTasks: []string{task}}, "debug-task").Run(context.Background())
		if exit.Code(err) != exit.Usage || err == nil || !strings.Contains(err.Error(), "--debug-task "+task+": the job has no such replica (its replicas: worker-0)") {
			t.Errorf("--debug-task %s: %v, want exit 2 listing worker-0", task, err)
		}
	}
}
