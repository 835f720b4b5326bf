// Package rollback is "easyai serve rollback": a serving's canary removed.
package rollback

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// Options of serve rollback.
type Options struct {
	serveargs.Named
}

// NewCmdRollback returns "serve rollback"; runF replaces Complete and Run in tests.
func NewCmdRollback(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: serveargs.Named{Factory: f}}
	cmd := &cobra.Command{
		Use:   "rollback NAME",
		Short: "Remove a serving's canary; the old version takes all the traffic",
		Long: `Remove the canary of a serving (serve update --canary): its Deployment is
deleted and the old version gets back the replicas it had before the canary.
A serving without a canary exits 2.`,
		Example: `  easyai serve rollback bert`,
	}
	serveargs.TakeName(cmd, f, &o.Name, o, runF)
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "do not ask before changing someone else's serving")
	return cmd
}

// Run removes the canary.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := serveargs.Client(o.Factory)
	if err != nil {
		return err
	}
	if err := serveargs.ConfirmOwner(ctx, o.Factory, c, ns, o.Name, "roll back", o.Yes); err != nil {
		return err
	}
	said, err := c.Rollback(ctx, ns, o.Name)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.Factory.IOStreams.Out, said)
	return nil
}
