// Package list is "easyai notebook list": the notebooks of the namespace.
package list

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/notebook/notebookargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/notebook"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of notebook list.
type Options struct {
	Factory       *cmdutil.Factory
	IO            *iostreams.IOStreams
	AllNamespaces bool
	Mine          bool
	Print         *printers.PrintFlags

	p platform.Platform
}

// NewCmdList returns "notebook list"; runF replaces Complete and Run in tests.
func NewCmdList(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table", printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the notebooks",
		Long: `List the notebooks of the namespace (every namespace with -A), newest first:
their state (Running, Pending, Stopped, Ended when Jupyter shut down idle,
Failed), GPUs, user and age. One request: the notebooks' jobs, by label.
-o json prints a JobList document, as "easyai list" does.`,
		Example: `  easyai notebook list
  easyai notebook list --mine -o name`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "list the notebooks of every namespace")
	cmd.Flags().BoolVar(&o.Mine, "mine", false, "only your notebooks")
	o.Print.AddFlags(cmd)
	return cmd
}

func (o *Options) Validate() error { return o.Print.Validate() }

func (o *Options) Complete() error {
	var err error
	o.p, err = o.Factory.Platform()
	return err
}

func (o *Options) Run(ctx context.Context) error {
	k, err := notebookargs.Kind(o.Factory)
	if err != nil {
		return err
	}
	jobs, err := o.p.List(ctx, platform.ListOptions{Kinds: []kinds.Kind{k}, KindsAsked: true, Selector: notebook.Label + "=true",
		AllNamespaces: o.AllNamespaces, Mine: o.Mine})
	if err != nil {
		return err
	}
	switch o.Print.Format() {
	case printers.FormatJSON, printers.FormatYAML:
		l := jobmodel.List{APIVersion: jobmodel.APIVersion, Kind: jobmodel.ListDocumentKind, Items: make([]jobmodel.Item, len(jobs))}
		for i, j := range jobs {
			l.Items[i] = j.Item
		}
		if o.Print.Format() == printers.FormatJSON {
			return printers.JSON(o.IO.Out, l)
		}
		return printers.YAML(o.IO.Out, l)
	case printers.FormatName:
		for _, j := range jobs {
			fmt.Fprintln(o.IO.Out, j.Item.Name)
		}
		return nil
	}
	header := []string{"NAME", "STATE", "GPUS", "USER", "AGE"}
	if o.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), header...)
	for _, j := range jobs {
		it := j.Item
		row := []string{jobmodel.OneLine(it.Name), notebook.Describe(it.Status.State), fmt.Sprint(it.GPUs), jobmodel.OneLine(it.User), printers.Age(time.Now(), it.Created)}
		if o.AllNamespaces {
			row = append([]string{it.Namespace}, row...)
		}
		t.AddRow(row...)
	}
	if t.Len() == 0 && o.IO.IsStdoutTTY() {
		fmt.Fprintf(o.IO.ErrOut, "No notebooks in %s. Create one with: %s notebook create NAME\n", o.p.Where(), o.Factory.ExecutableName)
		return nil
	}
	return t.Render()
}
