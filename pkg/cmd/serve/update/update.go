// Package update is "easyai serve update": a serving's image, variables or
// replicas changed, in a rolling update or as a canary beside it.
package update

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/serving"
)

// Options of serve update.
type Options struct {
	serveargs.Named
	Change   serving.Change
	replicas int32
	// changed reports whether a flag was given (--replicas 0 is refused).
	changed func(flag string) bool
}

// NewCmdUpdate returns "serve update"; runF replaces Complete and Run in tests.
func NewCmdUpdate(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: serveargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "update NAME [--image IMAGE] [--env NAME=VALUE] [--replicas N] [--canary PERCENT]",
		Short: "Change a serving's image, variables or replicas; or try the change as a canary",
		Long: `Change a serving. Without --canary its version is changed in a rolling update:
Kubernetes replaces its pods a few at a time, each new one taking traffic once
it is ready.

With --canary PERCENT the change becomes a new version (v2 beside v1) behind
the same Service, given that share of the replicas: the Service spreads
requests over every ready pod, so the share of the traffic follows the share
of ready replicas and is approximate (with 2 replicas, 50% is one pod each).
"serve promote" then makes the new version the only one, "serve rollback"
removes it.

A serving someone else created is not changed without asking on a terminal,
or --yes.`,
		Example: `  easyai serve update bert --image vllm/vllm-openai:v0.6.4
  easyai serve update bert --image vllm/vllm-openai:v0.6.4 --canary 50
  easyai serve update bert --replicas 4`,
	}
	serveargs.TakeName(cmd, f, &o.Name, o, runF)
	fl := cmd.Flags()
	o.changed = func(flag string) bool { return fl.Changed(flag) }
	fl.StringVar(&o.Change.Image, "image", "", "the server's new image")
	fl.StringArrayVarP(&o.Change.Env, "env", "e", nil, "set a variable of the server, NAME=VALUE; repeatable")
	fl.Int32Var(&o.replicas, "replicas", 0, "the serving's replicas in all")
	fl.IntVar(&o.Change.Canary, "canary", 0, "make the change a new version with this share of the replicas (1 to 99 percent)")
	o.AddYesFlag(cmd)
	return cmd
}

// Validate checks the name and the change.
func (o *Options) Validate() error {
	if err := o.Named.Validate(); err != nil {
		return err
	}
	if o.changed != nil && o.changed("replicas") {
		r := o.replicas
		o.Change.Replicas = &r
	}
	return o.Change.Validate()
}

// Run asks about someone else's serving and changes it.
func (o *Options) Run(ctx context.Context) error {
	return o.Named.Change(ctx, "update", func(ctx context.Context, c *serving.Client, ns string) (string, error) {
		return c.Update(ctx, ns, o.Name, o.Change)
	})
}
