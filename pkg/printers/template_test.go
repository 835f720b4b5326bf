package printers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
)

type doc struct {
	Name   string `json:"name"`
	Status struct {
		State string `json:"state"`
	} `json:"status"`
	Items []map[string]any `json:"items"`
}

func TestTemplates(t *testing.T) {
	d := doc{Name: "mnist"}
	d.Status.State = "Running"
	d.Items = []map[string]any{{"name": "a"}, {"name": "b"}}
	file := filepath.Join(t.TempDir(), "t.tmpl")
	if err := os.WriteFile(file, []byte(`{{.name}}={{.status.state}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for output, want := range map[string]string{
		"jsonpath={.status.state}":                      "Running",
		"jsonpath=.status.state":                        "Running",
		`jsonpath={range .items[*]}{.name}{"\n"}{end}`:  "a\nb\n",
		"jsonpath={.status.missing}":                    "",
		"go-template={{.name}} is {{.status.state}}":    "mnist is Running",
		"go-template-file=" + file:                      "mnist=Running",
		`go-template={{range .items}}{{.name}},{{end}}`: "a,b,",
	} {
		tmpl, err := ParseTemplate(output)
		if err != nil || tmpl == nil {
			t.Errorf("%s: %v", output, err)
			continue
		}
		var b strings.Builder
		if err := tmpl.Print(&b, d); err != nil {
			t.Errorf("%s: %v", output, err)
		} else if b.String() != want {
			t.Errorf("%s printed %q, want %q", output, b.String(), want)
		}
	}
	for _, output := range []string{"json", "yaml", "wide", "custom-columns=X"} {
		if tmpl, err := ParseTemplate(output); tmpl != nil || err != nil {
			t.Errorf("%s is not a template output: %v, %v", output, tmpl, err)
		}
	}
	for _, output := range []string{"jsonpath={.status", "go-template={{.name", "jsonpath=", "jsonpath-file=/nonexistent", "go-template-file=/dev/zero"} {
		if _, err := ParseTemplate(output); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "-o "+output) {
			t.Errorf("%s: %v, want a usage error naming it", output, err)
		}
	}
}
