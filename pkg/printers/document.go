package printers

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// JSON writes v as indented JSON and a newline.
func JSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// YAML writes v as YAML, through its JSON form so the keys are the JSON tags.
func YAML(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if data, err = yaml.JSONToYAML(data); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}
