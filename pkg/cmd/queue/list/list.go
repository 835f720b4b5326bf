// Package list is "easyai queue list": the Volcano queues, what each may
// hold and holds, and how many jobs run and wait in it.
package list

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/queue/queueclient"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/queue"
)

// Options of queue list.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	Print   *printers.PrintFlags
	// QueueSystem is --queue-system ("": decided by the namespace).
	QueueSystem string

	client *queue.Client
}

// NewCmdList returns "queue list"; runF replaces Complete and Run in tests.
func NewCmdList(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table",
		printers.FormatJSON, printers.FormatYAML, printers.FormatName, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the queues: Kueue's LocalQueues, or Volcano's queues",
		Long: `List the queues jobs wait in. Where the namespace has Kueue LocalQueues
(or with --queue-system kueue): each LocalQueue with its ClusterQueue, whether
it admits (ACTIVE), its PENDING and ADMITTED workloads, and GPUS as used/
nominal quota of its ClusterQueue; then, for each ClusterQueue the user may
read (they are cluster-wide), its nominal quota, usage and borrowing per
resource flavor. -o json prints a LocalQueueList.

Else the Volcano queues, by name: STATE, WEIGHT, then GPUS, CPU and MEMORY as
allocated/capability ("-" for no capability), RUNNING and PENDING jobs
(PodGroups; PENDING counts those waiting to be admitted and those admitted
whose pods wait to be placed). One LIST of queues.

GPUs are counted as the configuration's gpu-resource (nvidia.com/gpu by
default). -o json and -o yaml print a QueueList document (docs/output.md)
with every resource of each queue; -o name prints the queues' names.`,
		Example: `  easyai queue list
  easyai queue list -o json | jq '.items[] | {name, allocated, capability}'`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	o.Print.AddFlags(cmd)
	queueclient.AddSystemFlag(cmd, &o.QueueSystem)
	return cmd
}

// Validate checks -o.
func (o *Options) Validate() error { return o.Print.Validate() }

// Complete builds the client.
func (o *Options) Complete() error {
	var err error
	o.client, err = queueclient.Of(o.Factory)
	return err
}

// Run lists the queues.
func (o *Options) Run(ctx context.Context) error {
	system, err := queueclient.System(ctx, o.Factory, o.QueueSystem)
	if err != nil {
		return err
	}
	if system == config.QueueSystemKueue {
		return o.runKueue(ctx)
	}
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

// gpuResource is the configuration's GPU resource.
func gpuResource(f *cmdutil.Factory) (string, error) {
	cfg, err := f.Config()
	if err != nil {
		return "", err
	}
	return cfg.GPUResource, nil
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

func bytes(n float64) string { return printers.Bytes(int64(n)) }
