// Package list is "easyai pipeline list": the pipelines of the namespace.
package list

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/pipelineargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/pipeline"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of pipeline list.
type Options struct {
	Factory       *cmdutil.Factory
	IO            *iostreams.IOStreams
	Print         *printers.PrintFlags
	AllNamespaces bool
}

// NewCmdList returns "pipeline list"; runF replaces Complete and Run in tests.
func NewCmdList(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table", printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the pipelines of the namespace",
		Long: `List the pipelines of the namespace (every namespace with -A), one line each:
NAME, STATE (Pending, Running, Succeeded, Failed), STEPS (succeeded of all),
FAILED, AGE. On a terminal a table; otherwise tab-separated columns without a
header. -o json and -o yaml print a PipelineList (docs/pipelines.md).`,
		Example: `  easyai pipeline list
  easyai pipeline list -o json | jq -r '.items[] | select(.state == "Failed") | .name'`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "the pipelines of every namespace")
	o.Print.AddFlags(cmd)
	return cmd
}

// Validate checks -o.
func (o *Options) Validate() error { return o.Print.Validate() }

// Complete has nothing to resolve: Run lists through the factory's clients.
func (o *Options) Complete() error { return nil }

// PipelineList is list's document.
type PipelineList struct {
	APIVersion string             `json:"apiVersion"`
	Kind       string             `json:"kind"`
	Items      []pipeline.Summary `json:"items"`
}

// Run lists and prints the pipelines.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := pipelineargs.Client(o.Factory)
	if err != nil {
		return err
	}
	listNS := ns
	if o.AllNamespaces {
		listNS = ""
	}
	items, err := c.List(ctx, listNS)
	if err != nil {
		return err
	}
	switch {
	case o.Print.IsDocument():
		return o.Print.PrintDocument(o.IO.Out, PipelineList{APIVersion: "easyai.io/v1", Kind: "PipelineList", Items: items})
	case o.Print.Format() == printers.FormatName:
		for _, p := range items {
			fmt.Fprintf(o.IO.Out, "pipeline/%s\n", p.Name)
		}
		return nil
	case len(items) == 0:
		fmt.Fprintf(o.IO.ErrOut, "No pipelines in namespace %s.\n", ns)
		return nil
	}
	header := []string{"NAME", "STATE", "STEPS", "FAILED", "AGE"}
	if o.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), header...)
	for _, p := range items {
		row := []string{p.Name, p.State, fmt.Sprintf("%d/%d", p.Succeeded, p.Steps), fmt.Sprint(p.Failed), printers.Age(o.Factory.Now(), p.Created)}
		if o.AllNamespaces {
			row = append([]string{p.Namespace}, row...)
		}
		t.AddRow(row...)
	}
	return t.Render()
}
