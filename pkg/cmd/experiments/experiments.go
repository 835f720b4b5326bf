// Package experiments is "easyai experiments": one line per experiment of
// the namespace, what its jobs add up to.
package experiments

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of experiments.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	Print   *printers.PrintFlags
}

// NewCmdExperiments returns the command; runF replaces Complete and Run in
// tests.
func NewCmdExperiments(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table",
		printers.FormatJSON, printers.FormatYAML, printers.FormatName, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:     "experiments",
		Aliases: []string{"exp"},
		Short:   "Show the experiments of the namespace and their jobs",
		Long: `Show one line per experiment of the namespace: the jobs submitted with the same
--experiment (the easyai.io/experiment label), newest experiment first.

JOBS counts every job of the experiment; RUNNING, PENDING (Queued or
Pending), SUCCEEDED and FAILED those in these states (a suspended job counts
in JOBS only). GPUS are the GPUs the running jobs ask for. NEWEST is the
experiment's newest job and AGE its age.

As list, experiments makes one request per kind, all at once, and none per
job; a kind you may not list is left out with a warning on stderr. On a
terminal the experiments are a table; otherwise each is one line of
tab-separated columns without a header. -o json and -o yaml print an
ExperimentList document (docs/output.md); -o name prints the experiments'
names.`,
		Example: `  easyai experiments
  easyai experiments -n research -o json | jq '.items[] | select(.failed > 0) | .name'
  # every job of one experiment
  easyai list --experiment lr-sweep`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	o.Print.AddFlags(cmd)
	return cmd
}

// Validate checks -o.
func (o *Options) Validate() error { return o.Print.Validate() }

// Complete has nothing to resolve: Run lists through the factory's clients.
func (o *Options) Complete() error { return nil }

// Run lists the jobs of experiments and prints what they add up to.
func (o *Options) Run(ctx context.Context) error {
	ns, jobs, err := cmdutil.ListJobs(ctx, o.Factory, jobclient.ListOptions{LabelSelector: jobmodel.ExperimentLabel})
	if err != nil {
		return err
	}
	experiments := jobclient.ExperimentsOf(jobs)
	switch {
	case o.Print.IsDocument():
		return o.Print.PrintDocument(o.IO.Out, jobclient.ExperimentListOf(experiments))
	case o.Print.Format() == printers.FormatName:
		for _, e := range experiments {
			fmt.Fprintln(o.IO.Out, e.Name)
		}
		return nil
	case len(experiments) == 0:
		fmt.Fprintf(o.IO.ErrOut, "No experiments in namespace %s.\n", ns)
		return nil
	}
	now := o.Factory.Now()
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), "EXPERIMENT", "JOBS", "RUNNING", "PENDING", "SUCCEEDED", "FAILED", "GPUS", "NEWEST", "AGE")
	for _, e := range experiments {
		t.AddRow(e.Name, strconv.Itoa(e.Jobs), strconv.Itoa(e.Running), strconv.Itoa(e.Pending), strconv.Itoa(e.Succeeded), strconv.Itoa(e.Failed),
			printers.GPUs(e.GPUs), e.Newest.Name, printers.Age(now, e.Newest.Created))
	}
	return t.Render()
}
