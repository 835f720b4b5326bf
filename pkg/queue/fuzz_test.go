package queue

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FuzzObjects: a Queue or PodGroup as anyone with rights may have written
// it never panics, and what is read from it prints on one line once the
// command has made it one (messages may span lines).
func FuzzObjects(f *testing.F) {
	f.Add(`{"metadata":{"name":"q"},"spec":{"weight":2,"capability":{"nvidia.com/gpu":"2"}},"status":{"state":"Open","allocated":{"cpu":"1"}}}`)
	f.Add(`{"metadata":{"namespace":"a","name":"pg","ownerReferences":[{"kind":"Job","name":"j","controller":true}]},"spec":{"queue":"q","minResources":{"cpu":"x"}},"status":{"phase":"Pending","conditions":[{"type":"Unschedulable","status":"True","message":"a\nb"}]}}`)
	f.Add(`{"spec":{"capability":{"cpu":1e400}},"status":{"running":-1}}`)
	f.Fuzz(func(t *testing.T, data string) {
		var obj map[string]any
		if err := json.Unmarshal([]byte(data), &obj); err != nil || obj == nil {
			return
		}
		u := &unstructured.Unstructured{Object: obj}
		if q, err := queueOf(u); err == nil {
			for _, r := range []Resources{q.Capability, q.Allocated, q.Deserved, q.Guarantee} {
				for name := range r {
					_, _ = r.Quantity(name)
				}
			}
		}
		if pg, err := podGroupOf(u); err == nil && strings.ContainsAny(pg.Job, "\n") && !strings.Contains(data, `\n`) {
			t.Errorf("job %q has a newline the object did not", pg.Job)
		}
	})
}
