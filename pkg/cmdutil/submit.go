package cmdutil

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// AddSubmitFlags adds the common submit flags (submit.Flags, declared by
// its table) to cmd, with their completions: submit KIND, submit -f and
// rerun take the same ones.
func AddSubmitFlags(cmd *cobra.Command, v *submit.Flags) {
	v.Declare(cmd.Flags())
	_ = cmd.RegisterFlagCompletionFunc("image-pull-policy", CompleteWords("Always", "IfNotPresent", "Never"))
	_ = cmd.RegisterFlagCompletionFunc("clean-pod-policy", CompleteWords("All", "Running", "None"))
}

// AddValueFlags adds --chart, -f, --set and --dry-run (submit.ValueFlags)
// to cmd, the chart and --set going into s.
func AddValueFlags(cmd *cobra.Command, v *submit.ValueFlags, s *submit.JobRequest) {
	v.Declare(cmd.Flags(), s)
	_ = cmd.RegisterFlagCompletionFunc("dry-run", CompleteWords("client", "server"))
}

// CompleteSubmission gives a job request what it takes from the
// configuration and the run: the settings' defaults, the prompter (on a
// terminal only) and stderr for its notes (submit.JobRequest.UseEnv).
func CompleteSubmission(f *Factory, s *submit.JobRequest) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	env := submit.RunEnv{
		Settings: submit.Settings{Image: cfg.Image, Queue: cfg.Queue, QueueSystem: cfg.QueueSystem, PriorityClass: cfg.PriorityClass, GPUResource: cfg.GPUResource,
			Labels: cfg.Labels, KubeflowBackend: cfg.KubeflowBackend, Storage: cfg.Storage, Preemptible: cfg.Preemptible},
		Notes: f.IOStreams.ErrOut,
	}
	if f.IOStreams.CanPrompt() {
		env.Prompter = f.Prompter
	}
	s.UseEnv(env)
	return nil
}

// PrintSubmitted writes what a submission made as -o asks (name, json,
// yaml), else as byDefault: the line saying what was submitted, with how
// to see it on stderr, or yaml (a dry run).
func PrintSubmitted(f *Factory, p platform.Platform, print *printers.PrintFlags, res *platform.Submitted, byDefault printers.Format) error {
	out := f.IOStreams.Out
	if len(res.Beside) > 0 {
		verb := "Made"
		if res.Job == nil {
			verb = "Would make"
		}
		fmt.Fprintf(f.IOStreams.ErrOut, "%s beside the job, owned by it: %s\n", verb, strings.Join(res.Beside, ", "))
	}
	format := print.Format()
	if format == printers.FormatDefault {
		format = byDefault
	}
	switch format {
	case printers.FormatName:
		_, err := fmt.Fprintln(out, res.Name)
		return err
	case printers.FormatJSON:
		return printers.JSON(out, res.Shown)
	case printers.FormatYAML:
		return printers.YAML(out, res.Shown)
	}
	fmt.Fprintln(out, res.Line)
	if res.Job != nil {
		fmt.Fprintf(f.IOStreams.ErrOut, "See it with: %s get %s\n", f.ExecutableName, p.JobArgs(res.Job))
	}
	return nil
}

// JobFileSubmission is a job file submitted on a user's behalf by a
// command other than submit (a pipeline's step, a schedule's run): named,
// of an experiment, labelled, with --set values over the file's.
type JobFileSubmission struct {
	File       render.ValueFile
	Name       string
	Experiment string
	Labels     []string
	Set        []string
	DryRun     submit.DryRun
	// Notes, when set, gets what submit says besides the result (nil: nothing).
	Notes io.Writer
}

// SubmitJobFile submits s as "submit -f" would, with its checks and
// messages, never asking anything.
func SubmitJobFile(ctx context.Context, f *Factory, s JobFileSubmission) (*platform.Submitted, error) {
	req := &submit.JobRequest{
		Kinds: f.Kinds, JobFiles: []render.ValueFile{s.File}, Set: s.Set, DryRun: s.DryRun,
		Flags: submit.Flags{Name: s.Name, Experiment: s.Experiment, Labels: s.Labels},
	}
	req.Flags.Changed = func(flag string) bool { return flag == "name" || flag == "label" || flag == "experiment" }
	if err := CompleteSubmission(f, req); err != nil {
		return nil, err
	}
	req.Prompter, req.Notes = nil, s.Notes
	if err := req.Validate(); err != nil {
		return nil, err
	}
	p, err := f.Platform()
	if err != nil {
		return nil, err
	}
	return p.Submit(ctx, req)
}
