// Package open is "easyai notebook open": a notebook's Jupyter Lab in the browser, logged in.
package open

import (
	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/notebook/notebookargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/notebook"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/webopen"
)

// Options are notebook open's: webopen's on the notebook's job, and the
// factory that resolves the clients.
type Options struct {
	Factory *cmdutil.Factory
	webopen.Request
}

// Complete resolves the namespace, the clients and the browser.
func (o *Options) Complete() error {
	return o.Connect(cmdutil.ReplicaClients(o.Factory))
}

// NewCmdOpen returns "notebook open"; runF replaces Complete and Run in tests.
func NewCmdOpen(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, Request: webopen.Request{IO: f.IOStreams, Name: notebook.Endpoint}}
	cmd := &cobra.Command{
		Use:   "open NAME",
		Short: "Open a notebook in the browser, logged in",
		Long: `Forward a local port to the notebook's Jupyter Lab, print its URL and open it
in the browser logged in with its token, until Ctrl-C: "easyai open NAME
jupyter" for a notebook. The token goes to the browser through a private
page, never on stdout (--show-token prints it) or on a command line.`,
		Example: `  easyai notebook open explore
  easyai notebook open explore --no-browser --port 8888`,
		Args:              cmdutil.ExactArgs(1, "the notebook's name"),
		ValidArgsFunction: notebookargs.Complete(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := notebookargs.Ref(f, args[0])
			if err != nil {
				return err
			}
			o.Ref, o.JobArg = r, r.Kind.Name()+"/"+r.Name
			o.Check = func(j *remote.Job) error {
				if !notebook.Is(j.Object.GetLabels()) {
					return notebook.NotANotebook(args[0])
				}
				return nil
			}
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Address, "address", "127.0.0.1", "local address to listen on (an IP address or localhost)")
	fl.IntVar(&o.LocalPort, "port", 0, "local port (default: a free one)")
	fl.BoolVar(&o.NoBrowser, "no-browser", false, "only print the URL")
	fl.BoolVar(&o.ShowToken, "show-token", false, "print the URL with the login token (the token is a secret)")
	return cmd
}
