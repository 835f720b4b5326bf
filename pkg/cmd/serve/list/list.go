// Package list is "easyai serve list": the servings of the namespace.
package list

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/serving"
)

// Options of serve list.
type Options struct {
	Factory       *cmdutil.Factory
	IO            *iostreams.IOStreams
	Print         *printers.PrintFlags
	AllNamespaces bool
	Selector      string

	selector labels.Selector
}

// NewCmdList returns "serve list"; runF replaces Complete and Run in tests.
func NewCmdList(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table",
		printers.FormatWide, printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the servings of the namespace",
		Long: `List the servings of the namespace (every namespace with -A), one line each:
NAME, FRAMEWORK, READY (ready replicas of all), VERSIONS (each version and its
share of the traffic: its ready replicas among all), MODEL (the job whose
model it serves), GPUS (of all replicas) and AGE. -o wide adds the port, the
state and why it is not available. On a terminal a table; otherwise each
serving is one line of tab-separated columns without a header. -o json and
-o yaml print a ServingList (docs/serving.md).`,
		Example: `  easyai serve list
  easyai serve list -A -o wide
  easyai serve list -o json | jq -r '.items[] | select(.state != "Available") | .name'`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "the servings of every namespace")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "only the servings whose Deployment has these labels (a label selector)")
	o.Print.AddFlags(cmd)
	return cmd
}

// Validate checks -o and -l.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	sel, err := labels.Parse(o.Selector)
	if err != nil {
		return exit.UsageErrorf("-l %q: %v", o.Selector, err)
	}
	o.selector = sel
	return nil
}

// Complete has nothing to resolve: Run lists through the factory's clients.
func (o *Options) Complete() error { return nil }

// ServingList is list's document.
type ServingList struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Items      []serving.Summary `json:"items"`
}

// Run lists and prints the servings.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := serveargs.Client(o.Factory)
	if err != nil {
		return err
	}
	listNS := ns
	if o.AllNamespaces {
		listNS = ""
	}
	items, err := c.List(ctx, listNS, o.selector)
	if err != nil {
		return err
	}
	switch {
	case o.Print.IsDocument():
		return o.Print.PrintDocument(o.IO.Out, ServingList{APIVersion: serving.DocumentAPIVersion, Kind: "ServingList", Items: items})
	case o.Print.Format() == printers.FormatName:
		for _, s := range items {
			fmt.Fprintf(o.IO.Out, "serving/%s\n", s.Name)
		}
		return nil
	case len(items) == 0 && o.AllNamespaces:
		fmt.Fprintln(o.IO.ErrOut, "No servings in any namespace.")
		return nil
	case len(items) == 0:
		fmt.Fprintf(o.IO.ErrOut, "No servings in namespace %s.\n", ns)
		return nil
	}
	return o.table(items)
}

func (o *Options) table(items []serving.Summary) error {
	header := []string{"NAME", "FRAMEWORK", "READY", "VERSIONS", "MODEL", "GPUS", "AGE"}
	wide := o.Print.Format() == printers.FormatWide
	if wide {
		header = append(header, "PORT", "STATE", "REASON")
	}
	if o.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	now := o.Factory.Now()
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), header...)
	for _, s := range items {
		var versions []string
		for _, v := range s.Versions {
			versions = append(versions, fmt.Sprintf("%s %d%%", v.Name, v.Weight))
		}
		row := []string{s.Name, s.Framework, fmt.Sprintf("%d/%d", s.Ready, s.Replicas), strings.Join(versions, " "), s.ModelFrom,
			strconv.FormatInt(s.GPUs, 10), printers.Age(now, s.Created)}
		if wide {
			row = append(row, strconv.Itoa(int(s.Port)), s.State, s.Reason)
		}
		if o.AllNamespaces {
			row = append([]string{s.Namespace}, row...)
		}
		t.AddRow(row...)
	}
	return t.Render()
}
