// Package delete is "easyai delete JOB...": delete jobs with their pods.
package delete

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// Options of delete.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams

	JobArgs    []string
	KindName   string
	All        bool
	Selector   string
	Experiment string
	Yes        bool

	// Set by Validate.
	Refs []kinds.Ref

	// Set by Complete.
	Platform platform.Platform
}

// NewCmdDelete returns the command; runF replaces Complete and Run in tests.
func NewCmdDelete(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:     "delete JOB... | --all",
		Aliases: []string{"rm"},
		Short:   "Delete training jobs and their pods",
		Long: `Delete training jobs. Their pods, services and PodGroups are deleted with
them, by the cluster's garbage collector, in the background.

JOB is NAME, or KIND/NAME (tf/mnist, tfjob/mnist), or NAME with --kind.
--all deletes every job easyai submitted in the namespace, or those matching
-l and --experiment; jobs made by other tools are never deleted by --all.

On a terminal delete asks before deleting; elsewhere (scripts, CI) it needs
--yes. A job that does not exist is reported after the others are deleted,
and delete then exits 3.`,
		Example: `  easyai delete mnist
  easyai delete tf/mnist pytorch/resnet --yes
  easyai delete --all --experiment lr-sweep
  easyai delete --all -l team=vision --yes`,
		ValidArgsFunction: cmdutil.CompleteJobs(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JobArgs = args
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	fl := cmd.Flags()
	cmdutil.AddKindFlag(cmd, f.Kinds, &o.KindName, "jobs'")
	fl.BoolVar(&o.All, "all", false, "delete every job easyai submitted in the namespace (narrowed by -l and --experiment)")
	fl.StringVarP(&o.Selector, "selector", "l", "", "with --all: only jobs matching this label selector")
	fl.StringVar(&o.Experiment, "experiment", "", "with --all: only the jobs of this experiment")
	fl.BoolVarP(&o.Yes, "yes", "y", false, "delete without asking (required when not on a terminal)")
	return cmd
}

// Validate checks the arguments and flags without reaching the cluster.
func (o *Options) Validate() error {
	switch {
	case o.All && len(o.JobArgs) > 0:
		return exit.UsageErrorf("--all deletes every job: give it without job names (got %s)", strings.Join(o.JobArgs, " "))
	case !o.All && len(o.JobArgs) == 0:
		return exit.UsageErrorf("name the jobs to delete, or give --all")
	case !o.All && (o.Selector != "" || o.Experiment != ""):
		return exit.UsageErrorf("-l and --experiment select jobs for --all: give --all too, or name the jobs")
	}
	if err := jobclient.CheckSelection(o.Selector, o.Experiment); err != nil {
		return err
	}
	if o.All && o.KindName != "" {
		if _, ok := o.Factory.Kinds.Lookup(o.KindName); !ok {
			return exit.UsageErrorf("--kind %q: unknown kind (known: %s)", o.KindName, strings.Join(o.Factory.Kinds.Names(), ", "))
		}
	}
	o.Refs = nil
	seen := map[string]bool{}
	for _, arg := range o.JobArgs {
		ref, err := kinds.ParseRef(o.Factory.Kinds, arg, o.KindName)
		if err != nil {
			return err
		}
		if !seen[ref.String()] {
			seen[ref.String()] = true
			o.Refs = append(o.Refs, ref)
		}
	}
	if !o.Yes && !o.IO.CanPrompt() {
		return exit.UsageErrorf("not deleting without confirmation: pass --yes (there is no terminal to ask on)")
	}
	return nil
}

// Complete resolves the platform.
func (o *Options) Complete() error {
	var err error
	o.Platform, err = o.Factory.Platform()
	return err
}

// Run finds the jobs, asks, deletes them and reports the missing ones last.
func (o *Options) Run(ctx context.Context) error {
	targets, missing, err := o.targets(ctx)
	if err != nil {
		return err
	}
	if len(targets) == 0 {
		if len(missing) == 0 {
			fmt.Fprintf(o.IO.ErrOut, "No jobs to delete in %s.\n", o.Platform.Where())
			return nil
		}
		return o.missingError(missing)
	}
	if !o.Yes {
		ok, err := o.Factory.Prompter.Confirm(o.question(targets), false)
		if err != nil {
			return err
		}
		if !ok {
			return exit.Declined("Nothing deleted.")
		}
	}
	var failed error
	for _, t := range targets {
		err := o.Platform.Delete(ctx, t)
		switch {
		case err == nil:
			fmt.Fprintf(o.IO.Out, "deleted %s\n", t)
		case exit.IsNotFound(err):
			// Deleted by someone else since it was found.
			missing = append(missing, t.String())
		default:
			failed = errors.Join(failed, err)
		}
	}
	if failed != nil {
		return fmt.Errorf("%d of %d jobs not deleted: %w", countErrors(failed), len(targets), failed)
	}
	if len(missing) > 0 {
		return o.missingError(missing)
	}
	return nil
}

func countErrors(err error) int {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		return len(joined.Unwrap())
	}
	return 1
}

// targets resolves the arguments, or --all, to jobs; missing are the
// arguments that name no job.
func (o *Options) targets(ctx context.Context) ([]*platform.Job, []string, error) {
	if o.All {
		opts := platform.ListOptions{Selector: o.Selector, Experiment: o.Experiment, ManagedOnly: true}
		if o.KindName != "" {
			k, _ := o.Factory.Kinds.Lookup(o.KindName)
			opts.Kinds, opts.KindsAsked = []kinds.Kind{k}, true
		}
		jobs, err := o.Platform.List(ctx, opts)
		return jobs, nil, err
	}
	var out []*platform.Job
	var missing []string
	seen := map[string]bool{}
	for _, ref := range o.Refs {
		job, err := o.Platform.Find(ctx, ref)
		switch {
		case exit.IsNotFound(err):
			missing = append(missing, ref.String())
		case err != nil:
			return nil, nil, err
		case !seen[job.String()]:
			seen[job.String()] = true
			out = append(out, job)
		}
	}
	return out, missing, nil
}

func (o *Options) question(targets []*platform.Job) string {
	if len(targets) == 1 {
		return fmt.Sprintf("Delete %s in %s?", targets[0], o.Platform.Where())
	}
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.String()
	}
	return fmt.Sprintf("Delete %d jobs in %s: %s?", len(targets), o.Platform.Where(), strings.Join(names, ", "))
}

func (o *Options) missingError(missing []string) error {
	if len(missing) == 1 {
		return exit.NotFoundErrorf("job %s not found in %s", missing[0], o.Platform.Where())
	}
	return exit.NotFoundErrorf("jobs %s not found in %s", strings.Join(missing, ", "), o.Platform.Where())
}
