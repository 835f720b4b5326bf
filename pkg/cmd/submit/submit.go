// Package submit is "easyai submit KIND -- COMMAND" and "easyai submit -f
// job.yaml": the flags become a submit.Submission, which renders and creates
// the job; this package prints what it made and, with --wait, waits for it.
package submit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobwait"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/notify"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Options of one submit.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams

	// Submission is what the flags ask for; Complete adds the cluster.
	Request submit.JobRequest

	// ValueFlags are -f as given (Submission.JobFiles holds them
	// read) and --dry-run.
	submit.ValueFlags
	Print *printers.PrintFlags
	// Wait for the job to finish (--wait), at most Timeout; with Logs,
	// stream every replica's log meanwhile.
	Wait    bool
	Logs    bool
	Timeout time.Duration
	// Notify are --notify and --notify-on, with --wait.
	Notify jobwait.NotifyFlags

	// args are the arguments before and after "--", dash where "--" was.
	args []string
	dash int
	// changed tells which flags the user set.
	changed func(flag string) bool
	// platform is where the job goes (set by Complete).
	platform platform.Platform
	// notifier notifies how the wait ended (nil: none; set by Complete).
	notifier *notify.Notifier
}

// NewCmdSubmit returns "submit" with a subcommand per kind; runF replaces
// Complete and Run in tests.
func NewCmdSubmit(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := newOptions(f, nil)
	cmd := &cobra.Command{
		Use:   "submit KIND [flags] -- COMMAND [ARGS...]",
		Short: "Submit a training job",
		Long: `Submit a distributed training job of the given kind. The job is rendered
from the kind's chart (or --chart) with the values of the flags, -f files and
--set, checked against the kind's API, and created in one request.

"easyai submit -f job.yaml" submits a job file kept in git: a values file
whose "kind" key names the kind (tf, pytorch, ...).

--wait waits for the job to end and exits with its result (0 succeeded, 4
failed, 5 --timeout ran out), which suits CI; --wait --logs also streams the
logs of every replica meanwhile, as "easyai logs -f" does.

--wait --notify URL POSTs how the job ended to a webhook (its state, times
and exit code in a JSON Notification, never its env; slack:URL and teams:URL get a one-line message);
--notify-on running also tells when it starts running. The URLs are never
printed, and a webhook that fails never changes the exit code: see
"easyai wait --help" and docs/notifications.md.`,
		Example: `  easyai submit -f examples/tf-mnist/job.yaml
  easyai submit tf -f job.yaml --dry-run -o yaml
  # in CI: stream the logs, exit with the job's result, keep the final state
  easyai submit -f job.yaml --wait --logs --timeout 2h -o json > result.json
  # tell a Slack channel when the job starts and when it ends
  easyai submit -f job.yaml --wait --notify slack:https://hooks.slack.com/services/T0/B0/XXXX --notify-on running,finished`,
		Args: commandAfterDash,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.runCommand(cmd, args, runF)
		},
	}
	addCommonFlags(cmd, o)
	for _, k := range f.Kinds.Submittable() {
		cmd.AddCommand(newCmdKind(f, k, runF))
	}
	return cmd
}

func newOptions(f *cmdutil.Factory, k kinds.Kind) *Options {
	return &Options{
		Factory: f,
		IO:      f.IOStreams,
		Request: submit.JobRequest{Kinds: f.Kinds, Kind: k},
		Print:   printers.NewPrintFlags("a line naming the job; dry runs: yaml", printers.FormatName, printers.FormatJSON, printers.FormatYAML),
	}
}

func newCmdKind(f *cmdutil.Factory, k kinds.Kind, runF func(*Options) error) *cobra.Command {
	o := newOptions(f, k)
	gvk := k.GroupVersionKind()
	cmd := &cobra.Command{
		Use:     k.Name() + " [flags] -- COMMAND [ARGS...]",
		Aliases: k.Aliases(),
		Short:   fmt.Sprintf("Submit a %s (%s)", gvk.Kind, gvk.Group),
		Long: fmt.Sprintf(`Submit a %s, served by %s. The command after "--" is run by
every replica; the operator injects the framework's environment.`, gvk.Kind, k.Operator()),
		Example: kinds.SubmitExample(k),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.runCommand(cmd, args, runF)
		},
	}
	if doc, ok := k.(kinds.SubmitDoc); ok {
		cmd.Long = doc.SubmitLong()
	}
	cmdutil.DeferFlags(f, cmd, func() {
		addCommonFlags(cmd, o)
		o.Request.KindValues = k.SubmitFlags(cmd.Flags())
		if lister, ok := k.(kinds.RuntimeLister); ok && cmd.Flags().Lookup("runtime") != nil {
			_ = cmd.RegisterFlagCompletionFunc("runtime", completeRuntimes(f, lister))
		}
	})
	return cmd
}

// completeRuntimes completes --runtime with the runtimes the user can list
// (nothing when the cluster cannot be asked).
func completeRuntimes(f *cmdutil.Factory, lister kinds.RuntimeLister) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		dyn, err := f.DynamicClient()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ns, _, err := f.Namespace()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		runtimes, _, err := lister.ListRuntimes(cmd.Context(), dyn, ns)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var refs []string
		for _, r := range runtimes {
			refs = append(refs, r.Ref+"\t"+r.Framework)
		}
		return refs, cobra.ShellCompDirectiveNoFileComp
	}
}

func addCommonFlags(cmd *cobra.Command, o *Options) {
	fs := cmd.Flags()
	cmdutil.AddSubmitFlags(cmd, &o.Request.Flags)
	cmdutil.AddValueFlags(cmd, &o.ValueFlags, &o.Request)
	o.Print.AddFlags(cmd)
	cmdutil.AddWaitFlags(cmd, &o.Wait, "wait for the job to finish; exit 0 succeeded, 4 failed, 5 timed out (-o json: print it as get does)", &o.Timeout, waiter.DefaultTimeout)
	fs.BoolVar(&o.Logs, "logs", false, "with --wait: stream every replica's log until the job ends (on stderr with -o json)")
	o.Notify.Declare(cmd.Flags())
	_ = cmd.RegisterFlagCompletionFunc("notify-on", cmdutil.CompleteWords(jobwait.NotifyOnWords...))
	_ = cmd.RegisterFlagCompletionFunc("notify", cmdutil.CompleteWordStarts(jobwait.NotifyWords...))
}

// runCommand collects the command line, reads the job files once (under
// the command's context: Ctrl-C ends a read that waits) and runs the steps.
func (o *Options) runCommand(cmd *cobra.Command, args []string, runF func(*Options) error) error {
	o.args, o.dash = args, cmd.ArgsLenAtDash()
	o.Request.BackendFlags = cmd.Flags()
	o.changed = func(flag string) bool {
		fl := cmd.Flags().Lookup(flag)
		return fl != nil && fl.Changed
	}
	o.Request.Flags.Changed = func(flag string) bool {
		if flag == "command" {
			return len(o.Request.Flags.Command) > 0
		}
		return o.changed(flag)
	}
	if err := o.readJobFiles(cmd.Context()); err != nil {
		return err
	}
	return cmdutil.RunSteps(cmd.Context(), o, runF)
}

// commandAfterDash accepts arguments after "--" only (submit -f's
// command); one before it is a mistyped kind.
func commandAfterDash(cmd *cobra.Command, args []string) error {
	if dash := cmd.ArgsLenAtDash(); dash != 0 && len(args) > 0 {
		return exit.UsageErrorf("unexpected arguments %q: name the kind before the flags, or give a job file with -f", args)
	}
	return nil
}

// readJobFiles reads the -f files once ("-" is stdin, at most once), bounded.
func (o *Options) readJobFiles(ctx context.Context) error {
	files, err := o.ReadJobFiles(ctx, o.IO.In)
	if err != nil {
		return err
	}
	o.Request.JobFiles = files
	return nil
}

// Validate checks the command line without the cluster.
func (o *Options) Validate() error {
	s := &o.Request
	if err := o.checkArgs(); err != nil {
		return err
	}
	dryRun, err := submit.ParseDryRun(o.DryRunArg)
	if err != nil {
		return err
	}
	s.DryRun = dryRun
	if err := o.Print.Validate(); err != nil {
		return err
	}
	switch {
	case o.Logs && !o.Wait:
		return exit.UsageErrorf("--logs streams the logs while waiting: add --wait")
	case o.changed("timeout") && !o.Wait:
		return exit.UsageErrorf("--timeout bounds --wait: add --wait")
	case o.Wait && s.DryRun != submit.DryRunNone:
		return exit.UsageErrorf("--wait waits for a submitted job: not with --dry-run")
	case o.Timeout < 0:
		return exit.UsageErrorf("--timeout %s: must not be negative", o.Timeout)
	case (o.changed("notify") || o.changed("notify-on")) && !o.Wait:
		return exit.UsageErrorf("--notify tells how the wait ends: add --wait")
	}
	if err := o.Notify.Validate(waiter.Finished, o.changed("notify-on")); err != nil {
		return err
	}
	return s.Validate()
}

// checkArgs takes the command after "--"; anything before it is an error
// that says what was meant.
func (o *Options) checkArgs() error {
	s := &o.Request
	before := o.args
	if o.dash >= 0 {
		before = o.args[:o.dash]
		s.Flags.Command = o.args[o.dash:]
	}
	if len(before) == 0 {
		return nil
	}
	if o.changed("dry-run") && o.DryRunArg == string(submit.DryRunClient) {
		if _, err := submit.ParseDryRun(before[0]); err == nil {
			return exit.UsageErrorf("unexpected argument %q: write --dry-run=%s (with \"=\")", before[0], before[0])
		}
	}
	// "submit" itself takes none before "--" (commandAfterDash): these
	// follow a kind.
	return exit.UsageErrorf("unexpected arguments %q: put the command after \"--\" (easyai submit %s [flags] -- python train.py)", before, s.Kind.Name())
}

// Complete adds the settings and the platform to the submission.
func (o *Options) Complete() error {
	if err := cmdutil.CompleteSubmission(o.Factory, &o.Request); err != nil {
		return err
	}
	var err error
	if o.platform, err = o.Factory.Platform(); err != nil || !o.Wait {
		return err
	}
	o.notifier, err = o.Notify.Notifier(o.Factory.Config, o.IO.ErrOut, o.Factory.Now)
	return err
}

// Run submits the job (or prints it, for a dry run) and with --wait waits
// for it.
func (o *Options) Run(ctx context.Context) error {
	res, err := o.platform.Submit(ctx, &o.Request)
	if err != nil {
		return err
	}
	switch {
	case o.Request.DryRun != submit.DryRunNone:
		return o.print(res, printers.FormatYAML)
	case !o.Wait:
		return o.print(res, printers.FormatDefault)
	}
	return o.waitFor(ctx, res)
}

// waitFor waits for a submitted job to finish: a document output (-o json)
// prints its final get document instead of the submitted object; the error
// is the job's result.
func (o *Options) waitFor(ctx context.Context, res *platform.Submitted) error {
	document := o.Print.Document()
	if document == nil {
		if err := o.print(res, printers.FormatDefault); err != nil {
			return err
		}
	}
	w := jobwait.Wait{IO: o.IO, Platform: o.platform, Job: res.Job,
		For: waiter.Finished, Timeout: o.Timeout, StuckAfter: waiter.DefaultStuckAfter, Document: document, Notify: o.notifier}
	if o.Logs {
		logOut := o.IO.Out
		if document != nil {
			// stdout stays one document.
			logOut = o.IO.ErrOut
		}
		w.Then = o.followLogs(ctx, res.Job, logOut)
	}
	return w.Run(ctx)
}

// LogDrainTimeout bounds how long submit --wait --logs lets the log streams
// finish after the job has ended.
var LogDrainTimeout = 30 * time.Second

// followLogs starts following the logs of every replica of the created job
// and returns the step that ends it once the wait is over: after the job
// ended, the streams are given LogDrainTimeout to print their last lines;
// after a timeout or an interrupt they are cut at once. A log error does not
// change the result, which is the job's: it is reported on stderr.
func (o *Options) followLogs(ctx context.Context, job *platform.Job, out io.Writer) func(error) {
	io := o.IO
	logCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() {
		done <- o.platform.Logs(logCtx, job, platform.LogRequest{Out: out, ErrOut: io.ErrOut, Colour: io.ColorEnabled() && out == io.Out,
			Terminal: out == io.Out && io.IsStdoutTTY() || out == io.ErrOut && io.IsStderrTTY()})
	}()
	return func(waitErr error) {
		defer cancel()
		var err error
		switch code := exit.Code(waitErr); {
		case waitErr == nil || code == exit.JobFailed:
			select {
			case err = <-done:
			case <-time.After(LogDrainTimeout):
				cancel()
				<-done
				fmt.Fprintf(io.ErrOut, "Warning: the logs did not end within %s of the job's end; stopped following them\n", LogDrainTimeout)
				return
			}
		default:
			cancel()
			err = <-done
		}
		if err != nil && !errors.Is(err, context.Canceled) && exit.Code(err) != exit.JobFailed && exit.Code(err) != exit.NotFound {
			fmt.Fprintf(io.ErrOut, "Warning: following the logs: %v\n", err)
		}
	}
}

// print writes the job as -o asks (name, json, yaml), else as byDefault:
// a line saying what was submitted, or yaml for a dry run.
func (o *Options) print(res *platform.Submitted, byDefault printers.Format) error {
	return cmdutil.PrintSubmitted(o.Factory, o.platform, o.Print, res, byDefault)
}
