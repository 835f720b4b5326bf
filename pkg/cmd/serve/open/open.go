// Package open is "easyai serve open": a serving in the browser, through a
// port-forward that follows it to a ready pod.
package open

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/webopen"
)

// Options of serve open.
type Options struct {
	serveargs.Named
	Path      string
	LocalPort uint16
	NoBrowser bool
	Browser   webopen.Browser
}

// NewCmdOpen returns "serve open"; runF replaces Complete and Run in tests.
func NewCmdOpen(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: serveargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "open NAME [--path PATH] [--no-browser]",
		Short: "Open a serving in the browser, through the Kubernetes API",
		Long: `Forward a local port to a ready pod of a serving, through the Kubernetes API
(nothing needs to be exposed), print its URL on stdout and open it in the
browser (not with --no-browser, nor without a display). The forward lasts
until Ctrl-C; when its pod goes away it moves to another ready pod.`,
		Example: `  easyai serve open bert --path /docs
  easyai serve open bert --no-browser --local-port 8000`,
	}
	serveargs.TakeName(cmd, f, &o.Name, o, runF)
	fl := cmd.Flags()
	fl.StringVar(&o.Path, "path", "/", "the URL path to open")
	fl.Uint16Var(&o.LocalPort, "local-port", 0, "the local port (default: a free one)")
	fl.BoolVar(&o.NoBrowser, "no-browser", false, "only print the URL")
	return cmd
}

// Validate checks the name and the path.
func (o *Options) Validate() error {
	if err := o.Named.Validate(); err != nil {
		return err
	}
	if len(o.Path) == 0 || o.Path[0] != '/' {
		return exit.UsageErrorf("--path %q: a URL path, starting with /", o.Path)
	}
	return nil
}

// Run forwards until interrupted.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := serveargs.Client(o.Factory)
	if err != nil {
		return err
	}
	_, port, err := c.ReadyPod(ctx, ns, o.Name)
	if err != nil {
		return err
	}
	config, err := o.Factory.RESTConfig()
	if err != nil {
		return err
	}
	io := o.Factory.IOStreams
	if o.Browser == nil {
		o.Browser = webopen.SystemBrowser{Getenv: os.Getenv, Out: io.ErrOut}
	}
	task := "serving " + o.Name
	f := &remote.Forwarder{
		Config: config, Kube: c.Kube, Namespace: ns, Addresses: []string{"127.0.0.1"},
		Ports: []remote.PortSpec{{Local: o.LocalPort, Remote: port}}, Out: io.Out, ErrOut: io.ErrOut,
		Resolve: func(ctx context.Context) (jobmodel.Replica, error) {
			pod, _, err := c.ReadyPod(ctx, ns, o.Name)
			if err != nil {
				return jobmodel.Replica{Task: task}, err
			}
			return jobmodel.Replica{Task: task, Pod: pod, Phase: "Running"}, nil
		},
		Ready: func(r jobmodel.Replica, ports []remote.PortSpec) {
			url := "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(int(ports[0].Local))) + o.Path
			fmt.Fprintln(io.Out, url)
			if !o.NoBrowser {
				if ok, why := o.Browser.Available(); !ok {
					fmt.Fprintf(io.ErrOut, "Not opening a browser: %s\n", why)
				} else if err := o.Browser.Open(url); err != nil {
					fmt.Fprintf(io.ErrOut, "Warning: could not open a browser: %v\n", err)
				}
			}
			fmt.Fprintf(io.ErrOut, "Forwarding to pod %s of %s until Ctrl-C\n", r.Pod, task)
		},
	}
	// Ctrl-C ends it: "Interrupted.", as port-forward.
	return f.Run(ctx)
}
