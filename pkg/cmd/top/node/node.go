// Package node is "easyai top node": each node's GPUs, CPU and memory,
// what is free, and the jobs on it.
package node

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of top node.
type Options struct {
	Factory  *cmdutil.Factory
	IO       *iostreams.IOStreams
	Print    *printers.PrintFlags
	Selector string

	platform platform.Platform
}

// Document is top node's -o json document.
type Document struct {
	APIVersion string                 `json:"apiVersion"`
	Kind       string                 `json:"kind"`
	What       string                 `json:"rows"`
	Items      []platform.ResourceRow `json:"items"`
	Total      platform.ResourceRow   `json:"total"`
	// LargestFree is the node with the most GPUs free.
	LargestFree *platform.FreeBlock `json:"largestFree,omitempty"`
	// Waiting are the jobs with pods waiting for a node, asking for GPUs.
	Waiting []platform.WaitingJob `json:"waiting"`
	// Quotas are the GPUs of Kueue's ClusterQueues, where readable.
	Quotas []platform.QueueQuota `json:"quotas,omitempty"`
}

// NewCmdNode returns "top node"; runF replaces Complete and Run in tests.
func NewCmdNode(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table",
		printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:     "node",
		Aliases: []string{"nodes"},
		Short:   "Show each node's GPUs, CPU and memory: capacity, allocated, free",
		Long: `Show each node's GPUs, CPU and memory: what it can give (allocatable), what
the pods on it request, and what is free, the jobs on it, and a total line.

On Kubernetes this is one LIST of the nodes (narrowed by -l) and one LIST of
the pods that have not ended, across namespaces (a field selector leaves out
Succeeded and Failed pods); both need read access to the whole cluster, which
a user whose rights end at a namespace may lack (the error then says so).
GPUs are counted as the configuration's gpu-resource (nvidia.com/gpu by
default) plus the resources gpu-resources names (e.g. MIG slices).

CPU USE and MEMORY USE come from the metrics API (metrics-server), one more
LIST; a cluster without it, or a user who may not read it, gets "-" there.
JOBS are the jobs with pods on the node (NAMESPACE/KIND/NAME; NAMESPACE/NAME
for jobs easyai did not submit).

After the table, stderr names the largest free block of GPUs on one node,
and each job whose pods wait for a node while asking for more GPUs per pod
than that block: a gang job stays pending until every replica fits.
-o json has both (largestFree, waiting).

On a timaker cluster (--cluster) the rows are the project's resource pools
(train and elastic): their total and what is not available, GPUs in GPUs
(timaker counts hundredths).`,
		Example: `  easyai top node
  easyai top node -l nvidia.com/gpu.product=A100-SXM4-80GB
  easyai top node -o json | jq '.total.gpus'
  easyai top node --cluster prod`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	o.Print.AddFlags(cmd)
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "only the nodes with these labels (Kubernetes)")
	return cmd
}

// Validate checks the flags.
func (o *Options) Validate() error { return o.Print.Validate() }

// Complete resolves the platform.
func (o *Options) Complete() error {
	var err error
	o.platform, err = o.Factory.Platform()
	return err
}

// Run reads the resources and prints them.
func (o *Options) Run(ctx context.Context) error {
	res, err := o.platform.Resources(ctx, platform.ResourceRequest{Selector: o.Selector})
	if err != nil {
		return err
	}
	if o.Print.IsDocument() {
		items := res.Rows
		if items == nil {
			items = []platform.ResourceRow{}
		}
		waiting := res.Waiting
		if waiting == nil {
			waiting = []platform.WaitingJob{}
		}
		return o.Print.PrintDocument(o.IO.Out, Document{APIVersion: "easyai.io/v1", Kind: "Resources", What: res.What,
			Items: items, Total: res.Total, LargestFree: res.LargestFree, Waiting: waiting, Quotas: res.Quotas})
	}
	if len(res.Rows) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No nodes found.")
		return nil
	}
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), res.What, "GPU TYPE", "GPUS", "GPUS FREE", "CPU", "MEMORY", "PODS", "CPU USE", "MEMORY USE", "JOBS")
	for _, r := range append(res.Rows, res.Total) {
		gpuType := r.GPUType
		if gpuType == "" {
			gpuType = "-"
		}
		pods := "-"
		if r.Pods >= 0 {
			pods = strconv.Itoa(r.Pods)
		}
		cpuUse, memoryUse := "-", "-"
		if r.Usage != nil {
			cpuUse, memoryUse = printers.Cores(r.Usage.CPU), printers.Bytes(int64(r.Usage.Memory))
		}
		t.AddRow(r.Name, gpuType,
			printers.GPUs(r.GPUs.Allocated)+"/"+printers.GPUs(r.GPUs.Capacity),
			printers.GPUs(r.GPUs.Free()),
			printers.Cores(r.CPU.Allocated)+"/"+printers.Cores(r.CPU.Capacity),
			printers.Bytes(int64(r.Memory.Allocated))+"/"+printers.Bytes(int64(r.Memory.Capacity)),
			pods, cpuUse, memoryUse, jobList(r.Jobs))
	}
	if err := t.Render(); err != nil {
		return err
	}
	if err := o.printQuotas(res.Quotas); err != nil {
		return err
	}
	o.explainWaiting(res)
	return nil
}

// printQuotas writes the GPUs of each Kueue ClusterQueue: used of its
// nominal quota, borrowed from its cohort, and its workloads.
func (o *Options) printQuotas(quotas []platform.QueueQuota) error {
	if len(quotas) == 0 {
		return nil
	}
	fmt.Fprintln(o.IO.Out, "\nKueue ClusterQueues:")
	t := printers.NewTable(o.IO.Out, true, "  CLUSTER-QUEUE", "COHORT", "GPUS", "BORROWED", "PENDING", "ADMITTED")
	for _, q := range quotas {
		cohort := q.Cohort
		if cohort == "" {
			cohort = "-"
		}
		t.AddRow("  "+q.Name, cohort, printers.GPUs(q.Used)+"/"+printers.GPUs(q.GPUs), printers.GPUs(q.Borrowed),
			strconv.Itoa(int(q.Pending)), strconv.Itoa(int(q.Admitted)))
	}
	return t.Render()
}

// explainWaiting says on stderr where the largest block of free GPUs is,
// and which waiting jobs ask more per pod than it holds.
func (o *Options) explainWaiting(res *platform.Resources) {
	if res.LargestFree == nil {
		return
	}
	free := res.LargestFree
	fmt.Fprintf(o.IO.ErrOut, "Largest free block: %s GPUs on %s.\n", printers.GPUs(free.GPUs), free.Name)
	for _, w := range res.Waiting {
		if w.GPUsPerPod <= free.GPUs {
			continue
		}
		fmt.Fprintf(o.IO.ErrOut, "%s: %d %s waiting for a node, asking %s GPUs each; no node has that many free.\n",
			w.Job, w.Pods, plural(w.Pods, "pod", "pods"), printers.GPUs(w.GPUsPerPod))
	}
}

// jobList is at most three jobs, then how many more.
func jobList(jobs []string) string {
	switch {
	case len(jobs) == 0:
		return "-"
	case len(jobs) <= 3:
		return strings.Join(jobs, ",")
	}
	return strings.Join(jobs[:3], ",") + fmt.Sprintf(",+%d", len(jobs)-3)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
