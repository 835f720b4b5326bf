package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// A chart's values.schema.json is checked against the values the chart
// renders with, and each subchart's against its table of them, as Helm
// checks them. The schemas are JSON Schema draft-07 or 2020-12 (draft-06
// is read as draft-07, which only adds to it); a $ref reaches only inside
// the schema: easyai fetches nothing a chart points at.

// schemaDrafts maps the $schema spellings easyai reads to the ones the
// validator knows; a draft not here is refused.
var schemaDrafts = map[string]string{
	"":                               "",
	"http://json-schema.org/schema":  draft2020,
	"https://json-schema.org/schema": draft2020,
	"https://json-schema.org/draft/2020-12/schema": draft2020,
	"http://json-schema.org/draft/2020-12/schema":  draft2020,
	"http://json-schema.org/draft-07/schema":       draft07,
	"https://json-schema.org/draft-07/schema":      draft07,
	"http://json-schema.org/draft-06/schema":       draft07,
	"https://json-schema.org/draft-06/schema":      draft07,
}

const (
	draft07   = "http://json-schema.org/draft-07/schema#"
	draft2020 = "https://json-schema.org/draft/2020-12/schema"
)

// checkSchemas checks vals against c's schema, and each subchart's table of
// vals against the subchart's, all the way down; the error names every
// chart whose values fail and why.
func checkSchemas(c *chart.Chart, vals map[string]any) error {
	var failures []string
	collectSchemaFailures(c, vals, &failures)
	if len(failures) > 0 {
		return errors.New("the values do not meet the schema: " + strings.Join(failures, "; "))
	}
	return nil
}

func collectSchemaFailures(c *chart.Chart, vals map[string]any, failures *[]string) {
	if len(c.Schema) > 0 {
		if err := checkValuesSchema(c.Schema, vals); err != nil {
			msg := strings.TrimPrefix(err.Error(), "validating root: ")
			*failures = append(*failures, fmt.Sprintf("chart %s's values.schema.json: %s", c.Name(), msg))
		}
	}
	for _, sub := range c.Dependencies() {
		v, ok := vals[sub.Name()]
		if !ok || v == nil {
			continue
		}
		t, ok := asTable(v)
		if !ok {
			*failures = append(*failures, fmt.Sprintf("chart %s's values are a %s, not a table", sub.Name(), describe(v)))
			continue
		}
		collectSchemaFailures(sub, t, failures)
	}
}

// checkValuesSchema checks vals against one schema document.
func checkValuesSchema(doc []byte, vals map[string]any) error {
	var head struct {
		Schema string `json:"$schema"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	draft, ok := schemaDrafts[strings.TrimSuffix(head.Schema, "#")]
	if !ok {
		return fmt.Errorf("$schema %q: easyai checks draft-07 and 2020-12 schemas only (draft-06 is read as draft-07)", head.Schema)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(doc, &schema); err != nil {
		return fmt.Errorf("not a JSON Schema: %v", err)
	}
	schema.Schema = draft
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return fmt.Errorf("not a JSON Schema easyai can use: %v", err)
	}
	// The validator takes JSON values: numbers as float64, as a JSON
	// document read whole would have them (--set gives int64).
	data, err := json.Marshal(vals)
	if err != nil {
		return err
	}
	var instance any
	if err := json.Unmarshal(data, &instance); err != nil {
		return err
	}
	return resolved.Validate(instance)
}
