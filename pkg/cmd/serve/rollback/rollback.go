// Package rollback is "easyai serve rollback": a serving's canary removed.
package rollback

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/serving"
)

// Options of serve rollback.
type Options struct {
	serveargs.Named
}

// NewCmdRollback returns "serve rollback"; runF replaces Complete and Run in tests.
func NewCmdRollback(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: serveargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "rollback NAME",
		Short: "Remove a serving's canary; the old version takes all the traffic",
		Long: `Remove the canary of a serving (serve update --canary): its Deployment is
deleted and the old version gets back the replicas it had before the canary.
A serving without a canary exits 2.`,
		Example: `  easyai serve rollback bert`,
	}
	serveargs.TakeName(cmd, f, &o.Name, o, runF)
	o.AddYesFlag(cmd)
	return cmd
}

// Run removes the canary.
func (o *Options) Run(ctx context.Context) error {
	return o.Change(ctx, "roll back", func(ctx context.Context, c *serving.Client, ns string) (string, error) {
		return c.Rollback(ctx, ns, o.Name)
	})
}
