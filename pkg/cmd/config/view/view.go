// Package view is "easyai config view".
package view

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of config view.
type Options struct {
	Factory *cmdutil.Factory
	cmdutil.Printing
}

// NewCmdView returns the command; runF replaces Complete and Run in tests.
func NewCmdView(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, Printing: cmdutil.Printing{
		Print: printers.NewPrintFlags("", printers.FormatYAML, printers.FormatJSON, printers.FormatTemplate).WithDefault(printers.FormatYAML)}}
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Print the settings in effect",
		Long:  "Print the settings in effect: the file, with the EASYAI_* environment applied.",
		Example: `  easyai config view
  EASYAI_QUEUE=research easyai config view -o json`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	o.Print.AddFlags(cmd)
	return cmd
}

// Run prints the configuration.
func (o *Options) Run(context.Context) error {
	c, err := o.Factory.Config()
	if err != nil {
		return err
	}
	if o.Print.Format() == printers.FormatYAML {
		fmt.Fprintf(o.Factory.IOStreams.ErrOut, "# %s\n", c.Path)
	}
	return o.Print.PrintDocument(o.Factory.IOStreams.Out, c)
}
