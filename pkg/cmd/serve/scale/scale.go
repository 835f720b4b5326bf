// Package scale is "easyai serve scale": a serving's replicas set.
package scale

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/serving"
)

// Options of serve scale.
type Options struct {
	serveargs.Named
	Replicas int32
}

// NewCmdScale returns "serve scale"; runF replaces Complete and Run in tests.
func NewCmdScale(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: serveargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "scale NAME REPLICAS",
		Short: "Set how many pods run a serving",
		Long: `Set the replicas of a serving of one version (at least 1: delete a serving to
stop it). A serving with a canary is promoted or rolled back first (exit 2).`,
		Example: `  easyai serve scale bert 4`,
		Args:    cmdutil.ExactArgs(2, "the serving's name and its replicas"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			n, err := strconv.ParseInt(args[1], 10, 32)
			if err != nil || n < 1 {
				return exit.UsageErrorf("REPLICAS %q: a whole number, at least 1", args[1])
			}
			o.Replicas = int32(n)
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
		ValidArgsFunction: serveargs.Complete(f),
	}
	o.AddYesFlag(cmd)
	return cmd
}

// Run sets the replicas.
func (o *Options) Run(ctx context.Context) error {
	return o.Change(ctx, "scale", func(ctx context.Context, c *serving.Client, ns string) (string, error) {
		return fmt.Sprintf("serving %s scaled to %d replicas", o.Name, o.Replicas), c.Scale(ctx, ns, o.Name, o.Replicas)
	})
}
