// Package wait is "easyai wait JOB": block until a job runs, finishes or
// succeeds, and exit with its result.
package wait

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobwait"
	"github.com/easyai-dev/easyai/pkg/notify"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Options of wait.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	cmdutil.JobOptions

	ForArg  string
	Timeout time.Duration
	// StuckAfter is --stuck-after.
	StuckAfter time.Duration
	Print      *printers.PrintFlags
	Notify     jobwait.NotifyFlags

	// Set by Validate.
	For waiter.Condition
	// changed tells which flags the user set.
	changed func(flag string) bool
	// notifier notifies the wait's events (nil: none); set by Complete.
	notifier *notify.Notifier
}

// long is wait's help.
const long = `Wait until a training job reaches a state, watching the job (not polling it), and exit
with the result: 0 when reached, 4 when the job failed, 5 when --timeout ran
out, 3 when there is no such job (or it was deleted while waiting).

A pod of the job that cannot start until the job is changed also ends the
wait with 4, naming the pod and why: at once for an image the node does not
have and may not pull (ErrImageNeverPull), an invalid image name, or a
missing key of a Secret or ConfigMap (CreateContainerConfigError); after
--stuck-after (1m) for a pod in a crash loop (CrashLoopBackOff) or one that
cannot mount a Secret or ConfigMap that does not exist (FailedMount). The
job's pods are read, as a table of their statuses, every 5 seconds for this
(and the namespace's FailedMount events while a pod has been starting for
--stuck-after). A pod that waits for room on the cluster (Unschedulable)
never ends the wait: a queue may hold it on purpose.

--for finished (the default) waits for success or failure; --for succeeded
waits for success; --for running waits until the job runs; --for suspended
waits until a suspended job's pods are stopped (see "easyai suspend");
--for admitted waits until Kueue admits a job of a Kueue LocalQueue (its
Workload is Admitted), saying on stderr each change of where it stands
("Queued (2nd in team-a, waiting for nvidia.com/gpu: ...)"). A job of a
LocalQueue not yet admitted is first waited for so, whatever --for says,
and the line saying it was admitted comes before the rest of the wait.

JOB is NAME, or KIND/NAME (tf/mnist), or NAME with --kind. The final state is
said on stderr; -o json, -o yaml or a template prints the job's document (as
"get -o json") on stdout once the wait ended.

--notify URL POSTs how the wait ended to a webhook: the job's state, times,
exit code and owner in a JSON Notification (never its env, command or
output), or with slack:URL or teams:URL a one-line message for a
channel's incoming webhook ("tf/mnist in namespace team-a failed after 3m
(exit code 1 in worker-0)"). --notify-on chooses what is sent: finished
(success, failure, timeout or deletion), failed (those but success), running
(the job was seen running; with --for finished it is sent while the wait
goes on) or suspended (with --for suspended); by default, every way the wait
can end. The URLs are never printed; the configuration's notify setting
gives them when --notify is not given, and --notify none sends nothing. A
webhook that fails is one line on stderr and never changes the exit code
(docs/notifications.md).`

// examples are wait's examples.
const examples = `  easyai wait mnist
  easyai wait tf/mnist --for running --timeout 10m
  easyai wait mnist -o json | jq .status.state
  # tell a Slack channel when the job started and when it ended
  easyai wait mnist --notify slack:https://hooks.slack.com/services/T0/B0/XXXX --notify-on running,finished
  # POST how it ended to a service of your own, only on failure
  easyai wait mnist --notify https://ci.example.com/hooks/easyai --notify-on failed`

// NewCmdWait returns the command; runF replaces Complete and Run in tests.
func NewCmdWait(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams,
		Print: printers.NewPrintFlags("nothing on stdout", printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:     "wait JOB",
		Short:   "Wait for a training job to run, finish or succeed",
		Long:    long,
		Example: examples,
	}
	cmdutil.TakeOneJob(cmd, f, o, runF)
	o.changed = cmd.Flags().Changed
	o.addFlags(cmd)
	return cmd
}

// addFlags adds wait's flags, --for completed with the conditions.
func (o *Options) addFlags(cmd *cobra.Command) {
	f := o.Factory
	fl := cmd.Flags()
	cmdutil.AddKindFlag(cmd, f.Kinds, &o.KindName, "job's")
	fl.StringVar(&o.ForArg, "for", string(waiter.Finished), "what to wait for: running, finished, succeeded, suspended or admitted (by Kueue)")
	cmdutil.AddTimeoutFlag(cmd, &o.Timeout, waiter.DefaultTimeout)
	fl.DurationVar(&o.StuckAfter, "stuck-after", waiter.DefaultStuckAfter, "end with exit 4 when a pod stays this long in a crash loop or waits this long for a missing Secret or ConfigMap; 0 waits them out")
	o.Print.AddFlags(cmd)
	o.Notify.Declare(cmd.Flags())
	_ = cmd.RegisterFlagCompletionFunc("notify-on", cmdutil.CompleteWords(jobwait.NotifyOnWords...))
	_ = cmd.RegisterFlagCompletionFunc("notify", cmdutil.CompleteWordStarts(jobwait.NotifyWords...))
	conditions := make([]string, len(waiter.Conditions))
	for i, c := range waiter.Conditions {
		conditions[i] = string(c)
	}
	_ = cmd.RegisterFlagCompletionFunc("for", cmdutil.CompleteWords(conditions...))
}

// Validate checks the flags and the job argument without reaching the cluster.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	if o.Timeout < 0 {
		return exit.UsageErrorf("--timeout %s: must not be negative", o.Timeout)
	}
	if o.StuckAfter < 0 {
		return exit.UsageErrorf("--stuck-after %s: must not be negative", o.StuckAfter)
	}
	c, err := waiter.ParseCondition(o.ForArg)
	if err != nil {
		return err
	}
	o.For = c
	if err := o.Notify.Validate(c, o.changed != nil && o.changed("notify-on")); err != nil {
		return err
	}
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the platform and the webhooks to notify.
func (o *Options) Complete() error {
	if err := o.CompletePlatform(o.Factory); err != nil {
		return err
	}
	var err error
	o.notifier, err = o.Notify.Notifier(o.Factory.Config, o.IO.ErrOut, o.Factory.Now)
	return err
}

// Run finds the job and waits for it.
func (o *Options) Run(ctx context.Context) error {
	job, err := o.Platform.Find(ctx, o.Ref)
	if err != nil {
		return err
	}
	w := jobwait.Wait{IO: o.IO, Platform: o.Platform, Job: job,
		For: o.For, Timeout: o.Timeout, StuckAfter: o.StuckAfter, Document: o.Print.Document(), Notify: o.notifier}
	return w.Run(ctx)
}
