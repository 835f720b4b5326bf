// Package deletecluster is "easyai config delete-cluster NAME": remove a
// timaker cluster from the configuration file.
package deletecluster

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
)

// Options of config delete-cluster.
type Options struct {
	Factory *cmdutil.Factory
	Name    string
}

// NewCmdDeleteCluster returns the command; runF replaces Run in tests.
func NewCmdDeleteCluster(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "delete-cluster NAME",
		Short: "Remove a timaker cluster from the configuration file",
		Long: `Remove a timaker cluster from the configuration file, keeping the rest of the
file. When the cluster was the default (the cluster setting), that setting is
removed too, and commands go back to the kubeconfig's context. A cluster the
file does not have is exit 3.

The cluster's credentials are left where they are: in the environment, or
in the credentials file.`,
		Example: `  easyai config delete-cluster staging
  easyai --config team.yaml config delete-cluster prod`,
		Args: cmdutil.ExactArgs(1, "a cluster NAME"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return config.ClusterNames(f.ConfigPath), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			if runF != nil {
				return runF(o)
			}
			return o.Run()
		},
	}
	return cmd
}

// Run removes the cluster from the configuration file. Its name is not
// checked: a cluster with a bad name is one to remove.
func (o *Options) Run() error {
	path, clearedDefault, err := config.DeleteCluster(o.Factory.ConfigPath, o.Name)
	if err != nil {
		return err
	}
	errOut := o.Factory.IOStreams.ErrOut
	fmt.Fprintf(errOut, "cluster %s removed from %s\n", o.Name, path)
	if clearedDefault {
		fmt.Fprintf(errOut, "%s was the default cluster: the %s setting is removed too, and commands use the kubeconfig's context\n", o.Name, config.KeyCluster)
	}
	if env := config.EnvName(config.KeyCluster); os.Getenv(env) == o.Name {
		fmt.Fprintf(errOut, "Warning: %s names %s, which is no longer configured: unset it\n", env, o.Name)
	}
	return nil
}
