// Package cronargs is what the verbs of "easyai cron" share: the schedules
// client of the run's namespace, the schedule's name as an argument and its
// completion.
package cronargs

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cron"
)

// Client is the schedules client and the namespace the command acts in.
func Client(f *cmdutil.Factory) (*cron.Client, string, error) {
	kc, err := f.KubeClient()
	if err != nil {
		return nil, "", err
	}
	dyn, err := f.DynamicClient()
	if err != nil {
		return nil, "", err
	}
	ns, _, err := f.Namespace()
	if err != nil {
		return nil, "", err
	}
	return &cron.Client{Kube: kc, Dynamic: dyn, Now: f.Now, Warn: f.IOStreams.ErrOut}, ns, nil
}

// Named is what the verbs on one schedule share: the factory and the name
// (checked by Validate).
type Named = cmdutil.Named

// NewNamed is the Named of a verb of f on a schedule.
func NewNamed(f *cmdutil.Factory) Named { return Named{Factory: f, What: "schedule"} }

// TakeName makes cmd take one argument, the schedule's name (completed),
// into name, and run o's steps.
func TakeName[O cmdutil.Steps](cmd *cobra.Command, f *cmdutil.Factory, name *string, o O, runF func(O) error) {
	cmdutil.TakeName(cmd, name, "schedule", func(ctx context.Context) ([]string, error) {
		c, ns, err := Client(f)
		if err != nil {
			return nil, err
		}
		list, err := c.List(ctx, ns)
		if err != nil {
			return nil, err
		}
		out := make([]string, len(list))
		for i, s := range list {
			out[i] = s.Name
		}
		return out, nil
	}, o, runF)
}
