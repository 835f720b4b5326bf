package jobcmd

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobwait"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// SuspendTimeout is how long suspend --wait and resume --wait wait without
// --timeout.
const SuspendTimeout = 10 * time.Minute

// SuspendOptions are the options suspend and resume share: the job, and
// --wait and --timeout, and the steps around the change they ask of the
// job's operator. The commands embed it in their Options.
type SuspendOptions struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	cmdutil.JobOptions

	// Wait until the job is in the state asked for (--wait), at most
	// Timeout.
	Wait    bool
	Timeout time.Duration
}

// AddSuspendFlags adds --kind, --wait (wait being its help) and --timeout.
func (o *SuspendOptions) AddSuspendFlags(cmd *cobra.Command, wait string) {
	cmdutil.AddKindFlag(cmd, o.Factory.Kinds, &o.KindName, "job's")
	cmdutil.AddWaitFlags(cmd, &o.Wait, wait, &o.Timeout, SuspendTimeout)
}

// Validate checks the job argument without reaching the cluster.
func (o *SuspendOptions) Validate() error { return o.ParseJob(o.Factory.Kinds) }

// Complete resolves the namespace and the client.
func (o *SuspendOptions) Complete() error { return o.CompleteJob(o.Factory) }

// FindSuspendable finds the job and reads its state; a job of a kind that
// cannot be suspended is a usage error, verb ("suspended", "resumed")
// saying what it cannot be.
func (o *SuspendOptions) FindSuspendable(ctx context.Context, verb string) (*jobclient.Suspendable, error) {
	return o.Client.FindSuspendable(ctx, o.Namespace, o.Ref, verb)
}

// Change asks the job's operator for a change (change is t's Suspender's
// Suspend or Resume) and says so on stdout, "VERB KIND/NAME"; then with
// --wait it waits until the job is in state, and without it says next on
// stderr when that is a terminal ("Its pods are being deleted. ...").
func (o *SuspendOptions) Change(ctx context.Context, t *jobclient.Suspendable, change func(context.Context, dynamic.Interface, *unstructured.Unstructured) error,
	verb string, state waiter.Condition, next string) error {
	if err := t.DeletedSinceFound(change(ctx, o.Client.Dynamic, t.Object), o.Namespace); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "%s %s\n", verb, t)
	if o.Wait {
		return jobwait.For(ctx, o.IO, o.Factory.Platform, kinds.Ref{Kind: t.Kind, Name: t.Object.GetName()}, state, o.Timeout)
	}
	if o.IO.IsStderrTTY() {
		fmt.Fprintln(o.IO.ErrOut, next)
	}
	return nil
}
