// Package start is "easyai notebook start": a stopped notebook resumed, an
// ended one created again as it was.
package start

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"

	"github.com/easyai-dev/easyai/pkg/cmd/notebook/notebookargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/jobwait"
	"github.com/easyai-dev/easyai/pkg/notebook"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Options of notebook start.
type Options struct {
	notebookargs.State
}

// NewCmdStart returns "notebook start"; runF replaces Complete and Run in tests.
func NewCmdStart(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{}
	o.Factory, o.IO = f, f.IOStreams
	cmd := &cobra.Command{
		Use:   "start NAME",
		Short: "Start a stopped or ended notebook again",
		Long: `Start a notebook again: one stopped ("easyai notebook stop") gets a new pod;
one that ended (Jupyter shut it down idle, or its --max-duration passed) is
created again as it was created, with a new token: the same name, image,
resources and workspaces.`,
		Example: `  easyai notebook start explore --wait`,
	}
	notebookargs.TakeName(cmd, f, &o.Name, o, runF)
	o.AddWaitFlags(cmd, "wait until it runs")
	return cmd
}

// Run resumes a stopped notebook or creates an ended one again.
func (o *Options) Run(ctx context.Context) error {
	t, err := o.Find(ctx, "resumed")
	if err != nil {
		return err
	}
	state := t.Summary.Status.State
	switch {
	case state == jobmodel.Suspended:
		if err := t.DeletedSinceFound(t.Suspender.Resume(ctx, o.Client.Dynamic, t.Object), o.Namespace); err != nil {
			return err
		}
	case state.Final():
		if err := o.recreate(ctx); err != nil {
			return err
		}
	default:
		return fmt.Errorf("notebook %s is %s already: open it with: %s notebook open %s", o.Name, notebook.Describe(state), o.Factory.ExecutableName, o.Name)
	}
	fmt.Fprintf(o.IO.Out, "started notebook %s\n", o.Name)
	if o.Wait {
		if err := jobwait.For(ctx, o.IO, o.Factory.Platform, o.Ref, waiter.Running, o.Timeout); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "Open it with: %s notebook open %s\n", o.Factory.ExecutableName, o.Name)
	return nil
}

// recreate deletes the ended notebook's job, waits until it, its pod and
// its token's Secret are gone, and submits what it was created with again
// under the same name.
func (o *Options) recreate(ctx context.Context) error {
	job, recorded, err := platform.FindRecorded(ctx, o.Platform, o.Ref)
	if err != nil {
		return err
	}
	file, err := recorded.JobFile()
	if err != nil {
		return err
	}
	labels, annotations, err := notebook.Marks(o.Name)
	if err != nil {
		return err
	}
	sub := &submit.JobRequest{
		Kinds: o.Factory.Kinds, Kind: o.Ref.Kind,
		JobFiles: []render.ValueFile{{Name: "(the values recorded on notebook " + o.Name + ")", Data: file}},
		Flags:    submit.Flags{Name: o.Name, Labels: labels, Annotations: annotations},
		// The recorded values hold the workspaces as resolved.
		WorkspacesFor: "a notebook",
		ExtraObjects:  notebook.TokenSecret,
	}
	sub.Flags.Changed = func(flag string) bool { return flag == "name" || flag == "label" || flag == "annotation" }
	if err := cmdutil.CompleteSubmission(o.Factory, sub); err != nil {
		return err
	}
	sub.Prompter = nil
	if err := sub.Validate(); err != nil {
		return err
	}
	secretUID, err := o.oldSecret(ctx, types.UID(job.Item.UID))
	if err != nil {
		return err
	}
	if err := o.Platform.Delete(ctx, job); err != nil && !exit.IsNotFound(err) {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "Notebook %s had ended: creating it again\n", o.Name)
	err = waitGone(ctx, 2*time.Minute, "the ended notebook's job and pod", func(ctx context.Context) (bool, error) {
		return o.gone(ctx, secretUID)
	})
	if err != nil {
		return err
	}
	_, err = o.Platform.Submit(ctx, sub)
	return err
}

// oldSecret is the uid of the token's Secret of the ended notebook's job
// (oldUID), to delete with it; "" when there is none. The Secret is deleted
// with the old job only when it is the old job's: one of the same name that
// someone else made stays, and the notebook is not made again over it.
func (o *Options) oldSecret(ctx context.Context, oldUID types.UID) (types.UID, error) {
	secret := notebook.SecretName(o.Name)
	switch s, err := o.Replicas.Kube.CoreV1().Secrets(o.Namespace).Get(ctx, secret, metav1.GetOptions{}); {
	case apierrors.IsNotFound(err):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("reading the token's Secret %s of notebook %s: %w", secret, o.Name, err)
	case !ownedBy(s.OwnerReferences, oldUID):
		return "", fmt.Errorf("Secret %s is not notebook %s's (it is not owned by its job): refusing to delete it and make the notebook again; delete or rename that Secret first if it is yours to remove", secret, o.Name)
	default:
		return s.UID, nil
	}
}

// gone is true once the ended notebook's job and pod are gone; it deletes
// the old token's Secret (secretUID) on the way.
func (o *Options) gone(ctx context.Context, secretUID types.UID) (bool, error) {
	kube := o.Replicas.Kube
	secret := notebook.SecretName(o.Name)
	if _, err := o.Platform.Find(ctx, o.Ref); err == nil || !exit.IsNotFound(err) {
		return false, nil
	}
	pods, err := kube.CoreV1().Pods(o.Namespace).List(ctx, metav1.ListOptions{LabelSelector: jobmodel.NameLabel + "=" + o.Name})
	if err != nil {
		return false, err
	}
	for _, p := range pods.Items {
		if notebook.Is(p.Labels) {
			return false, nil
		}
	}
	// The old token's Secret goes with the old job; a garbage collector
	// that has not come to it yet is not waited for. Only that Secret
	// (its uid) is deleted.
	if secretUID != "" {
		err := kube.CoreV1().Secrets(o.Namespace).Delete(ctx, secret, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &secretUID}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return false, err
		}
	}
	return true, nil
}

// ownedBy is true when refs name the object of uid as an owner.
func ownedBy(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, ref := range refs {
		if uid != "" && ref.UID == uid {
			return true
		}
	}
	return false
}

// waitGone polls cond every second until it holds, ctx ends or timeout
// passes (exit 5).
func waitGone(ctx context.Context, timeout time.Duration, what string, cond func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		ok, err := cond(ctx)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return exit.TimeoutErrorf("%s still there after %s", what, timeout)
			}
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
