package jobclient

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// FuzzRequestAnnotation reads any easyai.io/request annotation, as get
// does to show what a job runs: whatever anyone who may edit the job wrote
// there, it never panics, a request that cannot be read is an error and no
// request, and the pod template's image stands in for a missing one.
func FuzzRequestAnnotation(f *testing.F) {
	for _, seed := range []string{
		`{"image":"pt:2","command":["python","train.py"],"workers":2}`, `{"image":"pt:2","command":"python train.py"}`,
		`{"image":7,"command":[1,null,{"a":"b"},"x"]}`, `{"command":[]}`, `{"image":""}`, `null`, `[]`, `"x"`, `{`, ``,
		`{"image":"a","command":{"0":"x"}}`, `{"image":["a"]}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"spec": map[string]any{"pytorchReplicaSpecs": map[string]any{"Master": map[string]any{
				"template": map[string]any{"spec": map[string]any{"containers": []any{
					map[string]any{"name": "pytorch", "image": "from-template:1", "command": []any{"sh"}},
				}}},
			}}},
		}}
		obj.SetAnnotations(map[string]string{jobmodel.RequestAnnotation: raw})
		var req map[string]any
		if _, err := jobmodel.ReadRequest(obj.GetAnnotations(), &req); err != nil {
			req = nil
		}
		image, _ := whatItRuns(nil, req, obj, []jobmodel.Replica{{Role: "master", Task: "master-0"}})
		if image == "" {
			t.Fatalf("%q: no image, not even the template's", raw)
		}
	})
}
