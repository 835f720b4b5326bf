package trainjob

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// FuzzState: a TrainJob as the cluster holds it is input anyone with edit
// rights on it can shape; decoding it and reading its state never panics
// and always gives one of easyai's states.
func FuzzState(f *testing.F) {
	f.Add([]byte(`{"spec":{"trainer":{"numNodes":3}},"status":{"jobsStatus":[{"name":"node","ready":1}]}}`))
	f.Add([]byte(`{"status":{"conditions":[{"type":"Failed","status":"True","reason":"DeadlineExceeded"}]}}`))
	f.Add([]byte(`{"spec":{"suspend":true,"trainer":{"numNodes":-1}},"status":{"jobsStatus":[{"name":"node"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j := &TrainJob{}
		if json.Unmarshal(data, j) != nil {
			return
		}
		if st := State(j); !slices.Contains(jobmodel.States, st.State) {
			t.Fatalf("state %q", st.State)
		}
		_ = Nodes(j)
	})
}
