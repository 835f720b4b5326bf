package cmdutil

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// NoArgs is cobra.NoArgs as a usage error (exit 2).
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return exit.UsageErrorf("%q takes no arguments, got %q", cmd.CommandPath(), args)
	}
	return nil
}

// ExactArgs requires n arguments, described by what ("a job name").
func ExactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return exit.UsageErrorf("%q needs %s (got %d arguments)", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}

// MinimumArgs requires at least n arguments, described by what.
func MinimumArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return exit.UsageErrorf("%q needs %s", cmd.CommandPath(), what)
		}
		return nil
	}
}

// AddKindFlag adds --kind (a kind's name or alias, completed from the
// registry) to a command that names jobs; whose is "job's" or "jobs'".
func AddKindFlag(cmd *cobra.Command, reg *kinds.Registry, target *string, whose string) {
	cmd.Flags().StringVar(target, "kind", "", "the "+whose+" kind ("+strings.Join(reg.Names(), ", ")+", or an alias)")
	_ = cmd.RegisterFlagCompletionFunc("kind", cobra.FixedCompletions(reg.Names(), cobra.ShellCompDirectiveNoFileComp))
}
