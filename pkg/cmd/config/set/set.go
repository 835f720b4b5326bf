// Package set is "easyai config set KEY VALUE".
package set

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
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
		Long: `Change a setting in the configuration file, creating the file if needed.
The value is checked as easyai will use it; the rest of the file (comments,
order, other keys) is kept as it is, so "set" also repairs a bad value there.`,
		Example: `  easyai config set image registry.example.com/pytorch:2.4
  easyai config set gpu-resource amd.com/gpu
  easyai config set labels team=vision,cost-center=42
  # the default cluster, one of "easyai config get-clusters"
  easyai config set cluster prod
  # a team's settings in a file of its own
  easyai --config team.yaml config set queue research`,
		Args:              cmdutil.ExactArgs(2, "a KEY and a VALUE"),
		ValidArgsFunction: completeKeyAndCluster(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Key, o.Value = args[0], args[1]
			if err := config.CheckKey(o.Key); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return o.Run()
		},
	}
	return cmd
}

// completeKeyAndCluster completes the KEY argument, and the VALUE of the
// cluster key with the configured clusters.
func completeKeyAndCluster(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case len(args) == 0:
			return config.KeyNames(), cobra.ShellCompDirectiveNoFileComp
		case len(args) == 1 && args[0] == config.KeyCluster:
			return config.ClusterNames(f.ConfigPath), cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// Run writes the key into the configuration file.
func (o *Options) Run() error {
	path, err := config.Set(o.Factory.ConfigPath, o.Key, o.Value)
	if err != nil {
		return err
	}
	errOut := o.Factory.IOStreams.ErrOut
	fmt.Fprintf(errOut, "%s set in %s\n", o.Key, path)
	if env := config.EnvName(o.Key); os.Getenv(env) != "" {
		fmt.Fprintf(errOut, "Warning: %s is set in the environment and overrides the file\n", env)
	}
	return nil
}
