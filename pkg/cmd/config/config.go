// Package config is "easyai config": easyai's own settings.
package config

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/config/get"
	"github.com/easyai-dev/easyai/pkg/cmd/config/set"
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
` + keys.String(),
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(
		view.NewCmdView(f, nil),
		get.NewCmdGet(f, nil),
		set.NewCmdSet(f, nil),
		unset.NewCmdUnset(f, nil),
	)
	return cmd
}
