// Package logs is "easyai serve logs": the logs of a serving's pods,
// through the logs engine.
package logs

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	logsengine "github.com/easyai-dev/easyai/pkg/logs"
	"github.com/easyai-dev/easyai/pkg/serving"
)

// Options of serve logs.
type Options struct {
	serveargs.Named
	Version string
	// Request holds the flags (how much, -f); Run sets the rest.
	Request logsengine.Request
}

// NewCmdLogs returns "serve logs"; runF replaces Complete and Run in tests.
func NewCmdLogs(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: serveargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "logs NAME [-f] [--version VERSION]",
		Short: "Print or follow the logs of a serving's pods",
		Long: `Print the logs of a serving's pods (of every version, or of --version's), each
line prefixed with its pod, as "easyai logs" prints a job's. With -f the lines
of every pod are merged as they come, pods that start later (a canary, a
replaced pod) are picked up, and the command runs until it is interrupted
(a serving does not end); it ends with exit 3 if the serving's Deployment it
follows is deleted. On a terminal the servers' colours are kept but no other
escape sequence reaches it.`,
		Example: `  easyai serve logs bert
  easyai serve logs bert -f --version v2
  easyai serve logs bert --tail 20 --timestamps`,
	}
	serveargs.TakeName(cmd, f, &o.Name, o, runF)
	fl := cmd.Flags()
	fl.StringVar(&o.Version, "version", "", "only the pods of this version (v1, v2, ...)")
	fl.BoolVarP(&o.Request.Follow, "follow", "f", false, "follow the logs until interrupted")
	fl.Int64Var(&o.Request.Tail, "tail", -1, "only the last N lines of each pod (-1: all)")
	fl.DurationVar(&o.Request.Since, "since", 0, "only lines newer than this (5s, 2m, 3h)")
	fl.BoolVar(&o.Request.Timestamps, "timestamps", false, "show each line's timestamp")
	fl.IntVar(&o.Request.MaxLogRequests, "max-log-requests", logsengine.DefaultMaxLogRequests, "most log streams followed at once with -f")
	return cmd
}

// Validate checks the name and the flags.
func (o *Options) Validate() error {
	if err := o.Named.Validate(); err != nil {
		return err
	}
	switch {
	case o.Request.Tail < -1:
		return exit.UsageErrorf("--tail %d: must be -1 (all) or more", o.Request.Tail)
	case o.Request.Since < 0:
		return exit.UsageErrorf("--since %s: must not be negative", o.Request.Since)
	case o.Request.MaxLogRequests < 1:
		return exit.UsageErrorf("--max-log-requests %d: must be at least 1", o.Request.MaxLogRequests)
	}
	return nil
}

// Run finds the serving and prints its pods' logs.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := serveargs.Client(o.Factory)
	if err != nil {
		return err
	}
	doc, err := c.State(ctx, ns, o.Name)
	if err != nil {
		return err
	}
	version := doc.Versions[len(doc.Versions)-1]
	if o.Version != "" {
		found := false
		for _, v := range doc.Versions {
			if v.Name == o.Version {
				version, found = v, true
			}
		}
		if !found {
			return exit.NotFoundErrorf("serving %s has no version %s", o.Name, o.Version)
		}
	}
	// The engine follows one object: the newest version's Deployment (or
	// --version's).
	if version.Deployment == "" {
		return exit.NotFoundErrorf("serving %s's %s has no pods yet: %s", o.Name, version.Name, doc.Reason)
	}
	d, err := c.Kube.AppsV1().Deployments(ns).Get(ctx, version.Deployment, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("the Deployment of serving %s's %s: %w", o.Name, version.Name, err)
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(d)
	if err != nil {
		return err
	}
	dyn, err := o.Factory.DynamicClient()
	if err != nil {
		return err
	}
	io := o.Factory.IOStreams
	req := o.Request
	req.Kind = serving.Workload{Serving: o.Name, Version: o.Version}
	req.Job, req.Kube, req.Dynamic = &unstructured.Unstructured{Object: obj}, c.Kube, dyn
	req.Colour, req.Terminal, req.Out, req.ErrOut = io.ColorEnabled(), io.IsStdoutTTY(), io.Out, io.ErrOut
	return logsengine.Run(ctx, req)
}
