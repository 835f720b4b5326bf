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
	"github.com/easyai-dev/easyai/pkg/iostreams"
)

// Options of serve delete.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	Name    string
	Yes     bool
}

// NewCmdDelete returns "serve delete"; runF replaces Complete and Run in tests.
func NewCmdDelete(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a serving: its Deployments, pods and Service",
		Long: `Delete a serving: its Deployments (their ReplicaSets and pods go with them)
and its Service. The model it served is not touched. Asks first on a
terminal; --yes does not ask (and is needed without a terminal). A serving
that does not exist exits 3.`,
		Example:           `  easyai serve delete bert --yes`,
		Args:              cmdutil.ExactArgs(1, "the serving's name"),
		ValidArgsFunction: serveargs.Complete(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

// Validate checks the name.
func (o *Options) Validate() error { return serveargs.CheckName(o.Name) }

// Complete has nothing to resolve: Run works through the factory's clients.
func (o *Options) Complete() error { return nil }

// Run asks (unless --yes) and deletes the serving.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := serveargs.Client(o.Factory)
	if err != nil {
		return err
	}
	if !o.Yes {
		if !o.IO.CanPrompt() {
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
	fmt.Fprintf(o.IO.Out, "serving %s deleted from namespace %s\n", o.Name, ns)
	return nil
}
