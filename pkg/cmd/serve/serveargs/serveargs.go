// Package serveargs is what the verbs of "easyai serve" share: the
// servings client of the run's namespace and the completion of serving
// names.
package serveargs

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
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
	dyn, err := f.DynamicClient()
	if err != nil {
		return nil, "", err
	}
	var gpus []string
	if cfg.GPUResource != "" {
		gpus = []string{cfg.GPUResource}
	}
	return &serving.Client{Kube: kc, Dynamic: dyn, GPUResources: gpus, Now: f.Now}, ns, nil
}

// CheckName refuses a name no serving can have (exit 2).
func CheckName(name string) error {
	return (&cmdutil.Named{Name: name, What: "serving"}).Validate()
}

// Complete completes the name of a serving of the namespace.
func Complete(f *cmdutil.Factory) cobra.CompletionFunc { return cmdutil.CompleteNames(names(f)) }

// names are the names of the namespace's servings.
func names(f *cmdutil.Factory) func(context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		c, ns, err := Client(f)
		if err != nil {
			return nil, err
		}
		list, err := c.List(ctx, ns, nil)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = s.Name
		}
		return out, nil
	}
}

// ConfirmOwner asks, before a serving someone else created is changed,
// whether to go on (on a terminal; without one --yes is needed). A serving
// whose creator is not recorded, or a user who cannot be told, is not
// asked about. verb says what would be done ("update").
func ConfirmOwner(ctx context.Context, f *cmdutil.Factory, c *serving.Client, ns, name, verb string, yes bool) error {
	owner, err := c.Owner(ctx, ns, name)
	if err != nil {
		return err
	}
	me, _ := f.User(ctx)
	if yes || owner == "" || me == "" || owner == me {
		return nil
	}
	owner = jobmodel.OneLine(owner)
	if !f.IOStreams.CanPrompt() {
		return exit.UsageErrorf("serving %s was created by %s: pass --yes to %s it as %s (there is no terminal to ask on)", name, owner, verb, me)
	}
	ok, err := f.Prompter.Confirm(fmt.Sprintf("Serving %s was created by %s. %s it as %s?", name, owner, strings.ToUpper(verb[:1])+verb[1:], me), false)
	if err != nil {
		return err
	}
	if !ok {
		return exit.Declined("serving " + name + " not changed")
	}
	return nil
}

// Named is what the verbs on one serving share: the factory, the name
// (checked by Validate) and --yes.
type Named struct {
	cmdutil.Named
	Yes bool
}

// NewNamed is the Named of a verb of f on a serving.
func NewNamed(f *cmdutil.Factory) Named {
	return Named{Named: cmdutil.Named{Factory: f, What: "serving"}}
}

// TakeName makes cmd take one argument, the serving's name (completed),
// into name, and run o's steps.
func TakeName[O cmdutil.Steps](cmd *cobra.Command, f *cmdutil.Factory, name *string, o O, runF func(O) error) {
	cmdutil.TakeName(cmd, name, "serving", names(f), o, runF)
}

// Change makes one change of the serving (verb: "update", "promote", ...):
// the client of the namespace, the creator's consent (ConfirmOwner), then
// do, whose line for people is printed on stdout.
func (n *Named) Change(ctx context.Context, verb string, do func(ctx context.Context, c *serving.Client, ns string) (string, error)) error {
	c, ns, err := Client(n.Factory)
	if err != nil {
		return err
	}
	if err := ConfirmOwner(ctx, n.Factory, c, ns, n.Name, verb, n.Yes); err != nil {
		return err
	}
	said, err := do(ctx, c, ns)
	if err != nil {
		return err
	}
	fmt.Fprintln(n.Factory.IOStreams.Out, said)
	return nil
}

// AddYesFlag adds --yes, which changes someone else's serving without
// asking (ConfirmOwner).
func (n *Named) AddYesFlag(cmd *cobra.Command) {
	cmd.Flags().BoolVarP(&n.Yes, "yes", "y", false, "do not ask before changing someone else's serving")
}
