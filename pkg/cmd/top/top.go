// Package top is "easyai top node": where GPUs are free.
package top

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// NewCmdTop returns "top" and its subcommands.
func NewCmdTop(f *cmdutil.Factory, runF func(*NodeOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "top",
		Short: "Show capacity and what is free",
		Long:  `Show the capacity of the cluster and what is free: "easyai top node".`,
		Example: `  easyai top node
  easyai top node --cluster prod`,
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(NewCmdTopNode(f, runF))
	return cmd
}

// NodeOptions of top node.
type NodeOptions struct {
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
}

// NewCmdTopNode returns "top node"; runF replaces Complete and Run in tests.
func NewCmdTopNode(f *cmdutil.Factory, runF func(*NodeOptions) error) *cobra.Command {
	o := &NodeOptions{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table",
		printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:     "node",
		Aliases: []string{"nodes"},
		Short:   "Show each node's GPUs, CPU and memory: capacity, allocated, free",
		Long: `Show each node's GPUs, CPU and memory: what it can give (allocatable), what
the pods on it request, and what is free, with a total line.

On Kubernetes this is one LIST of the nodes (narrowed by -l) and one LIST of
the pods that have not ended, across namespaces; both need read access to the
whole cluster, which a user whose rights end at a namespace may lack (the
error then says so). GPUs are counted as the configuration's gpu-resource
(nvidia.com/gpu by default).

On a timaker cluster (--cluster) the rows are the project's resource pools
(train and elastic): their total and what is not available, GPUs in GPUs
(timaker counts hundredths).`,
		Example: `  easyai top node
  easyai top node -l nvidia.com/gpu.product=A100-SXM4-80GB
  easyai top node -o json | jq '.total.gpus'
  easyai top node --cluster prod`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	o.Print.AddFlags(cmd)
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "only the nodes with these labels (Kubernetes)")
	return cmd
}

// Validate checks the flags.
func (o *NodeOptions) Validate() error { return o.Print.Validate() }

// Complete resolves the platform.
func (o *NodeOptions) Complete() error {
	var err error
	o.platform, err = o.Factory.Platform()
	return err
}

// Run reads the resources and prints them.
func (o *NodeOptions) Run(ctx context.Context) error {
	res, err := o.platform.Resources(ctx, platform.ResourceOptions{Selector: o.Selector})
	if err != nil {
		return err
	}
	if o.Print.IsDocument() {
		items := res.Rows
		if items == nil {
			items = []platform.ResourceRow{}
		}
		return o.Print.PrintDocument(o.IO.Out, Document{APIVersion: "easyai.io/v1", Kind: "Resources", What: res.What, Items: items, Total: res.Total})
	}
	if len(res.Rows) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No nodes found.")
		return nil
	}
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), res.What, "GPU TYPE", "GPUS", "GPUS FREE", "CPU", "MEMORY", "PODS")
	for _, r := range append(res.Rows, res.Total) {
		gpuType := r.GPUType
		if gpuType == "" {
			gpuType = "-"
		}
		pods := "-"
		if r.Pods >= 0 {
			pods = strconv.Itoa(r.Pods)
		}
		t.AddRow(r.Name, gpuType,
			printers.GPUs(r.GPUs.Allocated)+"/"+printers.GPUs(r.GPUs.Capacity),
			printers.GPUs(r.GPUs.Free()),
			cores(r.CPU.Allocated)+"/"+cores(r.CPU.Capacity),
			printers.Bytes(int64(r.Memory.Allocated))+"/"+printers.Bytes(int64(r.Memory.Capacity)),
			pods)
	}
	return t.Render()
}

// cores prints CPU cores to a thousandth.
func cores(n float64) string { return strconv.FormatFloat(math.Round(n*1000)/1000, 'f', -1, 64) }
