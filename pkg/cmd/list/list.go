// Package list is "easyai list": the jobs of every kind in a namespace.
package list

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of list.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams

	AllNamespaces bool
	AllContexts   bool
	Print         *printers.PrintFlags
	KindNames     []string
	StatusNames   []string
	Experiment    string
	User          string
	Mine          bool
	Selector      string
	Adopt         []string

	// Set by Validate.
	Kinds  []kinds.Kind
	States []jobmodel.State
	// ManyContexts: --all-contexts, or --context naming several contexts
	// (ContextsAsked, in the order given).
	ManyContexts  bool
	ContextsAsked []string

	// Set by Complete.
	Platform platform.Platform
	// Contexts are the contexts listed, sorted (ManyContexts).
	Contexts []string
}

// long is list's help.
const long = `List the training jobs of every kind (TFJob, PyTorchJob, ...) in the namespace,
or in all namespaces with -A, newest first.

Jobs made without easyai are listed too: their USER is "(external)" when they
name no user, and -o wide shows who manages them (MANAGED-BY).

STATUS is easyai's state of the job: Queued (waiting for resources as a
gang), Pending, Running, Succeeded, Failed, Suspended or Unknown. WORKERS is
replicas running of replicas asked for, over every role. Both come from the
job objects alone: list makes one request per kind and none per job.

-o wide adds REASON: what a pod of the job shows wrong, in one cell
("master-0: CrashLoopBackOff", "worker-1: OOMKilled (+2 more)",
"master-0: Unschedulable", "master-0: FailedMount" for a missing Secret),
else the operator's reason for the job's state. For it, -o wide reads the
namespace's pods once, as the API server's table of their statuses, and the
FailedScheduling or FailedMount events only when a pod waits without saying
why (and, for up to 10 jobs whose waiting pod no event explains, that pod's
scheduling condition).

A kind you may not list (RBAC) is skipped with a warning on stderr, and the
jobs of the others are listed; list fails only when you may list no kind
there ("easyai doctor" shows what you may do).

On a terminal the jobs are a table; otherwise each job is one line of
tab-separated columns without a header. -o json and -o yaml print a JobList
document (docs/output.md); -o name prints KIND/NAME lines.

On a timaker cluster (--cluster) list shows the jobs submitted from this
machine, which easyai keeps in a local index, their status read from
timaker; --id adds a job submitted elsewhere (docs/timaker.md).

--all-contexts lists the jobs of every context of the kubeconfig, and
--context A,B (a comma list) those of the contexts named, several at once,
each in its own namespace (the context's, unless -n or -A). The table
starts with CONTEXT, then NAMESPACE unless -n names one for all; jobs are
sorted by context, then as above. -o json and -o yaml add "context" to each
item, -o name prints CONTEXT/KIND/NAME lines. A context that cannot be
listed (its server down, its credentials refused) is one line on stderr and
the others are listed: list fails only when none could be. Each context
uses its own credentials: --token, --client-certificate, --client-key,
--certificate-authority, --tls-server-name and --insecure-skip-tls-verify,
which speak for one cluster, are refused with several contexts. Every other
command works in one context, named as kubectl names it: easyai get NAME
--context CONTEXT (docs/output.md).`

// examples are list's examples.
const examples = `  easyai list
  easyai list -A --status running,queued
  easyai list --kind tf --experiment lr-sweep -o wide
  easyai list --mine -o json | jq -r '.items[].name'
  easyai list -l team=vision -o name
  easyai list --all-contexts --status running
  easyai list --context east,west -o json | jq -r '.items[] | .context + " " + .name'
  easyai list --cluster prod --id train-20261123-42`

// NewCmdList returns the command; runF replaces Complete and Run in tests.
func NewCmdList(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table",
		printers.FormatWide, printers.FormatJSON, printers.FormatYAML, printers.FormatName, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List training jobs",
		Long:    long,
		Example: examples,
		Args:    cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			if err := o.Complete(cmd.Context()); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.addFlags(cmd)
	return cmd
}

// addFlags adds list's flags, --kind and --status completed with the
// kinds and states there are.
func (o *Options) addFlags(cmd *cobra.Command) {
	f := o.Factory
	fl := cmd.Flags()
	fl.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "list the jobs of every namespace")
	fl.BoolVar(&o.AllContexts, "all-contexts", false, "list the jobs of every context of the kubeconfig, at once (--context A,B: of those)")
	o.Print.AddFlags(cmd)
	fl.StringSliceVar(&o.KindNames, "kind", nil, "only jobs of these kinds ("+strings.Join(f.Kinds.Names(), ", ")+", or an alias; repeatable or comma-separated)")
	fl.StringSliceVar(&o.StatusNames, "status", nil, "only jobs in these states ("+strings.ToLower(stateNames())+"; repeatable or comma-separated)")
	fl.StringVar(&o.Experiment, "experiment", "", "only the jobs of this experiment")
	fl.StringVar(&o.User, "user", "", "only the jobs this user submitted")
	fl.BoolVar(&o.Mine, "mine", false, "only the jobs you submitted (the user the API server knows you as)")
	fl.StringVarP(&o.Selector, "selector", "l", "", "label selector, passed to the API server (e.g. team=vision,tier!=dev)")
	fl.StringSliceVar(&o.Adopt, "id", nil, "timaker clusters: add the jobs of these timaker ids, submitted elsewhere, to this machine's list first (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions(f.Kinds.Names(), cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("status", cobra.FixedCompletions(strings.Split(strings.ToLower(stateNames()), ", "), cobra.ShellCompDirectiveNoFileComp))
}

func stateNames() string {
	names := make([]string, len(jobmodel.States))
	for i, s := range jobmodel.States {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}

// Validate checks the flags without reaching the cluster.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	if o.Mine && o.User != "" {
		return exit.UsageErrorf("--mine and --user %q: give one of them", o.User)
	}
	kinds, err := ParseKinds(o.Factory.Kinds, o.KindNames)
	if err != nil {
		return err
	}
	o.Kinds = kinds
	states, err := ParseStates(o.StatusNames)
	if err != nil {
		return err
	}
	o.States = states
	if err := jobclient.CheckSelection(o.Selector, o.Experiment); err != nil {
		return err
	}
	return o.validateContexts()
}

// ParseKinds resolves kind names and aliases; none means every kind.
func ParseKinds(reg *kinds.Registry, names []string) ([]kinds.Kind, error) {
	var out []kinds.Kind
	seen := map[string]bool{}
	for _, name := range names {
		k, ok := reg.Lookup(strings.TrimSpace(name))
		if !ok {
			return nil, exit.UsageErrorf("--kind %q: unknown kind (known: %s)", name, strings.Join(reg.Names(), ", "))
		}
		if !seen[k.Name()] {
			seen[k.Name()] = true
			out = append(out, k)
		}
	}
	return out, nil
}

// ParseStates resolves state names, case-insensitively.
func ParseStates(names []string) ([]jobmodel.State, error) {
	var out []jobmodel.State
	for _, name := range names {
		found := false
		for _, s := range jobmodel.States {
			if strings.EqualFold(strings.TrimSpace(name), string(s)) {
				out, found = append(out, s), true
				break
			}
		}
		if !found {
			return nil, exit.UsageErrorf("--status %q: not a state (states: %s)", name, strings.ToLower(stateNames()))
		}
	}
	return out, nil
}

// Complete resolves the platform, or the contexts to list.
func (o *Options) Complete(ctx context.Context) error {
	if o.ManyContexts {
		if err := o.completeContexts(); err != nil || o.ManyContexts {
			return err
		}
	}
	p, err := o.Factory.Platform()
	o.Platform = p
	return err
}

// Run lists and prints the jobs.
func (o *Options) Run(ctx context.Context) error {
	opts := platform.ListOptions{
		AllNamespaces: o.AllNamespaces,
		Kinds:         o.Kinds,
		KindsAsked:    len(o.KindNames) > 0,
		Selector:      o.Selector,
		Experiment:    o.Experiment,
		States:        o.States,
		User:          o.User,
		Mine:          o.Mine,
		Adopt:         o.Adopt,
		PodReasons:    o.Print.Format() == printers.FormatWide,
	}
	if o.ManyContexts {
		return o.runContexts(ctx, opts)
	}
	jobs, err := o.Platform.List(ctx, opts)
	if err != nil {
		return err
	}
	now := o.Factory.Now()
	if o.Print.IsDocument() {
		l := jobmodel.List{APIVersion: jobmodel.APIVersion, Kind: jobmodel.ListDocumentKind, Items: make([]jobmodel.Item, len(jobs))}
		for i, j := range jobs {
			l.Items[i] = j.Item
		}
		return o.Print.PrintDocument(o.IO.Out, l)
	}
	if o.Print.Format() == printers.FormatName {
		for _, j := range jobs {
			fmt.Fprintln(o.IO.Out, j)
		}
		return nil
	}
	if len(jobs) == 0 {
		if o.AllNamespaces {
			fmt.Fprintln(o.IO.ErrOut, "No jobs found.")
		} else {
			fmt.Fprintf(o.IO.ErrOut, "No jobs found in %s.\n", o.Platform.Where())
		}
		return nil
	}
	return o.printTable(jobs, now)
}

func (o *Options) printTable(js []*platform.Job, now time.Time) error {
	header := jobHeader(o.Print.Format() == printers.FormatWide)
	if o.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), header...)
	for _, j := range js {
		row := o.jobRow(j, now)
		if o.AllNamespaces {
			row = append([]string{j.Item.Namespace}, row...)
		}
		t.AddRow(row...)
	}
	return t.Render()
}

// jobHeader are the columns of a job, after where it is.
func jobHeader(wide bool) []string {
	header := []string{"NAME", "KIND", "STATUS", "WORKERS", "GPUS", "AGE", "DURATION", "USER"}
	if wide {
		header = append(header, "EXPERIMENT", "REASON", "MANAGED-BY")
	}
	return header
}

// jobRow are the cells of jobHeader.
func (o *Options) jobRow(j *platform.Job, now time.Time) []string {
	s := j.Item.Summary
	row := []string{
		s.Name, j.Item.KindName, s.ShownState(),
		fmt.Sprintf("%d/%d", s.Workers.Ready, s.Workers.Total),
		printers.GPUs(s.GPUs),
		printers.Age(now, s.Created), printers.JobDuration(&s, now), printers.JobUser(&s),
	}
	if o.Print.Format() == printers.FormatWide {
		reason := s.Status.Reason
		if j.PodReason != "" {
			reason = j.PodReason
		}
		row = append(row, s.Experiment, reason, s.ManagedBy)
	}
	return row
}
