// Package queue is "easyai queue list|get": Volcano's queues, what they
// may hold and hold, and the jobs in them.
package queue

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/queue"
)

// NewCmdQueue returns "easyai queue" and its subcommands.
func NewCmdQueue(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "queue",
		Short: "Show Volcano queues: what each may hold, holds, and its jobs",
		Long: `Show the Volcano queues jobs are submitted to with --queue (gang jobs and
Volcano jobs wait in them): their weight, the most each may hold
(capability), what it deserves and is guaranteed, what its running jobs hold
(allocated, as Volcano's scheduler counts it), and how many jobs run and
wait in it.

Queues are cluster-wide objects: reading them needs the right to get and
list queues.scheduling.volcano.sh, which a cluster admin may give a
team (examples/rbac/easyai-scheduling-reader.yaml).`,
		Example: `  easyai queue list
  easyai queue get research
  easyai queue get research -A -o json | jq '.podGroups[] | select(.phase != "Running")'`,
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(newCmdList(f, nil), newCmdGet(f, nil))
	return cmd
}

// ListOptions of queue list.
type ListOptions struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	Print   *printers.PrintFlags

	client *queue.Client
}

func newCmdList(f *cmdutil.Factory, runF func(*ListOptions) error) *cobra.Command {
	o := &ListOptions{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table",
		printers.FormatJSON, printers.FormatYAML, printers.FormatName, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the Volcano queues",
		Long: `List the Volcano queues, by name: STATE, WEIGHT, then GPUS, CPU and MEMORY as
allocated/capability ("-" for no capability), RUNNING and PENDING jobs
(PodGroups; PENDING counts those waiting to be admitted and those admitted
whose pods wait to be placed). One LIST of queues.

GPUs are counted as the configuration's gpu-resource (nvidia.com/gpu by
default). -o json and -o yaml print a QueueList document (docs/output.md)
with every resource of each queue; -o name prints the queues' names.`,
		Example: `  easyai queue list
  easyai queue list -o json | jq '.items[] | {name, allocated, capability}'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	o.Print.AddFlags(cmd)
	return cmd
}

// Validate checks -o.
func (o *ListOptions) Validate() error { return o.Print.Validate() }

// Complete builds the client.
func (o *ListOptions) Complete() error {
	var err error
	o.client, err = client(o.Factory)
	return err
}

// Run lists the queues.
func (o *ListOptions) Run(ctx context.Context) error {
	list, err := o.client.List(ctx)
	if err != nil {
		return err
	}
	switch {
	case o.Print.IsDocument():
		return o.Print.PrintDocument(o.IO.Out, list)
	case o.Print.Format() == printers.FormatName:
		for _, q := range list.Items {
			fmt.Fprintln(o.IO.Out, q.Name)
		}
		return nil
	case len(list.Items) == 0:
		fmt.Fprintln(o.IO.ErrOut, "No queues found.")
		return nil
	}
	gpu, err := gpuResource(o.Factory)
	if err != nil {
		return err
	}
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), "NAME", "STATE", "WEIGHT", "GPUS", "CPU", "MEMORY", "RUNNING", "PENDING")
	for _, q := range list.Items {
		t.AddRow(q.Name, q.State, strconv.Itoa(int(q.Weight)),
			ofCapability(q, gpu, printers.GPUs), ofCapability(q, "cpu", printers.Cores), ofCapability(q, "memory", bytes),
			strconv.Itoa(int(q.Running)), strconv.Itoa(int(q.Pending+q.Inqueue)))
	}
	return t.Render()
}

// GetOptions of queue get.
type GetOptions struct {
	Factory       *cmdutil.Factory
	IO            *iostreams.IOStreams
	Print         *printers.PrintFlags
	Name          string
	AllNamespaces bool

	client    *queue.Client
	namespace string
}

func newCmdGet(f *cmdutil.Factory, runF func(*GetOptions) error) *cobra.Command {
	o := &GetOptions{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a description",
		printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:   "get QUEUE",
		Short: "Show one Volcano queue and the jobs in it",
		Long: `Show one Volcano queue: its state and weight, each resource's allocated,
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
	return cmd
}

// Validate checks -o.
func (o *GetOptions) Validate() error { return o.Print.Validate() }

// Complete builds the client and resolves the namespace.
func (o *GetOptions) Complete() error {
	var err error
	if o.client, err = client(o.Factory); err != nil {
		return err
	}
	if !o.AllNamespaces {
		o.namespace, _, err = o.Factory.Namespace()
	}
	return err
}

// Run shows the queue.
func (o *GetOptions) Run(ctx context.Context) error {
	q, refused, err := o.client.Get(ctx, o.Name, o.namespace)
	if err != nil {
		return err
	}
	if refused != nil {
		fmt.Fprintf(o.IO.ErrOut, "Warning: %v\n", refused)
	}
	if o.Print.IsDocument() {
		// PodGroups here is always a list: it shadows the queue's field,
		// left out of a QueueList's items.
		doc := struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			*queue.Queue
			PodGroups []queue.PodGroup `json:"podGroups"`
		}{queue.APIVersion, queue.DocumentKind, q, q.PodGroups}
		if doc.PodGroups == nil {
			doc.PodGroups = []queue.PodGroup{}
		}
		return o.Print.PrintDocument(o.IO.Out, doc)
	}
	w := o.IO.Out
	fmt.Fprintf(w, "Name:     %s\n", q.Name)
	fmt.Fprintf(w, "State:    %s\n", q.State)
	fmt.Fprintf(w, "Weight:   %d\n", q.Weight)
	fmt.Fprintf(w, "Jobs:     %d running, %d pending, %d admitted and being placed\n", q.Running, q.Pending, q.Inqueue)
	fmt.Fprintln(w, "Resources:")
	t := printers.NewTable(w, true, "  RESOURCE", "ALLOCATED", "CAPABILITY", "DESERVED", "GUARANTEE")
	for _, name := range resourceNames(q) {
		t.AddRow("  "+name, q.Allocated[name], q.Capability[name], q.Deserved[name], q.Guarantee[name])
	}
	if err := t.Render(); err != nil {
		return err
	}
	where := "namespace " + o.namespace
	if o.AllNamespaces {
		where = "any namespace"
	}
	if refused != nil {
		return nil
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
	t = printers.NewTable(w, true, headers...)
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

// client is a queue client on the factory's cluster (Kubernetes only: on
// a timaker cluster the factory's jobs client says so).
func client(f *cmdutil.Factory) (*queue.Client, error) {
	jobs, err := f.JobsClient()
	if err != nil {
		return nil, err
	}
	return &queue.Client{Dynamic: jobs.Dynamic}, nil
}

// gpuResource is the configuration's GPU resource.
func gpuResource(f *cmdutil.Factory) (string, error) {
	cfg, err := f.Config()
	if err != nil {
		return "", err
	}
	return cfg.GPUResource, nil
}

// completeQueues completes queue names.
func completeQueues(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, err := client(f)
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

// ofCapability is "allocated/capability" of a resource, "allocated/-"
// without a capability.
func ofCapability(q queue.Queue, name string, format func(float64) string) string {
	allocated, _ := q.Allocated.Quantity(name)
	capability, ok := q.Capability.Quantity(name)
	if !ok {
		return format(allocated) + "/-"
	}
	return format(allocated) + "/" + format(capability)
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

func bytes(n float64) string { return printers.Bytes(int64(n)) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine keeps a message from the cluster on one line of the table.
func oneLine(s string) string { return strings.Join(strings.Fields(jobmodel.OneLine(s)), " ") }
