package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FuzzStatusOf: a JobFlow and jobs as anyone with edit rights in the
// namespace may write them never panic the status, and nothing of them
// reaches the terminal with a control character.
func FuzzStatusOf(f *testing.F) {
	f.Add(`{"metadata":{"name":"p","annotations":{"easyai.io/user":"al\u001b]52;c;x\u0007"}},"spec":{"flows":[{"name":"p-a"},{"name":"p-b\u001b[2J","dependsOn":{"targets":["p-a","p-\u0007"]}}]}}`,
		`{"metadata":{"name":"p-p-a","labels":{"volcano.sh/createdByJobTemplate":"ns.p-a"}},"status":{"state":{"phase":"Fa\u001biled","lastTransitionTime":"x"}}}`)
	f.Add(`{"spec":{"flows":[7,{"name":3},{"dependsOn":{"targets":"x"}}]}}`, `{"status":"x"}`)
	f.Fuzz(func(t *testing.T, flowJSON, jobJSON string) {
		flow := &unstructured.Unstructured{}
		if json.Unmarshal([]byte(flowJSON), &flow.Object) != nil || flow.Object == nil {
			return
		}
		job := unstructured.Unstructured{}
		if json.Unmarshal([]byte(jobJSON), &job.Object) != nil || job.Object == nil {
			return
		}
		st := statusOf(flow, []unstructured.Unstructured{job})
		out, _ := json.Marshal(st)
		var strs []string
		strs = append(strs, st.User, st.State, st.Reason)
		for _, s := range st.Steps {
			strs = append(strs, s.Name, s.Job, s.State, s.Reason)
			strs = append(strs, s.After...)
		}
		for _, s := range strs {
			if strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("a control character reaches the output: %q (%s)", s, out)
			}
		}
	})
}
