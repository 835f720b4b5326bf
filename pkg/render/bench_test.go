package render

import (
	"testing"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
	"github.com/easyai-dev/easyai/pkg/kinds/volcano"
)

// BenchmarkRender1000Workers is the render path of "submit --dry-run=client"
// for a job of 1,000 workers: the chart loaded (once per process, as submit
// does) and rendered with the values of the flags. The target is at most
// 50 ms per render (docs/benchmarks.md).
func BenchmarkRender1000Workers(b *testing.B) {
	workers := map[string]any{"worker": map[string]any{"replicas": 1000, "resources": map[string]any{"gpus": 8, "cpu": "32", "memory": "256Gi"}}}
	for _, c := range []struct {
		kind  kinds.Kind
		roles string
	}{{tfjob.New(), "roles"}, {volcano.New(), "tasks"}} {
		k := c.kind
		b.Run(k.Name(), func(b *testing.B) {
			values := map[string]any{"name": "big", "image": "example.com/train:1", "command": []any{"python", "train.py"}, c.roles: workers}
			b.ReportAllocs()
			for b.Loop() {
				objs, err := Render(Request{Kind: k, Values: values})
				if err != nil || len(objs) != 1 {
					b.Fatalf("%d objects, %v", len(objs), err)
				}
			}
		})
	}
}
