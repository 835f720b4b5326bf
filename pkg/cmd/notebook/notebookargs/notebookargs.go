// Package notebookargs is what the verbs of "easyai notebook" share: the
// kind notebooks are, the job a notebook name means, and the completion of
// notebook names.
package notebookargs

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/notebook"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// Kind is the kind notebooks are.
func Kind(f *cmdutil.Factory) (kinds.Kind, error) {
	k, ok := f.Kinds.Lookup(notebook.KindName)
	if !ok {
		return nil, fmt.Errorf("internal error: no kind %s for notebooks", notebook.KindName)
	}
	return k, nil
}

// Ref is the job of notebook name.
func Ref(f *cmdutil.Factory, name string) (kinds.Ref, error) {
	if err := submit.CheckName("notebook", name); err != nil {
		return kinds.Ref{}, err
	}
	k, err := Kind(f)
	if err != nil {
		return kinds.Ref{}, err
	}
	return kinds.Ref{Kind: k, Name: name}, nil
}

// Complete completes the name of a notebook of the namespace.
func Complete(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		p, err := f.Platform()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		k, err := Kind(f)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		jobs, err := p.List(cmd.Context(), platform.ListOptions{Kinds: []kinds.Kind{k}, Selector: notebook.Label + "=true"})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, j := range jobs {
			out = append(out, j.Item.Name)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
