package printers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/template"

	"k8s.io/client-go/util/jsonpath"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// TemplateOutputs are the -o values that print through a template, as
// kubectl's: jsonpath=TEMPLATE, jsonpath-file=FILE, go-template=TEMPLATE,
// go-template-file=FILE.
var TemplateOutputs = []string{"jsonpath=", "jsonpath-file=", "go-template=", "go-template-file="}

// Template prints a document through a JSONPath or Go template. The
// document is read as its JSON form, so a template names fields as -o json
// shows them ({.status.state}, {{.status.state}}).
type Template struct {
	jsonPath *jsonpath.JSONPath
	goTmpl   *template.Template
}

// ParseTemplate reads an -o value: nil when it is not a template output, a
// usage error naming -o when the template does not parse or its file cannot
// be read.
func ParseTemplate(output string) (*Template, error) {
	kind, text, ok := strings.Cut(output, "=")
	if !ok {
		return nil, nil
	}
	switch kind {
	case "jsonpath-file", "go-template-file":
		data, err := userfile.Read(context.Background(), "template", text, userfile.TemplateLimit, nil)
		if err != nil {
			return nil, exit.UsageErrorf("-o %s: %v", output, err)
		}
		text = string(data)
		kind = strings.TrimSuffix(kind, "-file")
	case "jsonpath", "go-template":
	default:
		return nil, nil
	}
	if strings.TrimSpace(text) == "" {
		return nil, exit.UsageErrorf("-o %s: the template is empty", output)
	}
	if kind == "jsonpath" {
		jp := jsonpath.New("output").AllowMissingKeys(true)
		if err := jp.Parse(relaxJSONPath(text)); err != nil {
			return nil, exit.UsageErrorf("-o %s: %v", output, err)
		}
		return &Template{jsonPath: jp}, nil
	}
	t, err := template.New("output").Parse(text)
	if err != nil {
		return nil, exit.UsageErrorf("-o %s: %v", output, err)
	}
	return &Template{goTmpl: t}, nil
}

// relaxJSONPath accepts a bare path (".status.state") as kubectl does, by
// wrapping it in braces.
func relaxJSONPath(text string) string {
	if strings.Contains(text, "{") {
		return text
	}
	return "{" + text + "}"
}

// Print writes v through the template.
func (t *Template) Print(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var doc any
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	if t.jsonPath != nil {
		if err := t.jsonPath.Execute(w, doc); err != nil {
			return fmt.Errorf("-o jsonpath: %w", err)
		}
		return nil
	}
	if err := t.goTmpl.Execute(w, doc); err != nil {
		return fmt.Errorf("-o go-template: %w", err)
	}
	return nil
}
