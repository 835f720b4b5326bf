// Package cronargs is what the verbs of "easyai cron" share: the schedules
// client of the run's namespace, the schedule's name as an argument and its
// completion.
package cronargs

import (
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cron"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// Client is the schedules client and the namespace the command acts in.
func Client(f *cmdutil.Factory) (*cron.Client, string, error) {
	kc, err := f.KubeClient()
	if err != nil {
		return nil, "", err
	}
	ns, _, err := f.Namespace()
	if err != nil {
		return nil, "", err
	}
	return &cron.Client{Kube: kc, Now: f.Now}, ns, nil
}

// Named is what the verbs on one schedule share: the factory and the name
// (checked by Validate).
type Named struct {
	Factory *cmdutil.Factory
	Name    string
}

// Validate checks the name.
func (n *Named) Validate() error {
	if errs := validation.IsDNS1035Label(n.Name); len(errs) > 0 {
		return exit.UsageErrorf("schedule name %q: not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter)", n.Name)
	}
	return nil
}

// Complete has nothing to resolve: Run works through the factory's clients.
func (n *Named) Complete() error { return nil }

// TakeName makes cmd take one argument, the schedule's name (completed),
// into name, and run o's steps.
func TakeName[O cmdutil.Steps](cmd *cobra.Command, f *cmdutil.Factory, name *string, o O, runF func(O) error) {
	cmd.Args = cmdutil.ExactArgs(1, "the schedule's name")
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, ns, err := Client(f)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, err := c.List(cmd.Context(), ns)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, s := range list {
			out = append(out, s.Name)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		*name = args[0]
		return cmdutil.RunSteps(cmd.Context(), o, runF)
	}
}
