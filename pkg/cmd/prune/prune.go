// Package prune is "easyai prune": delete the old jobs easyai submitted in a
// namespace, those finished, older than an age, of an experiment or
// matching a selector.
package prune

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of prune.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams

	Finished   bool
	OlderThan  string
	Experiment string
	Selector   string
	Yes        bool
	DryRun     bool

	// Set by Validate: OlderThan read.
	olderThan time.Duration
}

// NewCmdPrune returns the command; runF replaces Complete and Run in tests.
func NewCmdPrune(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "prune (--finished | --older-than AGE | --experiment NAME | -l SELECTOR)...",
		Short: "Delete old jobs of the namespace: finished, older than an age, of an experiment",
		Long: `Delete the jobs easyai submitted in the namespace that match every filter
given: --finished (Succeeded or Failed), --older-than (created longer ago
than that: the AGE column), --experiment, -l. At least one is required.
Jobs made by other tools are never pruned. Their pods, services and
PodGroups are deleted with them, by the cluster's garbage collector.

prune first prints the jobs it will delete (JOB, STATUS, AGE), then asks on a
terminal (a "no" deletes nothing: exit 1, "Nothing deleted."); elsewhere
(scripts, CI) it needs --yes. --dry-run prints them and
deletes nothing. Only the jobs printed are deleted: a job deleted and
submitted again under the same name meanwhile is left alone.

A job that cannot be deleted (a kind you may not delete, say) is reported
and the others are still deleted; prune then exits 1. A kind you may not
list is left out with a warning on stderr.

--older-than takes a number of days (7d), a duration (36h, 90m) or both
(1d12h). A job whose status cannot be read has no known age: --older-than
never selects it.`,
		Example: `  easyai prune --finished --older-than 7d
  easyai prune --experiment lr-sweep --dry-run
  easyai prune --finished -l team=vision --yes`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	fl := cmd.Flags()
	fl.BoolVar(&o.Finished, "finished", false, "only jobs that ended: Succeeded or Failed")
	fl.StringVar(&o.OlderThan, "older-than", "", "only jobs created longer ago than this: 7d, 36h, 1d12h")
	fl.StringVar(&o.Experiment, "experiment", "", "only the jobs of this experiment")
	fl.StringVarP(&o.Selector, "selector", "l", "", "only jobs matching this label selector (e.g. team=vision)")
	fl.BoolVarP(&o.Yes, "yes", "y", false, "delete without asking (required when not on a terminal)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "print the jobs that would be deleted, delete nothing")
	return cmd
}

// Validate checks the flags without reaching the cluster.
func (o *Options) Validate() error {
	if !o.Finished && o.OlderThan == "" && o.Experiment == "" && o.Selector == "" {
		return exit.UsageErrorf("say which jobs to prune: --finished, --older-than, --experiment or -l (any of them; a job must match all given)")
	}
	if o.OlderThan != "" {
		d, err := ParseAge(o.OlderThan)
		if err != nil {
			return err
		}
		o.olderThan = d
	}
	if err := jobclient.CheckSelection(o.Selector, o.Experiment); err != nil {
		return err
	}
	if !o.Yes && !o.DryRun && !o.IO.CanPrompt() {
		return exit.UsageErrorf("not pruning without confirmation: pass --yes, or --dry-run to only see the jobs (there is no terminal to ask on)")
	}
	return nil
}

var days = regexp.MustCompile(`^([0-9]+)d(.*)$`)

// ParseAge reads --older-than: a Go duration (36h, 90m), a number of days
// (7d), or days followed by a duration (1d12h); more than zero.
func ParseAge(s string) (time.Duration, error) {
	bad := exit.UsageErrorf("--older-than %q: must be an age such as 7d, 36h, 90m or 1d12h", s)
	var d time.Duration
	rest := s
	if m := days.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > 100*365 {
			return 0, bad
		}
		d, rest = time.Duration(n)*24*time.Hour, m[2]
	}
	if rest != "" {
		more, err := time.ParseDuration(rest)
		if err != nil || more < 0 {
			return 0, bad
		}
		d += more
	}
	if d <= 0 {
		return 0, bad
	}
	return d, nil
}

// Complete has nothing to resolve: Run lists through the factory's clients.
func (o *Options) Complete() error { return nil }

// Run lists the jobs to prune, prints them, asks, and deletes each.
func (o *Options) Run(ctx context.Context) error {
	opts := jobclient.ListOptions{LabelSelector: o.Selector, Experiment: o.Experiment, ManagedOnly: true}
	if o.Finished {
		opts.States = []jobmodel.State{jobmodel.Succeeded, jobmodel.Failed}
	}
	ns, jobs, err := cmdutil.ListJobs(ctx, o.Factory, opts)
	if err != nil {
		return err
	}
	now := o.Factory.Now()
	targets := olderThan(jobs, o.olderThan, now)
	if len(targets) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No jobs to prune in namespace %s.\n", ns)
		return nil
	}
	if err := o.printTargets(targets, now); err != nil {
		return err
	}
	if o.DryRun {
		fmt.Fprintf(o.IO.ErrOut, "%s would be deleted in namespace %s (dry run: nothing deleted).\n", jobsCount(len(targets)), ns)
		return nil
	}
	if !o.Yes {
		question := fmt.Sprintf("Delete these %d jobs in namespace %s?", len(targets), ns)
		if len(targets) == 1 {
			question = "Delete this job in namespace " + ns + "?"
		}
		ok, err := o.Factory.Prompter.Confirm(question, false)
		if err != nil {
			return err
		}
		if !ok {
			return exit.Declined("Nothing deleted.")
		}
	}
	return o.delete(ctx, ns, targets)
}

// olderThan keeps the jobs created more than age before now (age 0: all).
// A job whose creation time is not known (its summary could not be read)
// is never old enough: it is not pruned by age.
func olderThan(jobs []jobclient.Listed, age time.Duration, now time.Time) []jobclient.Listed {
	var out []jobclient.Listed
	for _, j := range jobs {
		if age > 0 && (j.Summary.Created.IsZero() || now.Sub(j.Summary.Created) <= age) {
			continue
		}
		out = append(out, j)
	}
	return out
}

// printTargets prints the jobs to delete: a table on a terminal,
// tab-separated lines otherwise.
func (o *Options) printTargets(targets []jobclient.Listed, now time.Time) error {
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), "JOB", "STATUS", "AGE")
	for _, j := range targets {
		t.AddRow(j.Kind.Name()+"/"+j.Summary.Name, string(j.Summary.Status.State), printers.Age(now, j.Summary.Created))
	}
	return t.Render()
}

// delete deletes each job listed, and only it (its uid a precondition):
// one that fails is reported and the others are still deleted.
func (o *Options) delete(ctx context.Context, ns string, targets []jobclient.Listed) error {
	_, client, err := cmdutil.NamespacedJobs(o.Factory)
	if err != nil {
		return err
	}
	failed := 0
	for _, j := range targets {
		name := j.Kind.Name() + "/" + j.Summary.Name
		err := client.DeleteListed(ctx, j.Kind, ns, j.Summary.Name, j.Summary.UID)
		switch {
		case err == nil:
			fmt.Fprintf(o.IO.Out, "deleted %s\n", name)
		case exit.IsNotFound(err):
			fmt.Fprintf(o.IO.ErrOut, "%s: already gone\n", name)
		case errors.Is(err, jobclient.ErrReplaced):
			fmt.Fprintf(o.IO.ErrOut, "%v\n", err)
		default:
			failed++
			fmt.Fprintf(o.IO.ErrOut, "Error: %v\n", err)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %s not deleted", failed, jobsCount(len(targets)))
	}
	return nil
}

func jobsCount(n int) string {
	if n == 1 {
		return "1 job"
	}
	return strconv.Itoa(n) + " jobs"
}
