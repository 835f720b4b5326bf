// Package pipelineargs is what the verbs of "easyai pipeline" share: the
// pipelines client of the run's namespace, the pipeline's name as an
// argument and its completion.
package pipelineargs

import (
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/pipeline"
)

// Client is the pipelines client and the namespace the command acts in.
func Client(f *cmdutil.Factory) (*pipeline.Client, string, error) {
	dyn, err := f.DynamicClient()
	if err != nil {
		return nil, "", err
	}
	ns, _, err := f.Namespace()
	if err != nil {
		return nil, "", err
	}
	return &pipeline.Client{Dynamic: dyn, Now: f.Now}, ns, nil
}

// Named is what the verbs on one pipeline share: the factory and the name
// (checked by Validate).
type Named struct {
	Factory *cmdutil.Factory
	Name    string
}

// Validate checks the name.
func (n *Named) Validate() error {
	if errs := validation.IsDNS1035Label(n.Name); len(errs) > 0 {
		return exit.UsageErrorf("pipeline name %q: not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter)", n.Name)
	}
	return nil
}

// Complete has nothing to resolve: Run works through the factory's clients.
func (n *Named) Complete() error { return nil }

// TakeName makes cmd take one argument, the pipeline's name (completed),
// into name, and run o's steps.
func TakeName[O cmdutil.Steps](cmd *cobra.Command, f *cmdutil.Factory, name *string, o O, runF func(O) error) {
	cmd.Args = cmdutil.ExactArgs(1, "the pipeline's name")
	cmd.ValidArgsFunction = Complete(f)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		*name = args[0]
		return cmdutil.RunSteps(cmd.Context(), o, runF)
	}
}

// Complete completes the name of a pipeline of the namespace.
func Complete(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
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
		for _, p := range list {
			out = append(out, p.Name)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
