// Package wait is "easyai wait JOB": block until a job runs, finishes or
// succeeds, and exit with its result.
package wait

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/cmd/list"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// DefaultTimeout is how long wait waits without --timeout.
const DefaultTimeout = time.Hour

// Options of wait.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	cmdutil.JobOptions

	ForArg  string
	Timeout time.Duration
	Output  string

	// Set by Validate.
	For waiter.Condition
}

// NewCmdWait returns the command; runF replaces Complete and Run in tests.
func NewCmdWait(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "wait JOB",
		Short: "Wait for a training job to run, finish or succeed",
		Long: `Wait until a training job reaches a state, watching it (no polling), and exit
with the result: 0 when reached, 4 when the job failed, 5 when --timeout ran
out, 3 when there is no such job (or it was deleted while waiting).

--for finished (the default) waits for success or failure; --for succeeded
waits for success; --for running waits until the job runs; --for suspended
waits until a suspended job's pods are stopped (see "easyai suspend").

JOB is NAME, or KIND/NAME (tf/mnist), or NAME with --kind. The final state is
said on stderr; -o json prints the job's document (as "get -o json") on stdout.`,
		Example: `  easyai wait mnist
  easyai wait tf/mnist --for running --timeout 10m
  easyai wait mnist -o json | jq .status.state`,
		Args:              cmdutil.ExactArgs(1, "a job: NAME or KIND/NAME"),
		ValidArgsFunction: list.CompleteJob(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JobArg = args[0]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	fl := cmd.Flags()
	cmdutil.AddKindFlag(cmd, f.Kinds, &o.KindName, "job's")
	fl.StringVar(&o.ForArg, "for", string(waiter.Finished), "what to wait for: running, finished, succeeded or suspended")
	fl.DurationVar(&o.Timeout, "timeout", DefaultTimeout, "give up after this long (exit 5); 0 waits forever")
	fl.StringVarP(&o.Output, "output", "o", "", "output format: json (the job's document once the wait ends)")
	_ = cmd.RegisterFlagCompletionFunc("for", cobra.FixedCompletions([]string{"running", "finished", "succeeded"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Validate checks the flags and the job argument without reaching the cluster.
func (o *Options) Validate() error {
	if o.Output != "" && o.Output != "json" {
		return exit.UsageErrorf("--output %q: must be json", o.Output)
	}
	if o.Timeout < 0 {
		return exit.UsageErrorf("--timeout %s: must not be negative", o.Timeout)
	}
	c, err := waiter.ParseCondition(o.ForArg)
	if err != nil {
		return err
	}
	o.For = c
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the namespace and the clients.
func (o *Options) Complete() error { return o.CompleteJob(o.Factory) }

// Run finds the job and waits for it.
func (o *Options) Run(ctx context.Context) error {
	k, obj, err := o.Client.Find(ctx, o.Namespace, o.Ref)
	if err != nil {
		return err
	}
	return Until(ctx, o.Factory, o.Client, k, obj, o.For, o.Timeout, o.Output)
}

// Until waits for a job found or just created and reports how the wait ended:
// the final state on stderr, and with output "json" the job's document on
// stdout. Its error carries the exit code (4 failed, 5 timed out, 3 deleted).
func Until(ctx context.Context, f *cmdutil.Factory, client *jobclient.Client, k kinds.Kind, obj *unstructured.Unstructured, c waiter.Condition, timeout time.Duration, output string) error {
	return UntilThen(ctx, f, client, k, obj, c, timeout, output, nil)
}

// UntilThen is Until with a step between the end of the wait and the report:
// then (when not nil) gets the wait's error (nil: reached) before anything
// is printed, e.g. to let a log stream finish first.
func UntilThen(ctx context.Context, f *cmdutil.Factory, client *jobclient.Client, k kinds.Kind, obj *unstructured.Unstructured, c waiter.Condition, timeout time.Duration, output string, then func(error)) error {
	io := f.IOStreams
	res, err := waiter.Wait(ctx, waiter.Request{
		Dynamic: client.Dynamic, Kind: k, GPUResource: client.GPUResource,
		Object: obj, For: c, Timeout: timeout, Now: f.Now,
	})
	if then != nil {
		then(err)
	}
	if res == nil || exit.Code(err) == exit.Interrupted {
		return err
	}
	if err == nil {
		fmt.Fprintln(io.ErrOut, res.Line(k))
	}
	if output == "json" {
		// A fresh context: the wait's may have run out, the document is still due.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		d, derr := client.Describe(dctx, k, res.Object)
		if derr != nil {
			if err != nil {
				return err
			}
			return derr
		}
		if perr := printers.JSON(io.Out, jobclient.DocumentOf(d, f.Now())); perr != nil && err == nil {
			return perr
		}
	}
	return err
}
