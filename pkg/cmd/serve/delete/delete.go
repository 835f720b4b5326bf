// Package delete is "easyai serve delete": a serving and everything made
// for it.
package delete

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// Options of serve delete.
type Options struct {
	serveargs.Named
}

// NewCmdDelete returns "serve delete"; runF replaces Complete and Run in tests.
func NewCmdDelete(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: serveargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a serving: its Deployments, pods and Service",
		Long: `Delete a serving: its Deployments (their ReplicaSets and pods go with them)
and its Service. The model it served is not touched. Asks first on a
terminal; --yes does not ask (and is needed without a terminal). A serving
that does not exist exits 3.`,
		Example: `  easyai serve delete bert --yes`,
	}
	serveargs.TakeName(cmd, f, &o.Name, o, runF)
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

// Run asks (unless --yes) and deletes the serving.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := serveargs.Client(o.Factory)
	if err != nil {
		return err
	}
	if !o.Yes {
		if !o.Factory.IOStreams.CanPrompt() {
			return exit.UsageErrorf("not deleting serving %s: pass --yes (there is no terminal to ask on)", o.Name)
		}
		ok, err := o.Factory.Prompter.Confirm(fmt.Sprintf("Delete serving %s in namespace %s?", o.Name, ns), false)
		if err != nil {
			return err
		}
		if !ok {
			return exit.Declined("serving " + o.Name + " not deleted")
		}
	}
	if err := c.Delete(ctx, ns, o.Name); err != nil {
		return err
	}
	fmt.Fprintf(o.Factory.IOStreams.Out, "serving %s deleted from namespace %s\n", o.Name, ns)
	return nil
}
