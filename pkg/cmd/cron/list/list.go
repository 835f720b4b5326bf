// Package list is "easyai cron list": the schedules of the namespace.
package list

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

// Options of cron list.
type Options struct {
	Factory       *cmdutil.Factory
	Print         *printers.PrintFlags
	AllNamespaces bool
}

// NewCmdList returns "cron list"; runF replaces Complete and Run in tests.
func NewCmdList(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, Print: printers.NewPrintFlags("a table", printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the schedules of the namespace",
		Long: `List the schedules of the namespace (every namespace with -A), one line each:
NAME, SCHEDULE (and its time zone), SUSPENDED, CONCURRENCY, LAST RUN (when the
newest job of the schedule was made, and its state), NEXT RUN, AGE. -o json
and -o yaml print a ScheduleList (docs/cron.md).`,
		Example: `  easyai cron list`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "the schedules of every namespace")
	o.Print.AddFlags(cmd)
	return cmd
}

// Validate checks -o.
func (o *Options) Validate() error { return o.Print.Validate() }

// Complete has nothing to resolve.
func (o *Options) Complete() error { return nil }

// ScheduleList is list's document.
type ScheduleList struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Items      []cron.Summary `json:"items"`
}

// Run lists and prints the schedules.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := cronargs.Client(o.Factory)
	if err != nil {
		return err
	}
	listNS := ns
	if o.AllNamespaces {
		listNS = ""
	}
	items, err := c.List(ctx, listNS)
	if err != nil {
		return err
	}
	io := o.Factory.IOStreams
	if len(items) > 0 {
		o.lastJobs(ctx, items)
	}
	switch {
	case o.Print.IsDocument():
		return o.Print.PrintDocument(io.Out, ScheduleList{APIVersion: "easyai.io/v1", Kind: "ScheduleList", Items: items})
	case o.Print.Format() == printers.FormatName:
		for _, s := range items {
			fmt.Fprintf(io.Out, "cron/%s\n", s.Name)
		}
		return nil
	case len(items) == 0:
		fmt.Fprintf(io.ErrOut, "No schedules in namespace %s.\n", ns)
		return nil
	}
	header := []string{"NAME", "SCHEDULE", "SUSPENDED", "CONCURRENCY", "LAST RUN", "NEXT RUN", "AGE"}
	if o.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	now := o.Factory.Now()
	t := printers.NewTable(io.Out, io.IsStdoutTTY(), header...)
	for _, s := range items {
		schedule := s.Schedule
		if s.TimeZone != "" {
			schedule += " (" + s.TimeZone + ")"
		}
		last := ago(now, s.LastRun)
		if s.LastJob != "" {
			last = ago(now, s.LastJobCreated) + " (" + s.LastJobState + ")"
		}
		row := []string{s.Name, schedule, strconv.FormatBool(s.Suspended), s.Concurrency, last, in(now, s.NextRun), printers.Age(now, s.Created)}
		if o.AllNamespaces {
			row = append([]string{s.Namespace}, row...)
		}
		t.AddRow(row...)
	}
	return t.Render()
}

// lastJobs fills in each schedule's newest job and its state, from one
// listing of the jobs of every schedule. When the jobs cannot be listed the
// schedules are shown without them, after one line saying why.
func (o *Options) lastJobs(ctx context.Context, items []cron.Summary) {
	p, err := o.Factory.Platform()
	if err != nil {
		return
	}
	jobs, err := p.List(ctx, platform.ListOptions{Selector: cron.Label, AllNamespaces: o.AllNamespaces})
	if err != nil {
		fmt.Fprintf(o.Factory.IOStreams.ErrOut, "Warning: the schedules' jobs could not be listed, LAST RUN shows when each last ran only: %v\n", err)
		return
	}
	index := map[string]int{}
	for i, s := range items {
		index[s.Namespace+"/"+s.Name] = i
	}
	for _, j := range jobs {
		i, ok := index[j.Item.Namespace+"/"+j.Item.Labels[cron.Label]]
		if !ok || j.Item.Created.Before(items[i].LastJobCreated) {
			continue
		}
		items[i].LastJob, items[i].LastJobCreated, items[i].LastJobState = j.String(), j.Item.Created, string(j.Item.Status.State)
	}
}
