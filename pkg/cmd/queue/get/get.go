// Package get is "easyai queue get QUEUE": one Volcano queue, its
// resources and the jobs in it.
package get

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/queue/queueclient"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/queue"
)

// Options of queue get.
type Options struct {
	Factory       *cmdutil.Factory
	IO            *iostreams.IOStreams
	Print         *printers.PrintFlags
	Name          string
	AllNamespaces bool
	// QueueSystem is --queue-system ("": decided by the namespace).
	QueueSystem string

	client    *queue.Client
	namespace string
}

// NewCmdGet returns "queue get"; runF replaces Complete and Run in tests.
func NewCmdGet(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a description",
		printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:   "get QUEUE",
		Short: "Show one queue and the jobs in it: a Kueue LocalQueue, or a Volcano queue",
		Long: `Show one queue. Where the namespace has Kueue LocalQueues (or with
--queue-system kueue): the LocalQueue, whether it admits, its ClusterQueue's
flavors, cohort, fair-sharing weight and quota per flavor (where the user may
read it), and its jobs: those waiting first, numbered in the order Kueue
admits them (priority, then time queued), each with what it waits for, then
those admitted. -o json prints a LocalQueue document.

Else one Volcano queue: its state and weight, each resource's allocated,
capability, deserved and guarantee, and its jobs: the PodGroups in the queue
of the namespace (every namespace with -A), each with its job, phase, the
replicas it needs at once (MIN), those running, and, for a gang that waits,
the scheduler's reason (e.g. the queue's capability is reached).

One GET of the queue and one LIST of PodGroups; a user who may not list
PodGroups where asked gets the queue and one line saying its jobs are not
shown. A queue that does not exist exits 3, naming the queues there are.
-o json and -o yaml print a Queue document (docs/output.md).`,
		Example: `  easyai queue get research
  easyai queue get default -A
  easyai queue get research -o jsonpath='{.allocated}'`,
		Args:              cmdutil.ExactArgs(1, "a queue name"),
		ValidArgsFunction: completeQueues(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	o.Print.AddFlags(cmd)
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "the queue's jobs in every namespace")
	queueclient.AddSystemFlag(cmd, &o.QueueSystem)
	return cmd
}

// Validate checks -o.
func (o *Options) Validate() error { return o.Print.Validate() }

// Complete builds the client and resolves the namespace.
func (o *Options) Complete() error {
	var err error
	if o.client, err = queueclient.Of(o.Factory); err != nil {
		return err
	}
	if !o.AllNamespaces {
		o.namespace, _, err = o.Factory.Namespace()
	}
	return err
}

// Run shows the queue.
func (o *Options) Run(ctx context.Context) error {
	system, err := queueclient.System(ctx, o.Factory, o.QueueSystem)
	if err != nil {
		return err
	}
	if system == config.QueueSystemKueue {
		return o.runKueue(ctx)
	}
	q, refused, err := o.client.Get(ctx, o.Name, o.namespace)
	if err != nil {
		return err
	}
	if refused != nil {
		fmt.Fprintf(o.IO.ErrOut, "Warning: %v\n", refused)
	}
	if o.Print.IsDocument() {
		return o.Print.PrintDocument(o.IO.Out, document(q))
	}
	if err := printQueue(o.IO.Out, q); err != nil {
		return err
	}
	if refused != nil {
		return nil
	}
	return o.printJobs(q)
}

// queueDocument is the Queue document of -o json: the queue with its
// PodGroups, always a list (it shadows the queue's field, left out of a
// QueueList's items).
type queueDocument struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	*queue.Queue
	PodGroups []queue.PodGroup `json:"podGroups"`
}

// document is the queue's -o json document.
func document(q *queue.Queue) queueDocument {
	doc := queueDocument{queue.APIVersion, queue.DocumentKind, q, q.PodGroups}
	if doc.PodGroups == nil {
		doc.PodGroups = []queue.PodGroup{}
	}
	return doc
}

// printQueue writes the queue's fields and the table of its resources.
func printQueue(w io.Writer, q *queue.Queue) error {
	fmt.Fprintf(w, "Name:     %s\n", q.Name)
	fmt.Fprintf(w, "State:    %s\n", q.State)
	fmt.Fprintf(w, "Weight:   %d\n", q.Weight)
	fmt.Fprintf(w, "Jobs:     %d running, %d pending, %d admitted and being placed\n", q.Running, q.Pending, q.Inqueue)
	fmt.Fprintln(w, "Resources:")
	t := printers.NewTable(w, true, "  RESOURCE", "ALLOCATED", "CAPABILITY", "DESERVED", "GUARANTEE")
	for _, name := range resourceNames(q) {
		t.AddRow("  "+name, q.Allocated[name], q.Capability[name], q.Deserved[name], q.Guarantee[name])
	}
	return t.Render()
}

// printJobs writes the table of the queue's PodGroups in the namespace (or
// every namespace with -A), or that there are none.
func (o *Options) printJobs(q *queue.Queue) error {
	w := o.IO.Out
	where := "namespace " + o.namespace
	if o.AllNamespaces {
		where = "any namespace"
	}
	if len(q.PodGroups) == 0 {
		fmt.Fprintf(w, "Jobs in %s: none\n", where)
		return nil
	}
	fmt.Fprintf(w, "Jobs in %s:\n", where)
	headers := []string{"  JOB", "PODGROUP", "PHASE", "MIN", "RUNNING", "REASON"}
	if o.AllNamespaces {
		headers = append([]string{"  NAMESPACE"}, headers...)
		headers[1] = "JOB"
	}
	t := printers.NewTable(w, true, headers...)
	for _, pg := range q.PodGroups {
		reason := pg.Reason
		if pg.Message != "" {
			reason += ": " + oneLine(pg.Message)
		}
		row := []string{"  " + orDash(pg.Job), pg.Name, pg.Phase, strconv.Itoa(int(pg.MinMember)), strconv.Itoa(int(pg.Running)), reason}
		if o.AllNamespaces {
			row = append([]string{"  " + pg.Namespace}, row...)
			row[1] = pg.Job
		}
		t.AddRow(row...)
	}
	return t.Render()
}

// completeQueues completes queue names.
func completeQueues(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, err := queueclient.Of(f)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, err := c.List(cmd.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for _, q := range list.Items {
			names = append(names, q.Name)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
}

// resourceNames are every resource the queue names, cpu and memory first.
func resourceNames(q *queue.Queue) []string {
	seen := map[string]bool{"cpu": true, "memory": true}
	names := []string{"cpu", "memory"}
	var rest []string
	for _, r := range []queue.Resources{q.Allocated, q.Capability, q.Deserved, q.Guarantee} {
		for name := range r {
			if !seen[name] {
				seen[name] = true
				rest = append(rest, name)
			}
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine keeps a message from the cluster on one line of the table.
func oneLine(s string) string { return strings.Join(strings.Fields(jobmodel.OneLine(s)), " ") }
