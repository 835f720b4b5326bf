// Package runtimes is "easyai runtimes": the training runtimes of Kubeflow
// Trainer v2 a TrainJob may run on (submit trainjob --runtime).
package runtimes

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of runtimes.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	Print   *printers.PrintFlags

	namespace string
}

// Document is runtimes' -o json document.
type Document struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Items      []kinds.Runtime `json:"items"`
}

// NewCmdRuntimes returns "runtimes"; runF replaces Complete and Run in tests.
func NewCmdRuntimes(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table",
		printers.FormatName, printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:     "runtimes",
		Aliases: []string{"runtime", "rt"},
		Short:   "List the training runtimes of Kubeflow Trainer v2",
		Long: `List the training runtimes a TrainJob can run on: the cluster's
ClusterTrainingRuntimes and the namespace's TrainingRuntimes, with their
framework (the label trainer.kubeflow.org/framework), the nodes a job that
sets none gets (mlPolicy.numNodes), and the plugin of their podGroupPolicy:
only a runtime with one gang-schedules (submit --gang).

"easyai submit trainjob --runtime NAME" takes a ClusterTrainingRuntime's
name, and trainingruntime/NAME for a TrainingRuntime; -o name prints them so.
A list you may not read (cluster-wide runtimes, for a user whose rights end
at a namespace) is left out with one line on stderr.`,
		Example: `  easyai runtimes
  easyai runtimes -n team-a -o json
  easyai submit trainjob --runtime "$(easyai runtimes -o name | head -1)" --image IMG -- python train.py`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	o.Print.AddFlags(cmd)
	return cmd
}

// Validate checks the flags.
func (o *Options) Validate() error { return o.Print.Validate() }

// Complete resolves the namespace.
func (o *Options) Complete() error {
	var err error
	o.namespace, _, err = o.Factory.Namespace()
	return err
}

// Run lists the runtimes and prints them.
func (o *Options) Run(ctx context.Context) error {
	dyn, err := o.Factory.DynamicClient()
	if err != nil {
		return err
	}
	lister, ok := o.Factory.Kinds.RuntimeLister()
	if !ok {
		return errors.New("no kind easyai knows runs on runtimes")
	}
	items, notes, err := lister.ListRuntimes(ctx, dyn, o.namespace)
	if errors.Is(err, kinds.ErrNoRuntimes) {
		return exit.WithHint(err, "easyai doctor shows which operators the cluster has; the training-operator's kinds (easyai submit pytorch, ...) need no runtime")
	}
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(o.IO.ErrOut, n)
	}
	switch {
	case o.Print.IsDocument():
		if items == nil {
			items = []kinds.Runtime{}
		}
		return o.Print.PrintDocument(o.IO.Out, Document{APIVersion: "easyai.io/v1", Kind: "RuntimeList", Items: items})
	case o.Print.Format() == printers.FormatName:
		for _, r := range items {
			fmt.Fprintln(o.IO.Out, r.Ref)
		}
		return nil
	}
	if len(items) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No training runtimes found (cluster-wide or in namespace %s).\n", o.namespace)
		return nil
	}
	now := o.Factory.Now()
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), "NAME", "SCOPE", "FRAMEWORK", "NODES", "GANG", "AGE")
	for _, r := range items {
		scope := "cluster"
		if r.Namespaced {
			scope = "namespace"
		}
		nodes := ""
		if r.Nodes != nil {
			nodes = strconv.FormatInt(*r.Nodes, 10)
		}
		gang := "no"
		if r.Gang != "" {
			gang = r.Gang
		}
		t.AddRow(r.Ref, scope, r.Framework, nodes, gang, printers.Age(now, r.Created))
	}
	return t.Render()
}
