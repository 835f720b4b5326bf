// Package create is "easyai notebook create": a notebook made and started.
package create

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/notebook/notebookargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobwait"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/notebook"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Options of notebook create.
type Options struct {
	Factory   *cmdutil.Factory
	IO        *iostreams.IOStreams
	Spec      notebook.Spec
	DryRunArg string
	Print     *printers.PrintFlags
	Wait      bool
	Timeout   time.Duration

	dryRun submit.DryRun
	sub    *submit.JobRequest
	p      platform.Platform
}

// NewCmdCreate returns "notebook create"; runF replaces Complete and Run in tests.
func NewCmdCreate(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a line", printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Create a notebook and start it",
		Long: `Create a notebook: Jupyter Lab in one pod, its login token generated and
kept in a Secret owned by the notebook (NAME-jupyter).

Mounted from the team's storage (--storage, or the configuration's): your
workspace notebook/USER at /notebooks/home and the team's notebook/public at
/notebooks/public, Jupyter's root being /notebooks. A notebook needs a
storage: without one it exits 2.

--cpu and --memory are the limits; the pod requests a quarter of them
(--overcommit 4) so that idle notebooks do not hold a node's capacity. GPUs
are requested as asked, never overcommitted.

With --idle-timeout (8h by default; 0: never) Jupyter culls idle kernels and
terminals and then shuts itself down: the notebook ends (Ended), its pod and
GPUs go, "easyai notebook start" brings it back. --max-duration (7 days by
default; 0: none) is a hard deadline counted from its start.

The image must run "jupyter lab" (default: the configuration's
notebook-image, else ` + notebook.DefaultImage + `).`,
		Example: `  easyai notebook create explore
  easyai notebook create finetune --gpus 1 --image quay.io/jupyter/pytorch-notebook:cuda12-python-3.12 --memory 32Gi
  easyai notebook create scratch --idle-timeout 1h --max-duration 24h`,
		Args: cmdutil.ExactArgs(1, "the notebook's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Spec.Name = args[0]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Spec.Image, "image", "", "image running jupyter lab (default: the configuration's notebook-image, else "+notebook.DefaultImage+")")
	fl.IntVar(&o.Spec.GPUs, "gpus", 0, "GPUs of the notebook")
	fl.StringVar(&o.Spec.CPU, "cpu", notebook.DefaultCPU, "CPU limit")
	fl.StringVar(&o.Spec.Memory, "memory", notebook.DefaultMemory, "memory limit")
	fl.IntVar(&o.Spec.Overcommit, "overcommit", notebook.DefaultOvercommit, "cpu and memory are requested at their limit divided by this (1: not overcommitted)")
	fl.DurationVar(&o.Spec.IdleTimeout, "idle-timeout", notebook.DefaultIdleTimeout, "Jupyter shuts down after this long without activity (0: never)")
	fl.DurationVar(&o.Spec.MaxDuration, "max-duration", notebook.DefaultMaxDuration, "the notebook is stopped after running this long (0: never)")
	fl.StringVar(&o.Spec.Storage, "storage", "", "the team's storage, pvc:CLAIM[:/prefix] or nfs:SERVER:/export[:/prefix] (default: the configuration's storage)")
	fl.StringArrayVar(&o.Spec.NodeSelectors, "node-selector", nil, "node label KEY=VALUE the pod must run on (repeatable)")
	fl.StringArrayVar(&o.Spec.Tolerations, "toleration", nil, "tolerate a taint: key[=value]:effect (repeatable)")
	fl.StringArrayVar(&o.Spec.PullSecrets, "image-pull-secret", nil, "Secret to pull the image with (repeatable)")
	fl.StringVar(&o.DryRunArg, "dry-run", string(submit.DryRunNone), `print the notebook's job without creating it: "client", or "server"`)
	fl.Lookup("dry-run").NoOptDefVal = "client"
	cmdutil.AddWaitFlags(cmd, &o.Wait, "wait until the notebook runs", &o.Timeout, 10*time.Minute)
	o.Print.AddFlags(cmd)
	return cmd
}

func (o *Options) Validate() error {
	var err error
	if o.dryRun, err = submit.ParseDryRun(o.DryRunArg); err != nil {
		return err
	}
	if o.Wait && o.dryRun != submit.DryRunNone {
		return exit.UsageErrorf("--wait: a dry run creates nothing to wait for")
	}
	if err := o.Print.Validate(); err != nil {
		return err
	}
	if o.Spec.Image != "" {
		if err := submit.CheckImage("--image", o.Spec.Image); err != nil {
			return err
		}
	}
	return o.Spec.Check()
}

func (o *Options) Complete() error {
	cfg, err := o.Factory.Config()
	if err != nil {
		return err
	}
	if o.Spec.Image == "" {
		o.Spec.Image = cfg.NotebookImage
	}
	if o.Spec.Image == "" {
		o.Spec.Image = notebook.DefaultImage
	}
	k, err := notebookargs.Kind(o.Factory)
	if err != nil {
		return err
	}
	if o.sub, err = o.Spec.JobRequest(o.Factory.Kinds, k); err != nil {
		return err
	}
	if err := cmdutil.CompleteSubmission(o.Factory, o.sub); err != nil {
		return err
	}
	o.sub.Prompter = nil // everything is given
	o.sub.DryRun = o.dryRun
	o.p, err = o.Factory.Platform()
	return err
}

func (o *Options) Run(ctx context.Context) error {
	res, err := o.p.Submit(ctx, o.sub)
	if err != nil {
		return err
	}
	if o.dryRun != submit.DryRunNone || o.Print.Format() != printers.FormatDefault {
		byDefault := printers.FormatDefault
		if o.dryRun != submit.DryRunNone {
			byDefault = printers.FormatYAML
		}
		return cmdutil.PrintSubmitted(o.Factory, o.p, o.Print, res, byDefault)
	}
	fmt.Fprintf(o.IO.Out, "notebook %s created in %s\n", o.Spec.Name, o.p.Where())
	if o.Wait {
		if err := jobwait.For(ctx, o.IO, o.Factory.Platform, kinds.Ref{Kind: o.sub.Kind, Name: o.Spec.Name}, waiter.Running, o.Timeout); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "Open it with: %s notebook open %s\n", o.Factory.ExecutableName, o.Spec.Name)
	return nil
}
