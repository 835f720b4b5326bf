// Package config is "easyai config": easyai's own settings.
package config

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/config/set"
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
(~/.config/easyai/config.yaml), or the file given with --config. An environment
variable EASYAI_<KEY> (dashes as underscores) overrides the file, and a
command's flag overrides both.

Keys:
` + keys.String(),
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(view.NewCmdView(f, nil), set.NewCmdSet(f, nil))
	return cmd
}
