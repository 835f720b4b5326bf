// Package config is "easyai config": easyai's own settings.
package config

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/config/deletecluster"
	"github.com/easyai-dev/easyai/pkg/cmd/config/get"
	"github.com/easyai-dev/easyai/pkg/cmd/config/getclusters"
	"github.com/easyai-dev/easyai/pkg/cmd/config/set"
	"github.com/easyai-dev/easyai/pkg/cmd/config/setcluster"
	"github.com/easyai-dev/easyai/pkg/cmd/config/unset"
	"github.com/easyai-dev/easyai/pkg/cmd/config/view"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	cfg "github.com/easyai-dev/easyai/pkg/config"
)

// NewCmdConfig returns the config command group.
func NewCmdConfig(f *cmdutil.Factory) *cobra.Command {
	var keys strings.Builder
	for _, k := range cfg.KeyNames() {
		fmt.Fprintf(&keys, "  %-15s %s\n", k, cfg.Keys[k])
	}
	cmd := &cobra.Command{
		Use:   "config",
		Short: "View and change easyai's settings",
		Long: `easyai reads its settings from $XDG_CONFIG_HOME/easyai/config.yaml
(~/.config/easyai/config.yaml), or the file given with --config, which must
exist. An environment variable EASYAI_<KEY> (dashes as underscores, labels as
k=v,k2=v2) overrides the file, and a command's flag overrides both.

Every value is checked when it is read: a file that does not parse, or a bad
value in the file or the environment, fails the command (exit 2) and names
the file and line or the variable. A key easyai does not know is ignored,
with a warning. "easyai config set" and "unset" change the file and keep the
rest of it, so they repair a bad value; a file that does not parse must be
fixed in an editor, or moved away.

Keys:
` + keys.String() + `
The file also names timaker clusters, under clusters (set-cluster,
get-clusters and delete-cluster change and list them):

  cluster: prod                     # the default target; unset: the kubeconfig's context
  clusters:
    prod:
      type: timaker
      addr: https://ti.example.com    # the gateway's URL
      host: ti.example.com            # optional: the Host header it expects
      project-id: 3
      uin: "100012345"                # your user id on timaker
      app-group-id: 3                 # optional; default: the project id
      credentials-file: ~/ti.yaml     # optional; see below

A cluster's secret id and key are never in this file: easyai reads them from
EASYAI_TIMAKER_SECRET_ID and EASYAI_TIMAKER_SECRET_KEY, else from the
cluster's credentials-file, else $XDG_CONFIG_HOME/easyai/credentials.yaml,
which only its owner may read (chmod 600); see "easyai config set-cluster
--help".
`,
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(
		view.NewCmdView(f, nil),
		get.NewCmdGet(f, nil),
		set.NewCmdSet(f, nil),
		unset.NewCmdUnset(f, nil),
		setcluster.NewCmdSetCluster(f, nil),
		getclusters.NewCmdGetClusters(f, nil),
		deletecluster.NewCmdDeleteCluster(f, nil),
	)
	return cmd
}
