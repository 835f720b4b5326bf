package render

import (
	"strings"
	"testing"

	helmutil "helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// TestSchemasMatchHelm: values pass or fail a chart's schemas as they do in
// Helm, for the drafts easyai reads.
func TestSchemasMatchHelm(t *testing.T) {
	const workers = `{
  "$schema": "%s",
  "type": "object",
  "required": ["workers"],
  "properties": {
    "workers": {"type": "integer", "minimum": 1},
    "image": {"type": "string", "pattern": "^[a-z]"},
    "mode": {"enum": ["ps", "allreduce"]},
    "roles": {"type": "object", "additionalProperties": {"$ref": "#/definitions/role"}}
  },
  "definitions": {"role": {"type": "object", "properties": {"replicas": {"type": "integer"}}, "required": ["replicas"]}}
}`
	const sub = `{"type": "object", "properties": {"port": {"type": "integer", "maximum": 65535}}}`
	drafts := []string{"http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema#", "https://json-schema.org/draft/2020-12/schema", ""}
	values := []struct {
		name string
		vals map[string]any
	}{
		{"valid", map[string]any{"workers": int64(2), "image": "tf", "mode": "ps", "roles": map[string]any{"worker": map[string]any{"replicas": 2.0}}, "sub": map[string]any{"port": 80}}},
		{"a whole float is an integer", map[string]any{"workers": 3.0}},
		{"missing required", map[string]any{"image": "tf"}},
		{"wrong type", map[string]any{"workers": "2"}},
		{"below the minimum", map[string]any{"workers": int64(0)}},
		{"pattern", map[string]any{"workers": 1, "image": "TF"}},
		{"enum", map[string]any{"workers": 1, "mode": "other"}},
		{"through a $ref", map[string]any{"workers": 1, "roles": map[string]any{"worker": map[string]any{}}}},
		{"the subchart's schema", map[string]any{"workers": 1, "sub": map[string]any{"port": 70000}}},
		{"the subchart's values not a table", map[string]any{"workers": 1, "sub": "x"}},
	}
	for _, draft := range drafts {
		for _, v := range values {
			t.Run(draft+"/"+v.name, func(t *testing.T) {
				build := func() *chart.Chart {
					c := &chart.Chart{Metadata: &chart.Metadata{Name: "job", Version: "0.1.0", APIVersion: "v2"}, Schema: []byte(strings.Replace(workers, "%s", draft, 1))}
					if draft == "" {
						c.Schema = []byte(strings.Replace(workers, `"$schema": "",`, "", 1))
					}
					c.AddDependency(&chart.Chart{Metadata: &chart.Metadata{Name: "sub", Version: "0.1.0", APIVersion: "v2"}, Schema: []byte(sub)})
					return c
				}
				helmErr := helmutil.ValidateAgainstSchema(build(), copyValue(v.vals).(map[string]any))
				err := checkSchemas(build(), copyValue(v.vals).(map[string]any))
				if (helmErr != nil) != (err != nil) {
					t.Fatalf("Helm: %v; easyai: %v", helmErr, err)
				}
				if err != nil && !strings.Contains(err.Error(), "chart ") {
					t.Errorf("the error names no chart: %v", err)
				}
			})
		}
	}
}

// TestSchemasRefused: what easyai does not check is an error that says why,
// not a pass: drafts it does not read, references outside the schema (it
// fetches nothing), a schema that is not JSON.
func TestSchemasRefused(t *testing.T) {
	for _, tt := range []struct{ name, schema, want string }{
		{"draft-04", `{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}`, "draft-07 and 2020-12"},
		{"2019-09", `{"$schema": "https://json-schema.org/draft/2019-09/schema", "type": "object"}`, "draft-07 and 2020-12"},
		{"a remote $ref", `{"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}`, "remote"},
		{"a file $ref", `{"type": "object", "properties": {"a": {"$ref": "file:///etc/passwd"}}}`, "remote"},
		{"not JSON", `{"type": `, "not JSON"},
		{"not a schema", `{"type": 5}`, "not a JSON Schema"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &chart.Chart{Metadata: &chart.Metadata{Name: "job", Version: "0.1.0", APIVersion: "v2"}, Schema: []byte(tt.schema)}
			err := checkSchemas(c, map[string]any{"a": 1})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
