// Package get is "easyai get JOB": one job, its replicas and its warnings.
package get

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of get.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	cmdutil.JobOptions

	Print *printers.PrintFlags
	Raw   bool
}

// MaxEvents is how many of the latest warnings the human output shows.
const MaxEvents = 10

// NewCmdGet returns the command; runF replaces Complete and Run in tests.
func NewCmdGet(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("the job's status, replicas and warnings",
		printers.FormatJSON, printers.FormatYAML, printers.FormatName, printers.FormatValues, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:   "get JOB",
		Short: "Show a training job, its replicas and its warnings",
		Long: `Show one training job: its state and why, who submitted it, when it ran, what
it runs, the state of each replica (ps-0, worker-1, ...), the last lines of
a few failed containers (a crash loop's previous run) and the recent
Warning events of the job and its pods (e.g. FailedScheduling).

JOB is NAME, or KIND/NAME (tf/mnist, tfjob/mnist), or NAME with --kind.
Without a kind, every kind is searched: a name used by jobs of two kinds must
be given with its kind.

-o json and -o yaml print a Job document (docs/output.md), for scripts.
--raw prints the job object as the cluster holds it (YAML, or JSON with
-o json).

-o values prints the values the job was submitted with (its
easyai.io/request annotation) as a job file: its kind first, without its
name, so that "easyai submit -f" submits it again under a new one. A job
easyai did not submit has none (exit 3); timaker clusters keep none (exit 2).`,
		Example: `  easyai get mnist
  easyai get pytorch/resnet -n research
  easyai get mnist -o json | jq '.replicas[] | select(.phase=="Failed")'
  easyai get mnist --raw
  # keep what mnist was submitted with, change it, submit it again
  easyai get mnist -o values > mnist.yaml
  easyai submit -f mnist.yaml --set roles.worker.replicas=4`,
	}
	cmdutil.TakeOneJob(cmd, f, o, runF)
	fl := cmd.Flags()
	cmdutil.AddKindFlag(cmd, f.Kinds, &o.KindName, "job's")
	o.Print.AddFlags(cmd)
	fl.BoolVar(&o.Raw, "raw", false, "print the job object itself (YAML; JSON with -o json; a template reads the object)")
	return cmd
}

// Validate checks the flags and the job argument without reaching the cluster.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	if o.Raw && (o.Print.Format() == printers.FormatName || o.Print.Format() == printers.FormatValues) {
		return exit.UsageErrorf("--raw prints YAML or JSON, not -o %s", o.Print.Format())
	}
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the platform.
func (o *Options) Complete() error { return o.CompletePlatform(o.Factory) }

// Run finds the job and prints it.
func (o *Options) Run(ctx context.Context) error {
	job, err := o.Platform.Find(ctx, o.Ref)
	if err != nil {
		return err
	}
	switch o.Print.Format() {
	case printers.FormatName:
		_, err := fmt.Fprintln(o.IO.Out, job)
		return err
	case printers.FormatValues:
		return o.printValues(ctx, job)
	}
	if o.Raw {
		raw := (&unstructured.Unstructured{Object: job.Raw}).DeepCopy()
		unstructured.RemoveNestedField(raw.Object, "metadata", "managedFields")
		if o.Print.IsDocument() {
			return o.Print.PrintDocument(o.IO.Out, raw.Object)
		}
		return printers.YAML(o.IO.Out, raw.Object)
	}
	d, err := o.Platform.Describe(ctx, job)
	if err != nil {
		return err
	}
	if o.Print.IsDocument() {
		return o.Print.PrintDocument(o.IO.Out, d)
	}
	return o.printDetails(d, o.Factory.Now())
}

// printValues writes the job file of what the job was submitted with.
func (o *Options) printValues(ctx context.Context, job *platform.Job) error {
	recorded, err := o.Platform.Recorded(ctx, job)
	if err != nil {
		return err
	}
	data, err := recorded.JobFile()
	if err != nil {
		return err
	}
	_, err = o.IO.Out.Write(data)
	return err
}

// printDetails writes the human view: a header, the replicas, the warnings.
// It is for reading, so it is aligned whether or not stdout is a terminal.
func (o *Options) printDetails(d *jobmodel.Document, now time.Time) error {
	w := o.IO.Out
	printHeader(w, d, now)
	fmt.Fprintln(w)
	if err := printReplicas(w, d.Replicas, now); err != nil {
		return err
	}
	for _, ll := range d.LastLines {
		printLastLines(w, ll)
	}
	fmt.Fprintln(w)
	return o.printEvents(w, d.Events, now)
}

// printHeader writes the job's fields, one "Name:  value" line each ("-"
// for none), the kind's own details last.
func printHeader(w io.Writer, d *jobmodel.Document, now time.Time) {
	s := &d.Summary
	printField(w, "Name", s.Name)
	printField(w, "Namespace", s.Namespace)
	printField(w, "Kind", fmt.Sprintf("%s (%s.%s)", d.KindName, d.ObjectKind, d.ObjectAPIVersion))
	printField(w, "Status", statusOf(s))
	if a := s.Admission; a != nil {
		printField(w, "Queue", a.LocalQueue+" (Kueue LocalQueue)")
		printField(w, "Admission", a.String())
	}
	printField(w, "User", printers.JobUser(s))
	if !s.ByEasyAI() {
		managedBy := s.ManagedBy
		if managedBy == "" {
			managedBy = printers.ExternalUser
		}
		printField(w, "Managed-By", managedBy)
	}
	printField(w, "Experiment", s.Experiment)
	printField(w, "Created", when(s.Created, now))
	printField(w, "Started", whenIf(s.Started, now))
	printField(w, "Finished", whenIf(s.Finished, now))
	printField(w, "Duration", printers.JobDuration(s, now))
	printField(w, "Image", d.Image)
	printField(w, "Command", printers.ShellJoin(d.Command))
	printField(w, "Workers", fmt.Sprintf("%d/%d running", s.Workers.Ready, s.Workers.Total))
	printField(w, "GPUs", printers.GPUs(s.GPUs))
	for _, detail := range d.Details {
		printField(w, detail.Name, detail.Value)
	}
}

// printField writes one field of the header, on one line; "-" when value
// is empty.
func printField(w io.Writer, name, value string) {
	if value == "" {
		value = "-"
	}
	fmt.Fprintf(w, "%-12s%s\n", name+":", jobmodel.OneLine(value))
}

// statusOf is the job's shown state, what a job in debug mode waits for,
// and the operator's reason and message.
func statusOf(s *jobmodel.Summary) string {
	if s.Admission != nil && s.Status.State == jobmodel.Queued {
		return "Queued (held by Kueue until admitted; see Admission)"
	}
	status := s.ShownState()
	if status == "DEBUG" {
		status += " (" + string(s.Status.State) + "; easyai run " + s.Name + " starts the command)"
	}
	if s.Status.Reason != "" {
		status += " (" + s.Status.Reason + ")"
	}
	if s.Status.Message != "" {
		status += ": " + s.Status.Message
	}
	return status
}

// printReplicas writes the table of the replicas, or that there are none.
func printReplicas(w io.Writer, replicas []jobmodel.Replica, now time.Time) error {
	if len(replicas) == 0 {
		fmt.Fprintln(w, "Replicas: none")
		return nil
	}
	fmt.Fprintln(w, "Replicas:")
	t := printers.NewTable(w, true, "TASK", "STATUS", "NODE", "RESTARTS", "EXIT CODE", "REASON", "AGE")
	for _, r := range replicas {
		exitCode := ""
		if r.ExitCode != nil {
			exitCode = strconv.Itoa(int(*r.ExitCode))
		}
		age := ""
		if r.Created != nil {
			age = printers.Age(now, *r.Created)
		}
		t.AddRow(r.Task, r.Phase, r.Node, strconv.Itoa(int(r.Restarts)), exitCode, r.Reason, age)
	}
	return t.Render()
}

// printLastLines writes the last lines of a failed container, indented
// under a line naming it (the lines are already one line each).
func printLastLines(w io.Writer, ll jobmodel.LastLines) {
	run := "its run"
	if ll.Previous {
		run = "its previous run"
	}
	fmt.Fprintf(w, "\nLast lines of %s (container %s, %s, exit code %d):\n", jobmodel.OneLine(ll.Task), jobmodel.OneLine(ll.Container), run, ll.ExitCode)
	switch {
	case ll.Error != "":
		fmt.Fprintf(w, "  (%s)\n", jobmodel.OneLine(ll.Error))
	case len(ll.Lines) == 0:
		fmt.Fprintln(w, "  (no output)")
	}
	for _, line := range ll.Lines {
		fmt.Fprintf(w, "  %s\n", jobmodel.OneLine(line))
	}
}

func (o *Options) printEvents(w io.Writer, events []jobmodel.Event, now time.Time) error {
	if len(events) == 0 {
		_, err := fmt.Fprintln(w, "Warning events: none")
		return err
	}
	if older := len(events) - MaxEvents; older > 0 {
		events = events[older:]
		defer fmt.Fprintf(o.IO.ErrOut, "%d older warning events not shown: -o json has them all\n", older)
	}
	fmt.Fprintln(w, "Warning events:")
	t := printers.NewTable(w, true, "AGE", "OBJECT", "REASON", "MESSAGE")
	for _, e := range events {
		age := printers.Age(now, e.LastSeen)
		if e.Count > 1 {
			age += fmt.Sprintf(" (x%d)", e.Count)
		}
		t.AddRow(age, e.Object, e.Reason, e.Message)
	}
	return t.Render()
}

// when prints a time in the local zone and how long ago it was.
func when(t, now time.Time) string {
	return fmt.Sprintf("%s (%s ago)", t.Local().Format("2006-01-02 15:04:05 MST"), printers.HumanDuration(now.Sub(t)))
}

// whenIf is when of t, or "" when there is no t.
func whenIf(t *time.Time, now time.Time) string {
	if t == nil {
		return ""
	}
	return when(*t, now)
}
