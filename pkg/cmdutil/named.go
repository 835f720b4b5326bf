package cmdutil

import (
	"context"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// Named is what a verb on one named object of the namespace shares (a
// serving, a pipeline, a schedule): the factory and the object's name, which
// Validate checks is a DNS-1035 label. What names the object in messages
// ("serving").
type Named struct {
	Factory *Factory
	Name    string
	What    string
}

// Validate checks the name.
func (n *Named) Validate() error {
	if errs := validation.IsDNS1035Label(n.Name); len(errs) > 0 {
		return exit.UsageErrorf("%s name %q: not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter)", n.What, n.Name)
	}
	return nil
}

// Complete has nothing to resolve: Run works through the factory's clients.
func (n *Named) Complete() error { return nil }

// TakeName makes cmd take one argument, the name of a what ("serving"),
// into name, completed from names (the namespace's), and run o's steps.
func TakeName[O Steps](cmd *cobra.Command, name *string, what string, names func(context.Context) ([]string, error), o O, runF func(O) error) {
	cmd.Args = ExactArgs(1, "the "+what+"'s name")
	cmd.ValidArgsFunction = CompleteNames(names)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		*name = args[0]
		return RunSteps(cmd.Context(), o, runF)
	}
}

// CompleteNames completes a first argument from names; nothing on error.
func CompleteNames(names func(context.Context) ([]string, error)) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, err := names(cmd.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		out := make([]cobra.Completion, 0, len(list))
		for _, n := range list {
			out = append(out, n)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
