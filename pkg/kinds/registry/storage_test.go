package registry_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// TestChartMountsAreTheLayout: every kind, as each kind it renders as,
// mounts the storage's directories where pkg/storage says they are (which
// download, logs and upload read back), with the same environment
// variables; and rendering a job with storage twice gives the same
// object.
func TestChartMountsAreTheLayout(t *testing.T) {
	v := storage.Values{
		Spec:   storage.Spec{Claim: "team", Prefix: "teams/vision"},
		JobDir: "minimal-x7k2b", DataDir: "data/alice", PreJobDir: "old-b2c4d", PersistLogs: true,
	}
	want := map[string]string{}
	for _, d := range v.Dirs() {
		sub := v.OnVolume(strings.ReplaceAll(d.SubPath, storage.Task, "$(EASYAI_TASK)"))
		want[d.MountPath] = fmt.Sprintf("%s ro=%v", sub, d.ReadOnly)
	}
	reg := registry.Default()
	for _, k := range reg.Submittable() {
		t.Run(k.Name(), func(t *testing.T) {
			for _, variant := range variantsOf(t, k) {
				values := submitValues(t, k)
				values["storage"] = map[string]any{
					"claim": v.Claim, "prefix": v.Prefix, "jobDir": v.JobDir, "dataDir": v.DataDir, "preJobDir": v.PreJobDir, "persistLogs": true,
				}
				objs, err := render.Render(render.Request{Kind: variant.kind, Values: values})
				if err != nil {
					t.Fatalf("chart %s: %v", variant.chart, err)
				}
				var mounts []map[string]any
				var env []string
				walk(objs[0].Object, func(key string, value any) {
					switch key {
					case "volumeMounts":
						for _, m := range value.([]any) {
							if mm := m.(map[string]any); mm["name"] == "easyai-storage" {
								mounts = append(mounts, mm)
							}
						}
					case "env":
						for _, e := range value.([]any) {
							env = append(env, e.(map[string]any)["name"].(string))
						}
					}
				})
				if len(mounts) == 0 {
					t.Fatalf("chart %s: no mount of the storage", variant.chart)
				}
				for _, m := range mounts {
					sub, _ := m["subPath"].(string)
					if expr, ok := m["subPathExpr"].(string); ok {
						sub = expr
					}
					ro, _ := m["readOnly"].(bool)
					mp := m["mountPath"].(string)
					if got := fmt.Sprintf("%s ro=%v", sub, ro); want[mp] != got {
						t.Errorf("chart %s: %s mounts %s, pkg/storage says %s", variant.chart, mp, got, want[mp])
					}
				}
				for _, d := range v.Dirs() {
					if !slices.Contains(env, d.Env) {
						t.Errorf("chart %s: no environment variable %s", variant.chart, d.Env)
					}
				}
				if !slices.Contains(env, "EASYAI_TASK") {
					t.Errorf("chart %s: no EASYAI_TASK, which the summary_dir and the persisted log are named after", variant.chart)
				}
			}
		})
	}
}

// walk calls f with every key and value of a decoded object, depth first.
func walk(v any, f func(key string, value any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			f(k, val)
			walk(val, f)
		}
	case []any:
		for _, val := range x {
			walk(val, f)
		}
	}
}
