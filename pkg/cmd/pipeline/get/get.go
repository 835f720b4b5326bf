// Package get is "easyai pipeline get": a pipeline's steps and their jobs.
package get

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/pipelineargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/pipeline"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of pipeline get.
type Options struct {
	pipelineargs.Named
	Print *printers.PrintFlags
}

// NewCmdGet returns "pipeline get"; runF replaces Complete and Run in tests.
func NewCmdGet(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: pipelineargs.NewNamed(f), Print: printers.NewPrintFlags("the steps as a table", printers.FormatJSON, printers.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show a pipeline's steps, their states and their jobs",
		Long: `Show a pipeline: its state, then one line per step in the order they run:
STEP (indented under the step it runs after), STATE, STARTED, DURATION, and
JOB, the step's job to use with every job command (easyai logs JOB, get JOB,
...). A step without a job says why: waiting for the steps before it, or never
to be created because one of them failed (Volcano's JobFlow creates no step
after a failed one). -o json and -o yaml print a Pipeline (docs/pipelines.md).`,
		Example: `  easyai pipeline get nightly
  easyai pipeline get nightly -o json | jq -r '.steps[] | select(.state == "Failed") | .job'`,
	}
	pipelineargs.TakeName(cmd, f, &o.Name, o, runF)
	o.Print.AddFlags(cmd)
	return cmd
}

// Validate checks the name and -o.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	return o.Named.Validate()
}

// Run reads and prints the pipeline.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := pipelineargs.Client(o.Factory)
	if err != nil {
		return err
	}
	st, err := c.Get(ctx, ns, o.Name)
	if err != nil {
		return err
	}
	if o.Print.IsDocument() {
		return o.Print.PrintDocument(o.Factory.IOStreams.Out, st)
	}
	w := o.Factory.IOStreams.Out
	state := st.State
	if st.Reason != "" {
		state += " (" + st.Reason + ")"
	}
	fmt.Fprintf(w, "Name:       %s\nNamespace:  %s\nState:      %s\nCreated by: %s\nAge:        %s\n\n", st.Name, st.Namespace, state, dash(st.User), printers.Age(o.Factory.Now(), st.Created))
	t := printers.NewTable(w, true, "STEP", "STATE", "STARTED", "DURATION", "JOB", "REASON")
	now := o.Factory.Now()
	for _, s := range st.Steps {
		depth := 0
		if len(s.After) > 0 {
			depth = 1 + maxDepth(st, s.After)
		}
		started, took := "-", "-"
		if !s.Started.IsZero() {
			started = printers.Age(now, s.Started) + " ago"
			end := s.Finished
			if end.IsZero() {
				end = now
			}
			took = end.Sub(s.Started).Round(1e9).String()
		}
		job := s.Job
		if s.State == pipeline.Waiting || s.State == pipeline.Blocked {
			job = "-"
		}
		t.AddRow(strings.Repeat("  ", depth)+s.Name, s.State, started, took, job, dash(s.Reason))
	}
	return t.Render()
}

// maxDepth is how deep the deepest of names is in the graph of st.
func maxDepth(st *pipeline.Status, names []string) int {
	d := 0
	for _, n := range names {
		for _, s := range st.Steps {
			if s.Name == n && len(s.After) > 0 {
				d = max(d, 1+maxDepth(st, s.After))
			}
		}
	}
	return d
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
