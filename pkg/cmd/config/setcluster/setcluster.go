// Package setcluster is "easyai config set-cluster NAME": add or change a
// timaker cluster in the configuration file.
package setcluster

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// Options of config set-cluster.
type Options struct {
	Factory *cmdutil.Factory
	Name    string
	// Fields are the flags given, by field (the flags have the fields'
	// names); the others stay as they are.
	Fields map[string]string

	values map[string]*string
}

// flagHelp says what each flag sets.
var flagHelp = map[string]string{
	config.FieldType:            "the cluster's platform `TYPE`: " + strings.Join(config.ClusterTypes, ", "),
	config.FieldAddr:            "the gateway's base `URL`: http(s)://HOST[:PORT][/PATH]",
	config.FieldHost:            "the `HOST` header the gateway expects (default: the host of --addr; \"\" removes it)",
	config.FieldProjectID:       "the timaker project `N` (TiProjectId), 1 or more (timaker's default project is 1)",
	config.FieldUin:             "your `UIN`, the user id on timaker (digits, letters, '_' or '-')",
	config.FieldAppGroupID:      "the app group `N` whose resources are shown (default: the project; 0 removes it)",
	config.FieldCredentialsFile: "the `PATH` of the file of the cluster's secret id and key (default: $XDG_CONFIG_HOME/easyai/credentials.yaml; \"\" removes it)",
}

// long is set-cluster's help.
const long = `Add a timaker cluster to the configuration file, or change one. A new cluster
needs --type, --addr, --project-id and --uin; for a cluster the file already
has, only the flags given change, and an empty value removes an optional
field (--host "", --app-group-id 0, --credentials-file ""). NAME is a DNS
label (lower-case letters, digits and '-'). The rest of the file (comments,
order, other settings) is kept as it is, and the cluster is checked as easyai
will use it before anything is written.

There is no flag for the secret id and key, on purpose: a flag's value stays
in the shell's history and shows in the process list. easyai reads them from
the environment, EASYAI_TIMAKER_SECRET_ID and EASYAI_TIMAKER_SECRET_KEY (both,
for every cluster), else from the credentials file: --credentials-file, else
$XDG_CONFIG_HOME/easyai/credentials.yaml (~/.config/easyai/credentials.yaml),
which only you may read (chmod 600):

  clusters:
    prod:
      secret-id: AKID...
      secret-key: ...

A top-level secret-id and secret-key there serve the clusters without an
entry of their own.

A relative --credentials-file is made absolute; one starting with "~/" is
written as given, and read from the home directory of whoever runs easyai.

"easyai config set cluster NAME" makes a cluster the default target.`

// examples are set-cluster's examples.
const examples = `  easyai config set-cluster prod --type timaker --addr https://ti.example.com --project-id 3 --uin 100012345
  # the gateway behind a load balancer that routes on the Host header
  easyai config set-cluster prod --addr https://10.0.0.8:8443 --host ti.example.com
  easyai config set-cluster staging --type timaker --addr http://ti-staging.example.com:8080 \
    --project-id 1 --uin 100012345 --credentials-file ~/.config/easyai/staging-credentials.yaml
  # a team's settings in a file of its own
  easyai --config team.yaml config set-cluster prod --uin 100054321`

// NewCmdSetCluster returns the command; runF replaces Complete and Run in
// tests.
func NewCmdSetCluster(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, values: map[string]*string{}}
	cmd := &cobra.Command{
		Use:               "set-cluster NAME [--type timaker --addr URL --project-id N --uin UIN] [flags]",
		Short:             "Add or change a timaker cluster in the configuration file",
		Long:              long,
		Example:           examples,
		Args:              cmdutil.ExactArgs(1, "a cluster NAME"),
		ValidArgsFunction: completeClusters(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			o.Fields = map[string]string{}
			for field, value := range o.values {
				if cmd.Flags().Changed(field) {
					o.Fields[field] = *value
				}
			}
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	for _, field := range config.ClusterFields {
		o.values[field] = cmd.Flags().String(field, "", flagHelp[field])
	}
	_ = cmd.RegisterFlagCompletionFunc(config.FieldType, cmdutil.CompleteWords(config.ClusterTypes...))
	for _, field := range []string{config.FieldAddr, config.FieldHost, config.FieldProjectID, config.FieldUin, config.FieldAppGroupID} {
		_ = cmd.RegisterFlagCompletionFunc(field, cobra.NoFileCompletions)
	}
	return cmd
}

// completeClusters completes NAME with the configured clusters.
func completeClusters(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return config.ClusterNames(f.ConfigPath), cobra.ShellCompDirectiveNoFileComp
	}
}

// Validate checks NAME and each flag given, naming the flag.
func (o *Options) Validate() error {
	if err := config.CheckClusterName(o.Name); err != nil {
		return exit.UsageErrorf("cluster %q: %v", o.Name, err)
	}
	if len(o.Fields) == 0 {
		return exit.UsageErrorf("nothing to set: give the fields that change (--%s)", strings.Join(config.ClusterFields, ", --"))
	}
	for _, field := range config.ClusterFields {
		raw, given := o.Fields[field]
		if !given {
			continue
		}
		if _, err := config.CheckClusterField(field, raw); err != nil {
			return exit.UsageErrorf("--%s %v", field, err)
		}
	}
	return nil
}

// Complete makes a relative --credentials-file absolute: the file holds
// it, and easyai runs from other directories.
func (o *Options) Complete() error {
	path := o.Fields[config.FieldCredentialsFile]
	if path == "" || strings.HasPrefix(path, "~/") || filepath.IsAbs(path) {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return exit.UsageErrorf("--%s %q: %v", config.FieldCredentialsFile, path, err)
	}
	o.Fields[config.FieldCredentialsFile] = abs
	return nil
}

// Run writes the cluster, then says whether easyai finds its credentials.
func (o *Options) Run(ctx context.Context) error {
	path, created, err := config.SetCluster(o.Factory.ConfigPath, o.Name, o.Fields)
	if err != nil {
		return err
	}
	errOut := o.Factory.IOStreams.ErrOut
	if created {
		fmt.Fprintf(errOut, "cluster %s added to %s\n", o.Name, path)
	} else {
		fmt.Fprintf(errOut, "cluster %s changed in %s\n", o.Name, path)
	}
	c, err := config.Load(o.Factory.ConfigPath)
	if err != nil {
		// Another setting of the file is bad: the next command says which.
		return nil
	}
	cl, err := c.LookupCluster(o.Name)
	if err != nil {
		return nil
	}
	if _, err := config.LoadTimakerCredentials(cl); err != nil {
		fmt.Fprintf(errOut, "Warning: %v\n", err)
		if hint := exit.Hint(err); hint != "" {
			fmt.Fprintf(errOut, "Hint: %s\n", hint)
		}
	}
	if created && c.Cluster == "" {
		fmt.Fprintf(errOut, "To make it the default: easyai config set cluster %s\n", o.Name)
	}
	return nil
}
