// Package delete is "easyai notebook delete": a notebook deleted, its workspace kept.
package delete

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/notebook/notebookargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/notebook"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// Options of notebook delete.
type Options struct {
	notebookargs.Named
	Yes bool

	p platform.Platform
}

// NewCmdDelete returns "notebook delete"; runF replaces Complete and Run in tests.
func NewCmdDelete(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	o.Factory, o.IO = f, f.IOStreams
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a notebook; its workspace stays on the storage",
		Long: `Delete a notebook: its job, pod and token's Secret. The workspaces on the
storage (notebook/USER, notebook/public) are not touched. Asks first on a
terminal; --yes does not ask (and is needed without a terminal).`,
		Example: `  easyai notebook delete explore --yes`,
	}
	notebookargs.TakeName(cmd, f, &o.Name, o, runF)
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

// Complete resolves the platform.
func (o *Options) Complete() error {
	var err error
	o.p, err = o.Factory.Platform()
	return err
}

func (o *Options) Run(ctx context.Context) error {
	job, err := o.p.Find(ctx, o.Ref)
	if err != nil {
		return err
	}
	if !notebook.Is(job.Item.Labels) {
		return notebook.NotANotebook(o.Name)
	}
	if !o.Yes {
		if !o.IO.CanPrompt() {
			return exit.UsageErrorf("not deleting notebook %s: pass --yes (there is no terminal to ask on)", o.Name)
		}
		ok, err := o.Factory.Prompter.Confirm(fmt.Sprintf("Delete notebook %s? (its workspace stays on the storage)", o.Name), false)
		if err != nil {
			return err
		}
		if !ok {
			return exit.Declined("Nothing deleted.")
		}
	}
	if err := o.p.Delete(ctx, job); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "deleted notebook %s\n", o.Name)
	return nil
}
