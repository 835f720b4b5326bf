// Package get is "easyai cron get": a schedule and the jobs of its runs.
package get

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/cron/cronargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cron"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of cron get.
type Options struct {
	cronargs.Named
	Print *printers.PrintFlags
}

// NewCmdGet returns "cron get"; runF replaces Complete and Run in tests.
func NewCmdGet(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: cronargs.NewNamed(f), Print: printers.NewPrintFlags("the schedule and its runs", printers.FormatJSON, printers.FormatYAML)}
	cmd := &cobra.Command{
		Use:   "get NAME",
		Short: "Show a schedule and the jobs of its runs",
		Long: `Show a schedule: when it runs (the last and next runs), its concurrency policy
and how many finished jobs it keeps, then the jobs its runs submitted, newest
first, each with its state: use the job's name with every job command.
-o json and -o yaml print a Schedule (docs/cron.md).`,
		Example: `  easyai cron get nightly`,
	}
	cronargs.TakeName(cmd, f, &o.Name, o, runF)
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

// Run is a run of the schedule: its job, its state and when it was made.
type Run struct {
	Job   string `json:"job"`
	State string `json:"state"`
	Age   string `json:"-"`
}

// Schedule is get's document.
type Schedule struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	cron.Summary
	Runs []Run `json:"runs"`
}

// Run reads and prints the schedule.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := cronargs.Client(o.Factory)
	if err != nil {
		return err
	}
	s, err := c.Get(ctx, ns, o.Name)
	if err != nil {
		return err
	}
	p, err := o.Factory.Platform()
	if err != nil {
		return err
	}
	jobs, err := p.List(ctx, platform.ListOptions{Selector: cron.Label + "=" + o.Name})
	if err != nil {
		return err
	}
	doc := Schedule{APIVersion: "easyai.io/v1", Kind: "Schedule", Summary: *s, Runs: []Run{}}
	now := o.Factory.Now()
	for _, j := range jobs {
		doc.Runs = append(doc.Runs, Run{Job: j.String(), State: string(j.Item.Status.State), Age: printers.Age(now, j.Item.Created)})
	}
	w := o.Factory.IOStreams.Out
	if o.Print.IsDocument() {
		return o.Print.PrintDocument(w, doc)
	}
	zone := s.TimeZone
	if zone == "" {
		zone = "UTC"
	}
	last, next := "-", "-"
	if !s.LastRun.IsZero() {
		last = printers.Age(now, s.LastRun) + " ago"
	}
	if !s.NextRun.IsZero() {
		next = s.NextRun.Format("2006-01-02 15:04 MST")
	}
	for _, kv := range [][2]string{{"Name", s.Name}, {"Namespace", s.Namespace}, {"Backend", backend(s.Backend)}, {"Schedule", s.Schedule + " (" + zone + ")"},
		{"Suspended", strconv.FormatBool(s.Suspended)}, {"Concurrency", s.Concurrency}, {"Keep", keep(s.Keep)},
		{"Last run", last}, {"Next run", next}, {"Created by", dash(s.User)}, {"Age", printers.Age(now, s.Created)}} {
		fmt.Fprintf(w, "%-12s %s\n", kv[0]+":", kv[1])
	}
	if len(doc.Runs) == 0 {
		fmt.Fprintln(w, "\nRuns: none yet")
		return nil
	}
	fmt.Fprintln(w, "\nRuns:")
	t := printers.NewTable(w, true, "JOB", "STATE", "AGE")
	for _, r := range doc.Runs {
		t.AddRow(r.Job, r.State, r.Age)
	}
	return t.Render()
}

func backend(b string) string {
	if b == cron.BackendVolcano {
		return "volcano (Volcano's CronJob creates each run's Volcano Job)"
	}
	return b + " (a CronJob's pod runs easyai, which submits each run's job)"
}

func keep(n int) string {
	if n == 0 {
		return "every finished job"
	}
	return fmt.Sprintf("the %d newest finished jobs", n)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
