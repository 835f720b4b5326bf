// Package view is "easyai config view".
package view

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// Options of config view.
type Options struct {
	Factory *cmdutil.Factory
	Output  string
}

// NewCmdView returns the command; runF replaces Run in tests.
func NewCmdView(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "view",
		Short: "Print the settings in effect",
		Long:  "Print the settings in effect: the file, with the EASYAI_* environment applied.",
		Example: `  easyai config view
  EASYAI_QUEUE=research easyai config view -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Output != "yaml" && o.Output != "json" {
				return exit.UsageErrorf("--output %q: must be yaml or json", o.Output)
			}
			if runF != nil {
				return runF(o)
			}
			return o.Run()
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "yaml", "output format: yaml or json")
	return cmd
}

// Run prints the configuration.
func (o *Options) Run() error {
	c, err := o.Factory.Config()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if o.Output == "yaml" {
		if data, err = yaml.JSONToYAML(data); err != nil {
			return err
		}
		fmt.Fprintf(o.Factory.IOStreams.ErrOut, "# %s\n", c.Path)
		_, err = o.Factory.IOStreams.Out.Write(data)
		return err
	}
	_, err = fmt.Fprintln(o.Factory.IOStreams.Out, string(data))
	return err
}
