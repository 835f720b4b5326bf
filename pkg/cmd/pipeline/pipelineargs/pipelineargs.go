// Package pipelineargs is what the verbs of "easyai pipeline" share: the
// pipelines client of the run's namespace, the pipeline's name as an
// argument and its completion.
package pipelineargs

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
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
type Named = cmdutil.Named

// NewNamed is the Named of a verb of f on a pipeline.
func NewNamed(f *cmdutil.Factory) Named { return Named{Factory: f, What: "pipeline"} }

// TakeName makes cmd take one argument, the pipeline's name (completed),
// into name, and run o's steps.
func TakeName[O cmdutil.Steps](cmd *cobra.Command, f *cmdutil.Factory, name *string, o O, runF func(O) error) {
	cmdutil.TakeName(cmd, name, "pipeline", names(f), o, runF)
}

// Complete completes the name of a pipeline of the namespace.
func Complete(f *cmdutil.Factory) cobra.CompletionFunc { return cmdutil.CompleteNames(names(f)) }

// names are the names of the namespace's pipelines.
func names(f *cmdutil.Factory) func(context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		c, ns, err := Client(f)
		if err != nil {
			return nil, err
		}
		list, err := c.List(ctx, ns)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(list))
		for i, p := range list {
			out[i] = p.Name
		}
		return out, nil
	}
}
