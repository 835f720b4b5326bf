// Package notebookargs is what the verbs of "easyai notebook" share: the
// kind notebooks are, the job a notebook name means, and the completion of
// notebook names.
package notebookargs

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/notebook"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/remote"
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

// Named are the options of a verb on one notebook: its name, and the job
// it means once Validate checked it.
type Named struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	Name    string

	// Set by Validate.
	Ref kinds.Ref
}

// Validate checks the name and resolves its job, without the cluster.
func (n *Named) Validate() error {
	var err error
	n.Ref, err = Ref(n.Factory, n.Name)
	return err
}

// TakeName makes cmd take one notebook name (name), completed with the
// namespace's notebooks, and run o's steps; runF replaces Complete and Run
// in tests.
func TakeName[O cmdutil.Steps](cmd *cobra.Command, f *cmdutil.Factory, name *string, o O, runF func(O) error) {
	cmd.Args = cmdutil.ExactArgs(1, "the notebook's name")
	cmd.ValidArgsFunction = Complete(f)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		*name = args[0]
		return cmdutil.RunSteps(cmd.Context(), o, runF)
	}
}

// State are the options of stop and start: the notebook, --wait and
// --timeout, and the clients that suspend, resume or recreate it.
type State struct {
	Named
	Wait    bool
	Timeout time.Duration

	// Set by Complete.
	Namespace string
	Client    *jobclient.Client
	Replicas  *remote.Clients
	Platform  platform.Platform
}

// AddWaitFlags adds --wait (wait being its help) and --timeout.
func (s *State) AddWaitFlags(cmd *cobra.Command, wait string) {
	cmdutil.AddWaitFlags(cmd, &s.Wait, wait, &s.Timeout, 10*time.Minute)
}

// Complete resolves the namespace, the clients and the platform.
func (s *State) Complete() error {
	var err error
	if s.Replicas, err = cmdutil.ReplicaClients(s.Factory); err != nil {
		return err
	}
	s.Namespace, s.Client = s.Replicas.Namespace, s.Replicas.Jobs
	s.Platform, err = s.Factory.Platform()
	return err
}

// Find finds the notebook's job and reads its state; verb ("stopped",
// "resumed") says what a job of a kind that cannot be suspended cannot be.
// A job of the name that is no notebook is an error.
func (s *State) Find(ctx context.Context, verb string) (*jobclient.Suspendable, error) {
	t, err := s.Client.FindSuspendable(ctx, s.Namespace, s.Ref, verb)
	if err != nil {
		return nil, err
	}
	if !notebook.Is(t.Object.GetLabels()) {
		return nil, notebook.NotANotebook(s.Name)
	}
	return t, nil
}
