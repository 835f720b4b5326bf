package printers

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// Format is a kind of output a command prints with -o.
type Format string

// The formats. FormatDefault is what a command prints without -o (a table,
// a line); FormatTemplate stands for every template output
// (TemplateOutputs).
const (
	FormatDefault  Format = ""
	FormatWide     Format = "wide"
	FormatJSON     Format = "json"
	FormatYAML     Format = "yaml"
	FormatName     Format = "name"
	FormatTemplate Format = "template"
	// FormatValues is the values a job was submitted with, as a job file
	// (get): neither a document nor a table.
	FormatValues Format = "values"
)

// FlagAnnotation marks an -o flag added by PrintFlags, so that a test can
// tell that every command prints through it.
const FlagAnnotation = "easyai.io/print-flags"

// DocumentPrinter prints a command's document (json, yaml or a template).
type DocumentPrinter interface {
	PrintDocument(w io.Writer, v any) error
}

// PrintFlags is -o/--output, the same flag for every command that prints
// data: each command names the formats it offers, and the flag's help, its
// completion, its check and the printing of documents come from here.
type PrintFlags struct {
	// Output is -o as given.
	Output string

	formats []Format
	// byDefault is the format printed without -o.
	byDefault Format
	// defaultText says what is printed without -o, for the help.
	defaultText string
	template    *Template
}

// NewPrintFlags offers formats; without -o the command prints defaultText
// (e.g. "a table"), its own output.
func NewPrintFlags(defaultText string, formats ...Format) *PrintFlags {
	return &PrintFlags{formats: formats, defaultText: defaultText}
}

// WithDefault makes f the format printed without -o (config view: yaml).
func (p *PrintFlags) WithDefault(f Format) *PrintFlags {
	p.byDefault = f
	return p
}

// WithOutput sets -o as if given (for tests and callers without flags).
func (p *PrintFlags) WithOutput(output string) *PrintFlags {
	p.Output = output
	return p
}

// AddFlags adds -o/--output to cmd, with its completion.
func (p *PrintFlags) AddFlags(cmd *cobra.Command) {
	help := "output format: " + p.names()
	if p.defaultText != "" {
		help += " (default: " + p.defaultText + ")"
	}
	cmd.Flags().StringVarP(&p.Output, "output", "o", string(p.byDefault), help)
	_ = cmd.Flags().SetAnnotation("output", FlagAnnotation, []string{"true"})
	var words []string
	directive := cobra.ShellCompDirectiveNoFileComp
	for _, f := range p.formats {
		if f == FormatTemplate {
			words = append(words, TemplateOutputs...)
			directive |= cobra.ShellCompDirectiveNoSpace
			continue
		}
		words = append(words, string(f))
	}
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(words, directive))
}

// names lists the formats as the help and errors spell them.
func (p *PrintFlags) names() string {
	var names []string
	for _, f := range p.formats {
		if f == FormatTemplate {
			for _, t := range TemplateOutputs {
				if strings.HasSuffix(t, "-file=") {
					names = append(names, t+"FILE")
				} else {
					names = append(names, t+"TEMPLATE")
				}
			}
			continue
		}
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// Validate checks -o: a usage error names every format the command offers;
// a template is parsed (and its file read) here.
func (p *PrintFlags) Validate() error {
	if p.Output == "" || p.Output == string(p.byDefault) {
		return nil
	}
	for _, f := range p.formats {
		if f == FormatTemplate {
			t, err := ParseTemplate(p.Output)
			if err != nil {
				return err
			}
			if t != nil {
				p.template = t
				return nil
			}
			continue
		}
		if p.Output == string(f) {
			return nil
		}
	}
	return exit.UsageErrorf("-o %q: must be one of %s", p.Output, p.names())
}

// Format is the format asked for (after Validate).
func (p *PrintFlags) Format() Format {
	switch {
	case p.template != nil:
		return FormatTemplate
	case p.Output == "":
		return p.byDefault
	}
	return Format(p.Output)
}

// IsDocument reports whether the output is a document: json, yaml or a
// template.
func (p *PrintFlags) IsDocument() bool {
	switch p.Format() {
	case FormatJSON, FormatYAML, FormatTemplate:
		return true
	}
	return false
}

// Document is the printer of documents when the output is one, else nil.
func (p *PrintFlags) Document() DocumentPrinter {
	if !p.IsDocument() {
		return nil
	}
	return p
}

// PrintDocument prints v as the format asked for: JSON, YAML or through
// the template.
func (p *PrintFlags) PrintDocument(w io.Writer, v any) error {
	switch p.Format() {
	case FormatJSON:
		return JSON(w, v)
	case FormatYAML:
		return YAML(w, v)
	case FormatTemplate:
		return p.template.Print(w, v)
	}
	return fmt.Errorf("-o %q does not print a document", p.Output)
}
