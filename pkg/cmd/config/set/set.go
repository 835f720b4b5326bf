// Package set is "easyai config set KEY VALUE".
package set

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// Options of config set.
type Options struct {
	Factory    *cmdutil.Factory
	Key, Value string
}

// NewCmdSet returns the command; runF replaces Run in tests.
func NewCmdSet(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "set KEY VALUE",
		Short: "Change a setting in the configuration file",
		Example: `  easyai config set image registry.example.com/pytorch:2.4
  easyai config set gpu-resource amd.com/gpu
  easyai config set labels team=vision,cost-center=42`,
		Args:      cmdutil.ExactArgs(2, "a KEY and a VALUE"),
		ValidArgs: config.KeyNames(),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Key, o.Value = args[0], args[1]
			if _, ok := config.Keys[o.Key]; !ok {
				return exit.UsageErrorf("unknown key %q: known keys are %v", o.Key, config.KeyNames())
			}
			if o.Key == config.KeyLabels {
				if _, err := config.ParseLabels(o.Value); err != nil {
					return exit.UsageErrorf("%v", err)
				}
			}
			if runF != nil {
				return runF(o)
			}
			return o.Run()
		},
	}
	return cmd
}

// Run writes the key into the configuration file.
func (o *Options) Run() error {
	path := o.Factory.ConfigPath
	if path == "" {
		path = config.DefaultPath()
	}
	if err := config.Set(path, o.Key, o.Value); err != nil {
		return err
	}
	fmt.Fprintf(o.Factory.IOStreams.ErrOut, "%s set in %s\n", o.Key, path)
	return nil
}
