package list

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/jobclient"
)

// CompleteJobs completes job arguments (get, delete) with the names of the
// namespace's jobs, each described by its kind and state.
func CompleteJobs(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		o := &Options{Factory: f, IO: f.IOStreams}
		if err := o.Complete(ctx); err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		res, err := o.Client.List(ctx, jobclient.ListOptions{Namespace: o.Namespace})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, j := range res.Jobs {
			out = append(out, cobra.CompletionWithDesc(j.Summary.Name, j.Kind.Name()+", "+string(j.Summary.Status.State)))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// CompleteJob completes the one job argument of a command (get, logs, ...):
// job names for the first argument, nothing after it.
func CompleteJob(f *cmdutil.Factory) cobra.CompletionFunc {
	jobs := CompleteJobs(f)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return jobs(cmd, args, toComplete)
	}
}
