package cmdutil

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// CompleteJobs completes job arguments (get, delete) with the names of the
// namespace's jobs, each described by its kind and state.
func CompleteJobs(f *Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ns, client, err := NamespacedJobs(f)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		res, err := client.List(ctx, jobclient.ListOptions{Namespace: ns})
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
func CompleteJob(f *Factory) cobra.CompletionFunc {
	names := CompleteJobs(f)
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return names(cmd, args, toComplete)
	}
}

// CompleteWords completes a flag or argument with a fixed set of values,
// never with file names.
func CompleteWords(words ...string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return words, cobra.ShellCompDirectiveNoFileComp
	}
}

// CompleteTasks completes --task with the replicas (ROLE-INDEX) of the job
// the first argument names, each described by its phase; never with file
// names.
func CompleteTasks(f *Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) == 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ns, client, err := NamespacedJobs(f)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		kindName, _ := cmd.Flags().GetString("kind")
		ref, err := kinds.ParseRef(f.Kinds, args[0], kindName)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		j, err := remote.FindJob(ctx, client, ns, ref)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]cobra.Completion, 0, len(j.Replicas))
		for _, r := range j.Replicas {
			out = append(out, cobra.CompletionWithDesc(r.Task, r.Phase))
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// CompleteWordStarts completes with words that begin a value ("slack:",
// "https://"): no space is added after one.
func CompleteWordStarts(words ...string) cobra.CompletionFunc {
	return cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace)
}
