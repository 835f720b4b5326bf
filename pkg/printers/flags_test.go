package printers_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/printers"
)

func TestPrintFlags(t *testing.T) {
	doc := map[string]any{"status": map[string]any{"state": "Running"}}
	for _, tc := range []struct {
		output, want string
		format       printers.Format
	}{
		{"", "", printers.FormatDefault},
		{"wide", "", printers.FormatWide},
		{"json", "{\n  \"status\": {\n    \"state\": \"Running\"\n  }\n}\n", printers.FormatJSON},
		{"yaml", "status:\n  state: Running\n", printers.FormatYAML},
		{"jsonpath={.status.state}", "Running", printers.FormatTemplate},
		{"go-template={{.status.state}}", "Running", printers.FormatTemplate},
	} {
		p := printers.NewPrintFlags("a table", printers.FormatWide, printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)
		p.WithOutput(tc.output)
		if err := p.Validate(); err != nil {
			t.Fatalf("-o %q: %v", tc.output, err)
		}
		if p.Format() != tc.format || p.IsDocument() != (tc.want != "") || (p.Document() == nil) == p.IsDocument() {
			t.Errorf("-o %q: format %q, document %v", tc.output, p.Format(), p.IsDocument())
		}
		if !p.IsDocument() {
			continue
		}
		var out bytes.Buffer
		if err := p.PrintDocument(&out, doc); err != nil || out.String() != tc.want {
			t.Errorf("-o %q printed %q (%v), want %q", tc.output, out.String(), err, tc.want)
		}
	}
}

// A format the command does not offer is a usage error naming every one it
// does; a broken template is one too.
func TestPrintFlagsRefuse(t *testing.T) {
	p := printers.NewPrintFlags("", printers.FormatJSON, printers.FormatName).WithOutput("yaml")
	err := p.Validate()
	if exit.Code(err) != exit.Usage || err.Error() != `-o "yaml": must be one of json, name` {
		t.Errorf("%v", err)
	}
	p = printers.NewPrintFlags("", printers.FormatJSON).WithOutput("jsonpath={.x}")
	if err := p.Validate(); exit.Code(err) != exit.Usage {
		t.Errorf("a template where none is offered: %v", err)
	}
	p = printers.NewPrintFlags("", printers.FormatTemplate).WithOutput("go-template={{.x")
	if err := p.Validate(); exit.Code(err) != exit.Usage {
		t.Errorf("a broken template: %v", err)
	}
}

func TestPrintFlagsHelpAndDefault(t *testing.T) {
	cmd := &cobra.Command{Use: "x"}
	p := printers.NewPrintFlags("", printers.FormatYAML, printers.FormatJSON, printers.FormatTemplate).WithDefault(printers.FormatYAML)
	p.AddFlags(cmd)
	fl := cmd.Flags().Lookup("output")
	if fl.Shorthand != "o" || fl.DefValue != "yaml" || !strings.Contains(fl.Usage, "yaml, json, jsonpath=TEMPLATE, jsonpath-file=FILE, go-template=TEMPLATE, go-template-file=FILE") {
		t.Errorf("flag %+v", fl)
	}
	if fl.Annotations[printers.FlagAnnotation] == nil {
		t.Error("the flag is not marked as PrintFlags'")
	}
	if err := p.Validate(); err != nil || p.Format() != printers.FormatYAML || !p.IsDocument() {
		t.Errorf("default: %v %q", err, p.Format())
	}
}
