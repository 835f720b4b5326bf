package kueue

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FuzzAdmissions: Workloads, LocalQueues and ClusterQueues are objects of
// the cluster, anyone's with edit rights in the namespace to write (or
// Kueue's, in a version easyai has not seen). Whatever they hold, reading
// them never panics, and what list and get print of them stays one line
// with no control characters.
func FuzzAdmissions(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"w","labels":{"kueue.x-k8s.io/job-uid":"u"}},"spec":{"queueName":"lq","priority":5,"podSets":[{"count":3,"template":{"spec":{"containers":[{"name":"c","resources":{"requests":{"nvidia.com/gpu":"2"}}}]}}}]},"status":{"conditions":[{"type":"QuotaReserved","status":"False","reason":"Pending","message":"couldn't assign flavors to pod set w: insufficient unused quota for nvidia.com/gpu in flavor a\u001b[31m100, 9Ei more needed","lastTransitionTime":"2026-11-27T10:00:00Z"}]}}`))
	f.Add([]byte(`{"metadata":{"name":"w"},"spec":{"queueName":"l\nq","podSets":[{"count":-1}]},"status":{"admission":{"clusterQueue":"c\rq","podSetAssignments":[{"flavors":{"cpu":"x\ty"}}]},"conditions":[{"type":"Admitted","status":"True"},{"type":"Preempted","status":"True","message":"JobUID: u) due to \u0007"}]}}`))
	f.Add([]byte(`{"spec":{"clusterQueue":"x","resourceGroups":[{"flavors":[{"name":"a\n","resources":[{"name":"g","nominalQuota":"1e30","borrowingLimit":-3}]}]}]},"status":{"flavorsUsage":[{"name":"a","resources":[{"name":"g\u001b","total":"5"}]}]}}`))
	f.Add([]byte(`{"spec":{"podSets":[{"count":2147483647,"template":{"spec":{"containers":[{"resources":{"requests":{"nvidia.com/gpu":"8Ei"}}}]}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var obj map[string]any
		if json.Unmarshal(data, &obj) != nil {
			return
		}
		u := &unstructured.Unstructured{Object: obj}
		var shown []string
		if w, err := WorkloadOf(u); err == nil {
			for _, a := range Admissions([]Workload{w, w}, nil) {
				shown = append(shown, a.String())
			}
		}
		if q, err := LocalQueueOf(u); err == nil {
			shown = append(shown, q.ClusterQueue, q.Reason)
			for f, rs := range q.Usage {
				shown = append(shown, f)
				for r, v := range rs {
					shown = append(shown, r, v)
				}
			}
		}
		if q, err := ClusterQueueOf(u); err == nil {
			shown = append(shown, q.Cohort, q.QueueingStrategy, strings.Join(q.Flavors, " "))
		}
		for _, s := range shown {
			if strings.ContainsAny(s, "\n\r\x1b\x07\t") {
				t.Errorf("control character in %q", s)
			}
		}
	})
}
