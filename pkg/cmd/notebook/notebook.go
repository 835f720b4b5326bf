// Package notebook is "easyai notebook create|list|open|stop|start|delete":
// Jupyter Lab in one pod of the cluster, with the storage's workspaces
// (docs/notebooks.md). The notebook itself is made by pkg/notebook.
package notebook

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/notebook"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/waiter"
	"github.com/easyai-dev/easyai/pkg/webopen"
)

// NewCmdNotebook returns "easyai notebook" and its subcommands.
func NewCmdNotebook(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "notebook",
		Aliases: []string{"nb"},
		Short:   "Jupyter notebooks in the cluster, with the team's storage",
		Long: `A notebook is Jupyter Lab in one pod of the cluster: your workspace
(notebook/USER on the team's storage) and the team's (notebook/public) under
/notebooks, GPUs if you ask for them, cpu and memory requested below their
limits (a notebook is idle most of the time), shut down by Jupyter when idle
and by Kubernetes at --max-duration. Stopping it frees its pod and GPUs and
keeps the workspace; starting it brings it back.

A notebook is a PyTorchJob of one replica labelled easyai.io/notebook=true:
get, logs, exec and delete work on it as on any job (docs/notebooks.md).`,
		Example: `  easyai notebook create explore --gpus 1
  easyai notebook open explore
  easyai notebook stop explore
  easyai notebook start explore
  easyai notebook list
  easyai notebook delete explore`,
	}
	cmd.AddCommand(newCmdCreate(f, nil), newCmdList(f, nil), newCmdOpen(f, nil), newCmdStop(f, nil), newCmdStart(f, nil), newCmdDelete(f, nil))
	return cmd
}

// kind is the kind notebooks are.
func kind(f *cmdutil.Factory) (kinds.Kind, error) {
	k, ok := f.Kinds.Lookup(notebook.KindName)
	if !ok {
		return nil, fmt.Errorf("internal error: no kind %s for notebooks", notebook.KindName)
	}
	return k, nil
}

// ref is the job of notebook name.
func ref(f *cmdutil.Factory, name string) (jobclient.Ref, error) {
	if err := submit.CheckName("notebook", name); err != nil {
		return jobclient.Ref{}, err
	}
	k, err := kind(f)
	if err != nil {
		return jobclient.Ref{}, err
	}
	return jobclient.Ref{Kind: k, Name: name}, nil
}

func completeNotebooks(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		p, err := f.Platform()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		k, err := kind(f)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		jobs, err := p.List(cmd.Context(), platform.ListOptions{Kinds: []kinds.Kind{k}, Selector: notebook.Label + "=true"})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, j := range jobs {
			out = append(out, j.Item.Name)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// ---- create

type createOptions struct {
	Factory   *cmdutil.Factory
	IO        *iostreams.IOStreams
	Spec      notebook.Spec
	DryRunArg string
	Print     *printers.PrintFlags
	Wait      bool
	Timeout   time.Duration

	dryRun submit.DryRun
	sub    *submit.Submission
	p      platform.Platform
}

func newCmdCreate(f *cmdutil.Factory, runF func(*createOptions) error) *cobra.Command {
	o := &createOptions{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a line", printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a notebook and start it",
		Long: `Create a notebook: Jupyter Lab in one pod, its login token generated and
kept in a Secret owned by the notebook (NAME-jupyter).

Mounted from the team's storage (--storage, or the configuration's): your
workspace notebook/USER at /notebooks/home and the team's notebook/public at
/notebooks/public, Jupyter's root being /notebooks. A notebook needs a
storage: without one it exits 2.

--cpu and --memory are the limits; the pod requests a quarter of them
(--overcommit 4) so that idle notebooks do not hold a node's capacity. GPUs
are requested as asked, never overcommitted.

With --idle-timeout (8h by default; 0: never) Jupyter culls idle kernels and
terminals and then shuts itself down: the notebook ends (Ended), its pod and
GPUs go, "easyai notebook start" brings it back. --max-duration (7 days by
default; 0: none) is a hard deadline counted from its start.

The image must run "jupyter lab" (default: the configuration's
notebook-image, else ` + notebook.DefaultImage + `).`,
		Example: `  easyai notebook create explore
  easyai notebook create finetune --gpus 1 --image quay.io/jupyter/pytorch-notebook:cuda12-python-3.12 --memory 32Gi
  easyai notebook create scratch --idle-timeout 1h --max-duration 24h`,
		Args: cmdutil.ExactArgs(1, "the notebook's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Spec.Name = args[0]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Spec.Image, "image", "", "image running jupyter lab (default: the configuration's notebook-image, else "+notebook.DefaultImage+")")
	fl.IntVar(&o.Spec.GPUs, "gpus", 0, "GPUs of the notebook")
	fl.StringVar(&o.Spec.CPU, "cpu", notebook.DefaultCPU, "CPU limit")
	fl.StringVar(&o.Spec.Memory, "memory", notebook.DefaultMemory, "memory limit")
	fl.IntVar(&o.Spec.Overcommit, "overcommit", notebook.DefaultOvercommit, "cpu and memory are requested at their limit divided by this (1: not overcommitted)")
	fl.DurationVar(&o.Spec.IdleTimeout, "idle-timeout", notebook.DefaultIdleTimeout, "Jupyter shuts down after this long without activity (0: never)")
	fl.DurationVar(&o.Spec.MaxDuration, "max-duration", notebook.DefaultMaxDuration, "the notebook is stopped after running this long (0: never)")
	fl.StringVar(&o.Spec.Storage, "storage", "", "the team's storage, pvc:CLAIM[:/prefix] or nfs:SERVER:/export[:/prefix] (default: the configuration's storage)")
	fl.StringArrayVar(&o.Spec.NodeSelectors, "node-selector", nil, "node label KEY=VALUE the pod must run on (repeatable)")
	fl.StringArrayVar(&o.Spec.Tolerations, "toleration", nil, "tolerate a taint: key[=value]:effect (repeatable)")
	fl.StringArrayVar(&o.Spec.PullSecrets, "image-pull-secret", nil, "Secret to pull the image with (repeatable)")
	fl.StringVar(&o.DryRunArg, "dry-run", string(submit.DryRunNone), `print the notebook's job without creating it: "client", or "server"`)
	fl.Lookup("dry-run").NoOptDefVal = "client"
	cmdutil.AddWaitFlags(cmd, &o.Wait, "wait until the notebook runs", &o.Timeout, 10*time.Minute)
	o.Print.AddFlags(cmd)
	return cmd
}

func (o *createOptions) Validate() error {
	var err error
	if o.dryRun, err = submit.ParseDryRun(o.DryRunArg); err != nil {
		return err
	}
	if o.Wait && o.dryRun != submit.DryRunNone {
		return exit.UsageErrorf("--wait: a dry run creates nothing to wait for")
	}
	if err := o.Print.Validate(); err != nil {
		return err
	}
	if o.Spec.Image != "" {
		if err := submit.CheckImage("--image", o.Spec.Image); err != nil {
			return err
		}
	}
	return o.Spec.Check()
}

func (o *createOptions) Complete() error {
	cfg, err := o.Factory.Config()
	if err != nil {
		return err
	}
	if o.Spec.Image == "" {
		o.Spec.Image = cfg.NotebookImage
	}
	if o.Spec.Image == "" {
		o.Spec.Image = notebook.DefaultImage
	}
	k, err := kind(o.Factory)
	if err != nil {
		return err
	}
	if o.sub, err = o.Spec.Submission(o.Factory.Kinds, k); err != nil {
		return err
	}
	if err := cmdutil.CompleteSubmission(o.Factory, o.sub); err != nil {
		return err
	}
	o.sub.Prompter = nil // everything is given
	o.sub.DryRun = o.dryRun
	o.p, err = o.Factory.Platform()
	return err
}

func (o *createOptions) Run(ctx context.Context) error {
	res, err := o.p.Submit(ctx, o.sub)
	if err != nil {
		return err
	}
	if o.dryRun != submit.DryRunNone || o.Print.Format() != printers.FormatDefault {
		byDefault := printers.FormatDefault
		if o.dryRun != submit.DryRunNone {
			byDefault = printers.FormatYAML
		}
		return cmdutil.PrintSubmitted(o.Factory, o.p, o.Print, res, byDefault)
	}
	fmt.Fprintf(o.IO.Out, "notebook %s created in %s\n", o.Spec.Name, o.p.Where())
	if o.Wait {
		if err := cmdutil.WaitFor(ctx, o.Factory, jobclient.Ref{Kind: o.sub.Kind, Name: o.Spec.Name}, waiter.Running, o.Timeout); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "Open it with: %s notebook open %s\n", o.Factory.ExecutableName, o.Spec.Name)
	return nil
}

// ---- list

type listOptions struct {
	Factory       *cmdutil.Factory
	IO            *iostreams.IOStreams
	AllNamespaces bool
	Mine          bool
	Print         *printers.PrintFlags

	p platform.Platform
}

func newCmdList(f *cmdutil.Factory, runF func(*listOptions) error) *cobra.Command {
	o := &listOptions{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table", printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the notebooks",
		Long: `List the notebooks of the namespace (every namespace with -A), newest first:
their state (Running, Pending, Stopped, Ended when Jupyter shut down idle,
Failed), GPUs, user and age. One request: the notebooks' jobs, by label.
-o json prints a JobList document, as "easyai list" does.`,
		Example: `  easyai notebook list
  easyai notebook list --mine -o name`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "list the notebooks of every namespace")
	cmd.Flags().BoolVar(&o.Mine, "mine", false, "only your notebooks")
	o.Print.AddFlags(cmd)
	return cmd
}

func (o *listOptions) Validate() error { return o.Print.Validate() }

func (o *listOptions) Complete() error {
	var err error
	o.p, err = o.Factory.Platform()
	return err
}

func (o *listOptions) Run(ctx context.Context) error {
	k, err := kind(o.Factory)
	if err != nil {
		return err
	}
	jobs, err := o.p.List(ctx, platform.ListOptions{Kinds: []kinds.Kind{k}, KindsAsked: true, Selector: notebook.Label + "=true",
		AllNamespaces: o.AllNamespaces, Mine: o.Mine})
	if err != nil {
		return err
	}
	switch o.Print.Format() {
	case printers.FormatJSON, printers.FormatYAML:
		l := jobclient.List{APIVersion: jobclient.APIVersion, Kind: jobclient.ListDocumentKind, Items: make([]jobclient.Item, len(jobs))}
		for i, j := range jobs {
			l.Items[i] = j.Item
		}
		if o.Print.Format() == printers.FormatJSON {
			return printers.JSON(o.IO.Out, l)
		}
		return printers.YAML(o.IO.Out, l)
	case printers.FormatName:
		for _, j := range jobs {
			fmt.Fprintln(o.IO.Out, j.Item.Name)
		}
		return nil
	}
	header := []string{"NAME", "STATE", "GPUS", "USER", "AGE"}
	if o.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), header...)
	for _, j := range jobs {
		it := j.Item
		row := []string{jobmodel.OneLine(it.Name), notebook.Describe(it.Status.State), fmt.Sprint(it.GPUs), jobmodel.OneLine(it.User), printers.Age(time.Now(), it.Created)}
		if o.AllNamespaces {
			row = append([]string{it.Namespace}, row...)
		}
		t.AddRow(row...)
	}
	if t.Len() == 0 && o.IO.IsStdoutTTY() {
		fmt.Fprintf(o.IO.ErrOut, "No notebooks in %s. Create one with: %s notebook create NAME\n", o.p.Where(), o.Factory.ExecutableName)
		return nil
	}
	return t.Render()
}

// ---- open

func newCmdOpen(f *cmdutil.Factory, runF func(*webopen.Options) error) *cobra.Command {
	o := &webopen.Options{Factory: f, IO: f.IOStreams, Name: notebook.Endpoint}
	cmd := &cobra.Command{
		Use:   "open NAME",
		Short: "Open a notebook in the browser, logged in",
		Long: `Forward a local port to the notebook's Jupyter Lab, print its URL and open it
in the browser logged in with its token, until Ctrl-C: "easyai open NAME
jupyter" for a notebook. The token goes to the browser through a private
page, never on stdout (--show-token prints it) or on a command line.`,
		Example: `  easyai notebook open explore
  easyai notebook open explore --no-browser --port 8888`,
		Args:              cmdutil.ExactArgs(1, "the notebook's name"),
		ValidArgsFunction: completeNotebooks(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := ref(f, args[0])
			if err != nil {
				return err
			}
			o.JobArg = r.Kind.Name() + "/" + r.Name
			o.Check = func(j *remote.Job) error {
				if !notebook.Is(j.Object.GetLabels()) {
					return notebook.NotANotebook(args[0])
				}
				return nil
			}
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Address, "address", "127.0.0.1", "local address to listen on (an IP address or localhost)")
	fl.IntVar(&o.LocalPort, "port", 0, "local port (default: a free one)")
	fl.BoolVar(&o.NoBrowser, "no-browser", false, "only print the URL")
	fl.BoolVar(&o.ShowToken, "show-token", false, "print the URL with the login token (the token is a secret)")
	return cmd
}

// ---- stop and start

type stateOptions struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	Name    string
	Wait    bool
	Timeout time.Duration
	start   bool

	ref       jobclient.Ref
	namespace string
	client    *jobclient.Client
	replicas  *cmdutil.Replicas
	p         platform.Platform
}

func newCmdStop(f *cmdutil.Factory, runF func(*stateOptions) error) *cobra.Command {
	o := &stateOptions{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "stop NAME",
		Short: "Stop a notebook: free its pod and GPUs, keep its workspace",
		Long: `Stop a running or pending notebook: its pod (and GPUs) go, the notebook and
its workspace on the storage stay; "easyai notebook start" brings it back
with a new pod. What is only in the pod (outside /notebooks) is lost, and
running kernels end.`,
		Example:           `  easyai notebook stop explore`,
		Args:              cmdutil.ExactArgs(1, "the notebook's name"),
		ValidArgsFunction: completeNotebooks(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	cmdutil.AddWaitFlags(cmd, &o.Wait, "wait until its pod is gone", &o.Timeout, 10*time.Minute)
	return cmd
}

func newCmdStart(f *cmdutil.Factory, runF func(*stateOptions) error) *cobra.Command {
	o := &stateOptions{Factory: f, IO: f.IOStreams, start: true}
	cmd := &cobra.Command{
		Use:   "start NAME",
		Short: "Start a stopped or ended notebook again",
		Long: `Start a notebook again: one stopped ("easyai notebook stop") gets a new pod;
one that ended (Jupyter shut it down idle, or its --max-duration passed) is
created again as it was created, with a new token: the same name, image,
resources and workspaces.`,
		Example:           `  easyai notebook start explore --wait`,
		Args:              cmdutil.ExactArgs(1, "the notebook's name"),
		ValidArgsFunction: completeNotebooks(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	cmdutil.AddWaitFlags(cmd, &o.Wait, "wait until it runs", &o.Timeout, 10*time.Minute)
	return cmd
}

func (o *stateOptions) Validate() error {
	var err error
	o.ref, err = ref(o.Factory, o.Name)
	return err
}

func (o *stateOptions) Complete() error {
	var err error
	if o.replicas, err = cmdutil.ReplicaClients(o.Factory); err != nil {
		return err
	}
	o.namespace, o.client = o.replicas.Namespace, o.replicas.Jobs
	o.p, err = o.Factory.Platform()
	return err
}

func (o *stateOptions) Run(ctx context.Context) error {
	verb := "stopped"
	if o.start {
		verb = "resumed"
	}
	t, err := o.client.FindSuspendable(ctx, o.namespace, o.ref, verb)
	if err != nil {
		return err
	}
	if !notebook.Is(t.Object.GetLabels()) {
		return notebook.NotANotebook(o.Name)
	}
	state := t.Summary.Status.State
	if !o.start {
		switch {
		case state == jobmodel.Suspended:
			return fmt.Errorf("notebook %s is already stopped", o.Name)
		case state.Final():
			return fmt.Errorf("notebook %s has ended (%s): there is nothing to stop; start it again with: %s notebook start %s", o.Name, notebook.Describe(state), o.Factory.ExecutableName, o.Name)
		}
		if err := t.DeletedSinceFound(t.Suspender.Suspend(ctx, o.client.Dynamic, t.Object), o.namespace); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.Out, "stopped notebook %s\n", o.Name)
		fmt.Fprintf(o.IO.ErrOut, "Its workspace stays on the storage. Start it again with: %s notebook start %s\n", o.Factory.ExecutableName, o.Name)
		if o.Wait {
			return cmdutil.WaitFor(ctx, o.Factory, o.ref, waiter.Suspended, o.Timeout)
		}
		return nil
	}
	switch {
	case state == jobmodel.Suspended:
		if err := t.DeletedSinceFound(t.Suspender.Resume(ctx, o.client.Dynamic, t.Object), o.namespace); err != nil {
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
		if err := cmdutil.WaitFor(ctx, o.Factory, o.ref, waiter.Running, o.Timeout); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "Open it with: %s notebook open %s\n", o.Factory.ExecutableName, o.Name)
	return nil
}

// recreate deletes the ended notebook's job, waits until it, its pod and
// its token's Secret are gone, and submits what it was created with again
// under the same name.
func (o *stateOptions) recreate(ctx context.Context) error {
	job, err := o.p.Find(ctx, o.ref)
	if err != nil {
		return err
	}
	recorded, err := o.p.Recorded(ctx, job)
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
	sub := &submit.Submission{
		Kinds: o.Factory.Kinds, Kind: o.ref.Kind,
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
	// The token's Secret is deleted with the old job only when it is the
	// old job's: one of the same name that someone else made stays, and
	// the notebook is not made again over it.
	kube := o.replicas.Kube
	secret := notebook.SecretName(o.Name)
	oldUID := types.UID(job.Item.UID)
	var secretUID types.UID
	switch s, err := kube.CoreV1().Secrets(o.namespace).Get(ctx, secret, metav1.GetOptions{}); {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("reading the token's Secret %s of notebook %s: %w", secret, o.Name, err)
	case !ownedBy(s.OwnerReferences, oldUID):
		return fmt.Errorf("Secret %s is not notebook %s's (it is not owned by its job): refusing to delete it and make the notebook again; delete or rename that Secret first if it is yours to remove", secret, o.Name)
	default:
		secretUID = s.UID
	}
	if err := o.p.Delete(ctx, job); err != nil && !jobclient.IsNotFound(err) {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "Notebook %s had ended: creating it again\n", o.Name)
	err = waitGone(ctx, 2*time.Minute, "the ended notebook's job and pod", func(ctx context.Context) (bool, error) {
		if _, err := o.p.Find(ctx, o.ref); err == nil || !jobclient.IsNotFound(err) {
			return false, nil
		}
		pods, err := kube.CoreV1().Pods(o.namespace).List(ctx, metav1.ListOptions{LabelSelector: jobmodel.NameLabel + "=" + o.Name})
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
			err := kube.CoreV1().Secrets(o.namespace).Delete(ctx, secret, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &secretUID}})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return false, err
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	_, err = o.p.Submit(ctx, sub)
	return err
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

// ---- delete

type deleteOptions struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	Name    string
	Yes     bool

	ref jobclient.Ref
	p   platform.Platform
}

func newCmdDelete(f *cmdutil.Factory, runF func(*deleteOptions) error) *cobra.Command {
	o := &deleteOptions{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a notebook; its workspace stays on the storage",
		Long: `Delete a notebook: its job, pod and token's Secret. The workspaces on the
storage (notebook/USER, notebook/public) are not touched. Asks first on a
terminal; --yes does not ask (and is needed without a terminal).`,
		Example:           `  easyai notebook delete explore --yes`,
		Args:              cmdutil.ExactArgs(1, "the notebook's name"),
		ValidArgsFunction: completeNotebooks(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "do not ask for confirmation")
	return cmd
}

func (o *deleteOptions) Validate() error {
	var err error
	o.ref, err = ref(o.Factory, o.Name)
	return err
}

func (o *deleteOptions) Complete() error {
	var err error
	o.p, err = o.Factory.Platform()
	return err
}

func (o *deleteOptions) Run(ctx context.Context) error {
	job, err := o.p.Find(ctx, o.ref)
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
