// Package serveargs is what the verbs of "easyai serve" share: the
// servings client of the run's namespace and the completion of serving
// names.
package serveargs

import (
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/serving"
)

// Client is the servings client and the namespace the command acts in.
func Client(f *cmdutil.Factory) (*serving.Client, string, error) {
	kc, err := f.KubeClient()
	if err != nil {
		return nil, "", err
	}
	ns, _, err := f.Namespace()
	if err != nil {
		return nil, "", err
	}
	cfg, err := f.Config()
	if err != nil {
		return nil, "", err
	}
	var gpus []string
	if cfg.GPUResource != "" {
		gpus = []string{cfg.GPUResource}
	}
	return &serving.Client{Kube: kc, GPUResources: gpus, Now: f.Now}, ns, nil
}

// CheckName refuses a name no serving can have (exit 2).
func CheckName(name string) error {
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
		return exit.UsageErrorf("serving name %q: not a DNS-1035 label (lower-case letters, digits and '-', starting with a letter)", name)
	}
	return nil
}

// Complete completes the name of a serving of the namespace.
func Complete(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		c, ns, err := Client(f)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		list, err := c.List(cmd.Context(), ns, nil)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, s := range list {
			out = append(out, s.Name)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
