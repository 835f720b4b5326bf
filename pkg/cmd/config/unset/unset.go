// Package unset is "easyai config unset KEY".
package unset

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
)

// Options of config unset.
type Options struct {
	Factory *cmdutil.Factory
	Key     string
}

// NewCmdUnset returns the command; runF replaces Run in tests.
func NewCmdUnset(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "unset KEY",
		Short: "Remove a setting from the configuration file",
		Long: `Remove a setting from the configuration file: easyai then uses its default
(or EASYAI_<KEY> when set). The rest of the file is kept as it is. A key
easyai does not know can be removed too, when the file holds it; a key the
file does not hold is left alone.`,
		Example: `  easyai config unset queue
  easyai --config team.yaml config unset labels`,
		Args:      cmdutil.ExactArgs(1, "a KEY"),
		ValidArgs: config.KeyNames(),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Key = args[0]
			if runF != nil {
				return runF(o)
			}
			return o.Run()
		},
	}
	return cmd
}

// Run removes the key from the configuration file.
func (o *Options) Run() error {
	path, removed, err := config.Unset(o.Factory.ConfigPath, o.Key)
	if err != nil {
		return err
	}
	errOut := o.Factory.IOStreams.ErrOut
	if !removed {
		fmt.Fprintf(errOut, "%s was not set in %s\n", o.Key, path)
	} else {
		fmt.Fprintf(errOut, "%s removed from %s\n", o.Key, path)
	}
	if env := config.EnvName(o.Key); os.Getenv(env) != "" {
		fmt.Fprintf(errOut, "Warning: %s is set in the environment and still applies\n", env)
	}
	return nil
}
