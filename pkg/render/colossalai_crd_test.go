package render

import (
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/kinds/colossalai"
)

// TestColossalAIJobFitsTheTestCRD: the T9k golden case fits the project's
// own ColossalAIJob CRD (test/e2e/testdata; T9k's is not public), which the
// e2e test also installs and validates server-side dry runs with.
func TestColossalAIJobFitsTheTestCRD(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "test", "e2e", "testdata", "colossalai-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				}
			}
		}
	}
	if err := yaml.Unmarshal(data, &crd); err != nil || len(crd.Spec.Versions) != 1 {
		t.Fatalf("the test CRD: %v", err)
	}
	schema := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	for _, set := range [][]string{nil, {"debug=false", "torchArgs=null", "runPolicy.queue="}} {
		objs, err := Render(Request{Kind: colossalai.New(), ValueFiles: valueFiles(t, filepath.Join("testdata", "colossalai-t9k.values.yaml")), Set: set})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range checkSchema("", objs[0].Object, schema) {
			t.Errorf("%v: %s", set, p)
		}
	}
}
