package submit

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/render"
)

func TestOvercommit(t *testing.T) {
	for _, tt := range []struct {
		limit string
		n     int
		cpu   bool
		want  string
	}{
		{"4", 4, true, "1"}, {"2", 4, true, "500m"}, {"1m", 8, true, "1m"}, {"16Gi", 4, false, "4Gi"}, {"1", 2, false, "1"},
	} {
		if got, err := Overcommit(tt.limit, tt.n, tt.cpu); err != nil || got != tt.want {
			t.Errorf("Overcommit(%s, %d) = %s, %v; want %s", tt.limit, tt.n, got, err, tt.want)
		}
	}
}

// requestsOf are the requests of the pods of role (TFJob replica type) in obj.
func requestsOf(t *testing.T, obj *unstructured.Unstructured, replicaType string) map[string]any {
	t.Helper()
	containers, _, _ := unstructured.NestedSlice(obj.Object, "spec", "tfReplicaSpecs", replicaType, "template", "spec", "containers")
	r, _, _ := unstructured.NestedMap(containers[0].(map[string]any), "resources", "requests")
	return r
}

func TestOversellRequestsBelowTheLimits(t *testing.T) {
	s, _ := storageSubmission(t, nil)
	s.Flags.CPU, s.Flags.Memory, s.Flags.GPUs, s.Flags.Oversell = "4", "16Gi", 1, 4
	// The ps role has a cpu limit of its own.
	s.JobFiles = []render.ValueFile{{Name: "ps.yaml", Data: []byte("roles:\n  ps:\n    replicas: 1\n    resources:\n      cpu: \"2\"\n      gpus: 0\n")}}
	changed := s.Flags.Changed
	s.Flags.Changed = func(f string) bool {
		return f == "oversell" || f == "cpu" || f == "memory" || f == "gpus" || changed(f)
	}
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r := requestsOf(t, res.Object, "Worker"); r["cpu"] != "1" || r["memory"] != "4Gi" || len(r) != 2 {
		t.Errorf("worker requests %v, want cpu 1, memory 4Gi and no GPU", r)
	}
	if r := requestsOf(t, res.Object, "PS"); r["cpu"] != "500m" || r["memory"] != "4Gi" {
		t.Errorf("ps requests %v, want cpu 500m (its own limit 2 / 4), memory 4Gi", r)
	}
}

func TestOversellNeedsALimit(t *testing.T) {
	for n, want := range map[int]string{0: "must be 1 or more", 3: "give --cpu or --memory"} {
		s, _ := storageSubmission(t, nil)
		s.Flags.Oversell = n
		changed := s.Flags.Changed
		s.Flags.Changed = func(f string) bool { return f == "oversell" || changed(f) }
		if _, err := s.Run(context.Background()); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), want) {
			t.Errorf("--oversell %d: %v, want exit 2 saying %s", n, err, want)
		}
	}
}

// TestPreemptible: --preemptible is the configuration's low PriorityClass;
// without one named, or with --priority too, exit 2.
func TestPreemptible(t *testing.T) {
	s, _ := storageSubmission(t, nil)
	s.Flags.Preemptible = true
	s.Settings.PriorityClass, s.Settings.Preemptible = "normal", "spot"
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"Worker"} {
		if got, _, _ := unstructured.NestedString(res.Object.Object, "spec", "tfReplicaSpecs", role, "template", "spec", "priorityClassName"); got != "spot" {
			t.Errorf("%s priorityClassName %q, want spot", role, got)
		}
	}

	s, _ = storageSubmission(t, nil)
	s.Flags.Preemptible = true
	if _, err := s.Run(context.Background()); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "names no low PriorityClass") ||
		!strings.Contains(exit.Hint(err), "easyai config set preemptible-priority-class") {
		t.Errorf("no preemptible class configured: %v (hint %q)", err, exit.Hint(err))
	}

	s, _ = storageSubmission(t, nil)
	s.Flags.Preemptible, s.Flags.Priority = true, "high"
	s.Settings.Preemptible = "spot"
	changed := s.Flags.Changed
	s.Flags.Changed = func(f string) bool { return f == "priority" || changed(f) }
	if _, err := s.Run(context.Background()); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--preemptible and --priority high: choose one") {
		t.Errorf("--preemptible --priority: %v", err)
	}
}

// TestOversellPatch: the requests of the job's limits and of each role's
// own, none for a role without a limit; nothing when nothing has one.
func TestOversellPatch(t *testing.T) {
	resolved := map[string]any{
		"resources": map[string]any{"cpu": "4", "gpus": 1},
		"tasks": map[string]any{
			"worker": map[string]any{"resources": map[string]any{"memory": "8Gi"}},
			"ps":     map[string]any{"replicas": 1},
		},
	}
	got, err := oversellPatch(resolved, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"resources": map[string]any{"requests": map[string]any{"cpu": "2"}},
		"tasks":     map[string]any{"worker": map[string]any{"resources": map[string]any{"requests": map[string]any{"memory": "4Gi"}}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("patch %v, want %v", got, want)
	}
	if got, err := oversellPatch(map[string]any{"resources": map[string]any{"gpus": 1}}, 2); err != nil || len(got) != 0 {
		t.Errorf("no limit: patch %v, %v", got, err)
	}
	if _, err := oversellPatch(map[string]any{"resources": map[string]any{"cpu": "lots"}}, 2); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `resources.cpu "lots"`) {
		t.Errorf("a bad limit: %v", err)
	}
}
