// Package view is "easyai config view".
package view

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of config view.
type Options struct {
	Factory *cmdutil.Factory
	Print   *printers.PrintFlags
}

// NewCmdView returns the command; runF replaces Run in tests.
func NewCmdView(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f,
		Print: printers.NewPrintFlags("", printers.FormatYAML, printers.FormatJSON, printers.FormatTemplate).WithDefault(printers.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Print the settings in effect",
		Long:  "Print the settings in effect: the file, with the EASYAI_* environment applied.",
		Example: `  easyai config view
  EASYAI_QUEUE=research easyai config view -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Print.Validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return o.Run()
		},
	}
	o.Print.AddFlags(cmd)
	return cmd
}

// Run prints the configuration.
func (o *Options) Run() error {
	c, err := o.Factory.Config()
	if err != nil {
		return err
	}
	if o.Print.Format() == printers.FormatYAML {
		fmt.Fprintf(o.Factory.IOStreams.ErrOut, "# %s\n", c.Path)
	}
	return o.Print.PrintDocument(o.Factory.IOStreams.Out, c)
}
