// Package stop is "easyai notebook stop": a notebook's pod and GPUs freed,
// its workspace kept.
package stop

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/notebook/notebookargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/jobwait"
	"github.com/easyai-dev/easyai/pkg/notebook"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Options of notebook stop.
type Options struct {
	notebookargs.State
}

// NewCmdStop returns "notebook stop"; runF replaces Complete and Run in tests.
func NewCmdStop(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	o.Factory, o.IO = f, f.IOStreams
	cmd := &cobra.Command{
		Use:   "stop NAME",
		Short: "Stop a notebook: free its pod and GPUs, keep its workspace",
		Long: `Stop a running or pending notebook: its pod (and GPUs) go, the notebook and
its workspace on the storage stay; "easyai notebook start" brings it back
with a new pod. What is only in the pod (outside /notebooks) is lost, and
running kernels end.`,
		Example: `  easyai notebook stop explore`,
	}
	notebookargs.TakeName(cmd, f, &o.Name, o, runF)
	o.AddWaitFlags(cmd, "wait until its pod is gone")
	return cmd
}

// Run stops the notebook: its job is suspended.
func (o *Options) Run(ctx context.Context) error {
	t, err := o.Find(ctx, "stopped")
	if err != nil {
		return err
	}
	state := t.Summary.Status.State
	switch {
	case state == jobmodel.Suspended:
		return fmt.Errorf("notebook %s is already stopped", o.Name)
	case state.Final():
		return fmt.Errorf("notebook %s has ended (%s): there is nothing to stop; start it again with: %s notebook start %s", o.Name, notebook.Describe(state), o.Factory.ExecutableName, o.Name)
	}
	if err := t.DeletedSinceFound(t.Suspender.Suspend(ctx, o.Client.Dynamic, t.Object), o.Namespace); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "stopped notebook %s\n", o.Name)
	fmt.Fprintf(o.IO.ErrOut, "Its workspace stays on the storage. Start it again with: %s notebook start %s\n", o.Factory.ExecutableName, o.Name)
	if o.Wait {
		return jobwait.For(ctx, o.IO, o.Factory.Platform, o.Ref, waiter.Suspended, o.Timeout)
	}
	return nil
}
