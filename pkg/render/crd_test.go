package render

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// crdSchema reads the openAPIV3Schema of a training-operator CRD from the
// module the project builds against (its manifests are in the module cache).
func crdSchema(t *testing.T, plural string) map[string]any {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/kubeflow/training-operator").Output()
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		t.Skipf("training-operator module not found: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "manifests", "base", "crds", "kubeflow.org_"+plural+".yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Skipf("CRD not found: %v", err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				}
			}
		}
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name == "v1" {
			return v.Schema.OpenAPIV3Schema
		}
	}
	t.Fatalf("%s: no v1 schema", file)
	return nil
}

// checkSchema lists where v breaks the structural schema s: fields it does
// not have (the API server would prune them), wrong types, missing required
// fields, values out of an enum.
func checkSchema(path string, v any, s map[string]any) []string {
	if path == ".metadata" {
		return nil // the API server checks an object's own metadata, not the CRD
	}
	if b, _ := s["x-kubernetes-int-or-string"].(bool); b {
		switch v.(type) {
		case int64, string:
			return nil
		}
		return []string{fmt.Sprintf("%s: %v is neither an integer nor a string", path, v)}
	}
	var problems []string
	if enum, ok := s["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			found = found || e == v
		}
		if !found {
			problems = append(problems, fmt.Sprintf("%s: %v is not one of %v", path, v, enum))
		}
	}
	switch s["type"] {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return append(problems, fmt.Sprintf("%s: %v is not an object", path, v))
		}
		props, _ := s["properties"].(map[string]any)
		additional, _ := s["additionalProperties"].(map[string]any)
		preserve, _ := s["x-kubernetes-preserve-unknown-fields"].(bool)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch sub, ok := props[k].(map[string]any); {
			case ok:
				problems = append(problems, checkSchema(path+"."+k, m[k], sub)...)
			case additional != nil:
				problems = append(problems, checkSchema(path+"."+k, m[k], additional)...)
			case !preserve:
				problems = append(problems, fmt.Sprintf("%s.%s: not in the schema", path, k))
			}
		}
		required, _ := s["required"].([]any)
		for _, r := range required {
			if _, ok := m[r.(string)]; !ok {
				problems = append(problems, fmt.Sprintf("%s.%s: required", path, r))
			}
		}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return append(problems, fmt.Sprintf("%s: %v is not an array", path, v))
		}
		items, _ := s["items"].(map[string]any)
		for i, item := range l {
			problems = append(problems, checkSchema(fmt.Sprintf("%s[%d]", path, i), item, items)...)
		}
	case "string":
		if _, ok := v.(string); !ok {
			problems = append(problems, fmt.Sprintf("%s: %v is not a string", path, v))
		}
	case "integer":
		if _, ok := v.(int64); !ok {
			problems = append(problems, fmt.Sprintf("%s: %v is not an integer", path, v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			problems = append(problems, fmt.Sprintf("%s: %v is not a boolean", path, v))
		}
	}
	return problems
}

// TestCRDAcceptsOutput: the golden cases' objects fit the training-operator's
// CRDs (what the API server checks before the operator's webhook).
func TestCRDAcceptsOutput(t *testing.T) {
	schemas := map[string]map[string]any{}
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			objs, err := Render(Request{Kind: c.kind, ValueFiles: valueFiles(t, c.valuesFile()), Set: []string{"runPolicy.gang=true"}})
			if err != nil {
				t.Fatal(err)
			}
			plural := c.kind.Resource().Resource
			if schemas[plural] == nil {
				schemas[plural] = crdSchema(t, plural)
			}
			for _, obj := range objs {
				for _, p := range checkSchema("", obj.Object, schemas[plural]) {
					t.Error(p)
				}
				// The check itself finds what the API server would drop.
				bad := obj.DeepCopy()
				bad.Object["spec"].(map[string]any)["runPolicy"].(map[string]any)["gangg"] = true
				if problems := checkSchema("", bad.Object, schemas[plural]); len(problems) != 1 || !strings.Contains(problems[0], ".spec.runPolicy.gangg: not in the schema") {
					t.Errorf("a misspelt field: %v", problems)
				}
			}
		})
	}
}
