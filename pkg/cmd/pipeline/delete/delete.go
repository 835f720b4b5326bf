// Package delete is "easyai pipeline delete": a pipeline, its steps'
// templates and jobs.
package delete

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/pipelineargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// Options of pipeline delete.
type Options struct {
	pipelineargs.Named
	Yes bool
}

// NewCmdDelete returns "pipeline delete"; runF replaces Complete and Run in tests.
func NewCmdDelete(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: pipelineargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a pipeline: its JobFlow, the steps' templates and jobs",
		Long: `Delete a pipeline: its JobFlow, and with it the JobTemplates of its steps and
the jobs Volcano made of them (their pods go too). What the jobs wrote on the
storage stays. Asks first on a terminal; --yes does not ask (and is needed
without a terminal). A pipeline that does not exist exits 3.`,
		Example: `  easyai pipeline delete nightly --yes`,
	}
	pipelineargs.TakeName(cmd, f, &o.Name, o, runF)
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

// Run asks (unless --yes) and deletes the pipeline.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := pipelineargs.Client(o.Factory)
	if err != nil {
		return err
	}
	if !o.Yes {
		if !o.Factory.IOStreams.CanPrompt() {
			return exit.UsageErrorf("not deleting pipeline %s: pass --yes (there is no terminal to ask on)", o.Name)
		}
		ok, err := o.Factory.Prompter.Confirm(fmt.Sprintf("Delete pipeline %s in namespace %s, and its steps' jobs?", o.Name, ns), false)
		if err != nil {
			return err
		}
		if !ok {
			return exit.Declined("pipeline " + o.Name + " not deleted")
		}
	}
	if err := c.Delete(ctx, ns, o.Name); err != nil {
		return err
	}
	fmt.Fprintf(o.Factory.IOStreams.Out, "pipeline %s deleted from namespace %s\n", o.Name, ns)
	return nil
}
