package kubeflow_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

// BenchmarkSummarizeJSON reads list's view of one TFJob as easyai renders
// it (the PS and workers golden file, with the request annotation and the
// status the operator writes): the cost list pays per job.
func BenchmarkSummarizeJSON(b *testing.B) {
	item, err := json.Marshal(listedTFJob(b))
	if err != nil {
		b.Fatal(err)
	}
	k := tfjob.New()
	if s, err := k.SummarizeJSON(item, "nvidia.com/gpu"); err != nil || s.Workers.Total != 3 || s.GPUs == 0 {
		b.Fatalf("summary %+v, %v", s, err)
	}
	b.SetBytes(int64(len(item)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.SummarizeJSON(item, "nvidia.com/gpu"); err != nil {
			b.Fatal(err)
		}
	}
}

// listedTFJob is a TFJob as the API server lists it after easyai submitted
// it: the PS and workers golden file, with the request annotation and the
// status the operator writes.
func listedTFJob(tb testing.TB) map[string]any {
	tb.Helper()
	data, err := os.ReadFile("../../render/testdata/tf-ps-workers.golden.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		tb.Fatal(err)
	}
	meta := obj["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
		meta["annotations"] = annotations
	}
	annotations["easyai.io/request"] = `{"image":"tensorflow/tensorflow:2.16.1","command":["python","train.py"],"env":` + strings.Repeat(`{"name":"X","value":"yyyyyyyyyyyyyyyy"},`, 40) + `{}}`
	meta["namespace"], meta["creationTimestamp"] = "team-a", "2026-11-25T10:00:00Z"
	obj["status"] = map[string]any{
		"conditions": []any{
			map[string]any{"type": "Created", "status": "True", "reason": "TFJobCreated", "message": "created", "lastTransitionTime": "2026-11-25T10:00:00Z", "lastUpdateTime": "2026-11-25T10:00:00Z"},
			map[string]any{"type": "Running", "status": "True", "reason": "TFJobRunning", "message": "running", "lastTransitionTime": "2026-11-25T10:00:05Z", "lastUpdateTime": "2026-11-25T10:00:05Z"},
		},
		"replicaStatuses": map[string]any{"PS": map[string]any{"active": 1}, "Worker": map[string]any{"active": 2}},
		"startTime":       "2026-11-25T10:00:01Z",
	}
	return obj
}
