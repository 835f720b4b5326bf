package kinds

import (
	"encoding/json"
	"testing"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// TestAddGPUs: the GPUs of n pods are n times those of every container,
// requested or limited, added to what the summary counts already.
func TestAddGPUs(t *testing.T) {
	var template ListedTemplate
	if err := json.Unmarshal([]byte(`{"spec":{"containers":[{"resources":{"limits":{"nvidia.com/gpu":"2"}}},{"resources":{"requests":{"nvidia.com/gpu":"1"}}},{}]}}`), &template); err != nil {
		t.Fatal(err)
	}
	s := jobmodel.Summary{GPUs: 1}
	AddGPUs(&s, 3, template, "nvidia.com/gpu")
	if s.GPUs != 10 {
		t.Errorf("GPUs %v, want 1 + 3*(2+1) = 10", s.GPUs)
	}
	AddGPUs(&s, 3, template, "amd.com/gpu")
	if s.GPUs != 10 {
		t.Errorf("GPUs of another resource counted: %v", s.GPUs)
	}
}
