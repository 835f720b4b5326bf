package pipeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"sigs.k8s.io/yaml"
)

// TestSchema: the pipeline files of examples/ are valid by the JSON Schema
// of docs/, and what the schema refuses Parse or Validate refuses too.
func TestSchema(t *testing.T) {
	schemaData, err := os.ReadFile("../../docs/pipeline.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaData))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("pipeline.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("pipeline.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, data []byte) error {
		j, err := yaml.YAMLToJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
		if err != nil {
			t.Fatal(err)
		}
		return schema.Validate(v)
	}
	files, _ := filepath.Glob("../../examples/*/pipeline.yaml")
	if len(files) == 0 {
		t.Fatal("no examples/*/pipeline.yaml")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := check(path, data); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		f, err := Parse(path, data)
		if err == nil {
			err = f.Validate(path)
		}
		if err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	for _, bad := range []string{
		"name: p\nsteps: [{name: a}]\n",
		"name: p\nsteps: [{name: a, file: a.yaml, job: {kind: volcano}}]\n",
		"name: P\nsteps: [{name: a, file: a.yaml}]\n",
		"name: p\nsteps: [{name: a, file: a.yaml, stpe: 1}]\n",
		"name: p\nsteps: [{name: a, job: {kind: trainjob}}]\n",
	} {
		if err := check("bad", []byte(bad)); err == nil {
			t.Errorf("the schema takes %q", bad)
		}
	}
}
