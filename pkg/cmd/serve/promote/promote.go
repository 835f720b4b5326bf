// Package promote is "easyai serve promote": the canary made the serving's
// only version.
package promote

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/serving"
)

// Options of serve promote.
type Options struct {
	serveargs.Named
}

// NewCmdPromote returns "serve promote"; runF replaces Complete and Run in tests.
func NewCmdPromote(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: serveargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "promote NAME",
		Short: "Make a serving's canary its only version",
		Long: `Make the canary of a serving (serve update --canary) its only version: the
canary is given all the serving's replicas, the Service is handed to it, and
the old version is deleted. A serving without a canary exits 2.`,
		Example: `  easyai serve promote bert`,
	}
	serveargs.TakeName(cmd, f, &o.Name, o, runF)
	o.AddYesFlag(cmd)
	return cmd
}

// Run promotes the canary.
func (o *Options) Run(ctx context.Context) error {
	return o.Change(ctx, "promote", func(ctx context.Context, c *serving.Client, ns string) (string, error) {
		return c.Promote(ctx, ns, o.Name)
	})
}
