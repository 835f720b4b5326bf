// Package rerun is "easyai rerun JOB": submit a job again from the values it
// was submitted with (its easyai.io/request annotation), under a new name,
// the flags given overriding those values.
package rerun

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// Options of rerun.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	cmdutil.JobOptions

	// Submission is what the flags ask for; Run adds the kind and the
	// values recorded on the job, below the flags and -f files.
	Request submit.JobRequest
	submit.ValueFlags
	// Backend is --backend, for a kind that has two ("": the kind's
	// default, auto).
	Backend string
	// Yes submits again a job someone else submitted without asking.
	Yes   bool
	Print *printers.PrintFlags

	// flags are the command's, for what the user set.
	flags *pflag.FlagSet
}

// NewCmdRerun returns the command; runF replaces Complete and Run in tests.
func NewCmdRerun(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{
		Factory: f,
		IO:      f.IOStreams,
		Request: submit.JobRequest{Kinds: f.Kinds},
		Print:   printers.NewPrintFlags("a line naming the new job; dry runs: yaml", printers.FormatName, printers.FormatJSON, printers.FormatYAML),
	}
	cmd := &cobra.Command{
		Use:   "rerun JOB [flags] [-- COMMAND [ARGS...]]",
		Short: "Submit a job again, with what it was submitted with",
		Long: `Submit a job again from the values it was submitted with, which easyai
recorded on it (its easyai.io/request annotation): the same kind, image,
command, replicas, resources and storage, under a new name (generated, or
--name). The job must still exist, finished or not; its new run writes into
new directories of its storage.

The submit flags given override the recorded values, as flags override a job
file in "easyai submit -f"; -f files come above the recorded values, --set
above everything; a command after "--" replaces the recorded one. The
experiment carries over unless --experiment is given. --workers sets the
replicas as "easyai submit KIND" does; a kind's own flags (--ps,
--nproc-per-node, ...) are not taken: use --set.

Labels and annotations given with --label and --annotation at the first
submit are not part of the recorded values: give them again. A kind with two
backends (pytorch, jax, xgboost, colossalai) is submitted on the one
"easyai submit -f" would choose, unless --backend says which.

The recorded values are the job's annotation, which anyone who may edit the
job can change. A job someone else submitted (its easyai.io/user is not
you) is therefore shown first: whose it is and what it would run as yours
(image, command, the names of its env); rerun asks on a terminal, and needs
--yes elsewhere (exit 2 without it). A "no" submits nothing (exit 1).

The new job records the one it came from in its easyai.io/rerun-of
annotation. A job easyai did not submit has no recorded values (exit 3);
timaker clusters keep none (exit 2). "easyai get JOB -o values" prints
them as a job file.`,
		Example: `  easyai rerun mnist
  # more workers and another learning rate, under a name of your own
  easyai rerun tf/mnist --name mnist-lr2 --workers 4 -- python train.py --lr 0.2
  # what would be submitted, validated by the API server
  easyai rerun mnist --image registry.example.com/mnist:2 --dry-run=server -o yaml
  # in a script: only the new job's KIND/NAME on stdout
  easyai rerun mnist --experiment lr-sweep -o name`,
		Args:              jobBeforeDash,
		ValidArgsFunction: cmdutil.CompleteJob(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.runCommand(cmd, args, runF)
		},
	}
	cmdutil.AddKindFlag(cmd, f.Kinds, &o.KindName, "job's")
	cmdutil.AddSubmitFlags(cmd, &o.Request.Flags)
	cmdutil.AddValueFlags(cmd, &o.ValueFlags, &o.Request)
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "submit again a job someone else submitted without asking (required for one when not on a terminal)")
	cmd.Flags().StringVar(&o.Backend, "backend", "", "what serves a kind that has two, as submit KIND --backend takes it (pytorch, jax, xgboost: training-operator, trainer or auto; colossalai: t9k, volcano or auto)")
	o.Print.AddFlags(cmd)
	return cmd
}

// jobBeforeDash takes one job before "--" and the command after it.
func jobBeforeDash(cmd *cobra.Command, args []string) error {
	before := args
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		before = args[:dash]
	}
	if len(before) != 1 {
		return exit.UsageErrorf("%q needs one job before \"--\": NAME or KIND/NAME (got %d arguments)", cmd.CommandPath(), len(before))
	}
	return nil
}

// runCommand collects the command line, reads the -f files once and runs
// the steps.
func (o *Options) runCommand(cmd *cobra.Command, args []string, runF func(*Options) error) error {
	o.JobArg = args[0]
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		o.Request.Flags.Command = args[dash:]
	}
	o.flags = cmd.Flags()
	o.Request.Flags.Changed = func(flag string) bool {
		if flag == "command" {
			return len(o.Request.Flags.Command) > 0
		}
		return o.changed(flag)
	}
	files, err := o.ReadJobFiles(cmd.Context(), o.IO.In)
	if err != nil {
		return err
	}
	o.Request.JobFiles = files
	return cmdutil.RunSteps(cmd.Context(), o, runF)
}

// changed reports whether the user set a flag of the command.
func (o *Options) changed(flag string) bool {
	if o.flags == nil {
		return false
	}
	fl := o.flags.Lookup(flag)
	return fl != nil && fl.Changed
}

// Validate checks the command line without the cluster.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	dryRun, err := submit.ParseDryRun(o.DryRunArg)
	if err != nil {
		return err
	}
	o.Request.DryRun = dryRun
	return o.ParseJob(o.Factory.Kinds)
}

// Complete adds the settings and the platform.
func (o *Options) Complete() error {
	if err := cmdutil.CompleteSubmission(o.Factory, &o.Request); err != nil {
		return err
	}
	return o.CompletePlatform(o.Factory)
}

// Run reads what the job was submitted with and submits it again.
func (o *Options) Run(ctx context.Context) error {
	job, recorded, err := platform.FindRecorded(ctx, o.Platform, o.Ref)
	if err != nil {
		return err
	}
	if err := o.fromRecorded(job, recorded); err != nil {
		return err
	}
	o.Request.CheckSubmitter = func(me string) error { return o.confirmOthersJob(job, recorded, me) }
	res, err := o.Platform.Submit(ctx, &o.Request)
	if err != nil {
		return err
	}
	byDefault := printers.FormatDefault
	if o.Request.DryRun != submit.DryRunNone {
		byDefault = printers.FormatYAML
	}
	return cmdutil.PrintSubmitted(o.Factory, o.Platform, o.Print, res, byDefault)
}

// fromRecorded completes the submission with what job was submitted with:
// its kind (with its --workers and --backend), its values as the first job
// file, its experiment unless --experiment is given, and the annotation
// naming it.
func (o *Options) fromRecorded(job *platform.Job, recorded *platform.Recorded) error {
	s := &o.Request
	k := recorded.Kind
	file, err := recorded.JobFile()
	if err != nil {
		return err
	}
	s.Kind = k
	s.JobFiles = append([]render.ValueFile{{Name: "(the values recorded on " + job.String() + ")", Data: file}}, s.JobFiles...)

	// The kind's own flags, at their defaults, turn --workers into its
	// replicas and carry --backend; the command's flags follow, so that a
	// backend choice sees what the user set.
	kindFlags := pflag.NewFlagSet(k.Name(), pflag.ContinueOnError)
	s.KindValues = k.SubmitFlags(kindFlags)
	if o.changed("backend") {
		if kindFlags.Lookup("backend") == nil {
			return exit.UsageErrorf("--backend %s: %s jobs have one backend", o.Backend, k.Name())
		}
		if err := kindFlags.Set("backend", o.Backend); err != nil {
			return exit.UsageErrorf("--backend %s: %v", o.Backend, err)
		}
	}
	backendFlags := pflag.NewFlagSet(k.Name(), pflag.ContinueOnError)
	backendFlags.AddFlagSet(kindFlags)
	if o.flags != nil {
		backendFlags.AddFlagSet(o.flags)
	}
	s.BackendFlags = backendFlags

	if !o.changed("experiment") {
		s.Flags.Experiment = recorded.Experiment
	}
	s.Flags.Annotations = append(s.Flags.Annotations, fmt.Sprintf("%s=%s", jobmodel.RerunOfAnnotation, job))
	return s.Validate()
}

// confirmOthersJob shows what a job someone else submitted would run as
// the user's (me, who submits), and asks (or needs --yes): its recorded
// values are an annotation its editors may have changed. A job whose
// submitter is not recorded, or a user who cannot be told, is not asked
// about.
func (o *Options) confirmOthersJob(job *platform.Job, recorded *platform.Recorded, me string) error {
	owner := job.Item.RecordedUser
	if owner == "" || me == "" || me == owner {
		return nil
	}
	owner = jobmodel.OneLine(owner)
	image, _ := recorded.Values["image"].(string)
	command := printers.ShellJoin(stringsOf(recorded.Values["command"]))
	var envNames []string
	for _, e := range anys(recorded.Values["env"]) {
		if m, ok := e.(map[string]any); ok {
			if name, ok := m["name"].(string); ok {
				envNames = append(envNames, name)
			}
		}
	}
	if o.Request.Flags.Changed != nil && o.Request.Flags.Changed("image") {
		image = o.Request.Flags.Image
	}
	if len(o.Request.Flags.Command) > 0 {
		command = printers.ShellJoin(o.Request.Flags.Command)
	}
	w := o.IO.ErrOut
	fmt.Fprintf(w, "%s was submitted by %s, not by you (%s). Submitted again, as yours, it runs:\n", job, owner, jobmodel.OneLine(me))
	fmt.Fprintf(w, "  image:   %s\n", orNone(jobmodel.OneLine(image)))
	fmt.Fprintf(w, "  command: %s\n", orNone(jobmodel.OneLine(command)))
	fmt.Fprintf(w, "  env:     %s\n", orNone(jobmodel.OneLine(strings.Join(envNames, ", "))))
	switch {
	case o.Yes || o.Request.DryRun != submit.DryRunNone:
		return nil
	case !o.IO.CanPrompt():
		return exit.UsageErrorf("rerun of a job %s submitted: give --yes to submit what it runs as yours", owner)
	}
	ok, err := o.Factory.Prompter.Confirm(fmt.Sprintf("Submit %s's job again as yours?", owner), false)
	if err != nil {
		return err
	}
	if !ok {
		return exit.Declined("Nothing submitted.")
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func anys(v any) []any {
	l, _ := v.([]any)
	return l
}

func stringsOf(v any) []string {
	var out []string
	for _, x := range anys(v) {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
