// Package open is "easyai open JOB NAME": forward a web tool of a training
// job (Jupyter, TensorBoard, code-server, any named container port) to a
// local port and open it in the browser (pkg/webopen does it).
package open

import (
	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/webopen"
)

// Options of open: webopen's, with --kind, and the factory that resolves
// the job argument and the clients.
type Options struct {
	Factory *cmdutil.Factory
	webopen.Request
	// KindName is --kind.
	KindName string
}

// long is open's help.
const long = `Forward a web tool of a training job to a local port, print its URL and open
it in the browser, then keep forwarding until Ctrl-C (as port-forward does,
following the replica to a new pod).

NAME is looked up, in order:
  - in the job's easyai.io/endpoints annotation: for each web tool the job
    runs (jupyter, tensorboard, code-server, ...), its replica (or the
    Service beside the job whose pod serves it), port, URL path and the
    Secret holding a login token. submit --tensorboard, --jupyter and
    --code-server write it; other tools are named at submit with
    --annotation (see docs/labels.md);
  - as a named container port of a replica (ports[].name in the pod):
    the default replica (chief, master, launcher or worker-0) first, then
    the others, or only --task's;
  - as a port number.

A token is read from its Secret, which must be owned by the job (an
ownerReference with the job's uid) and not be a service account's token:
any other Secret is refused (exit 1), so that whoever may edit the job's
annotations cannot send another Secret to your browser; a Service the job
does not own is refused alike. The token is handed to the browser only:
the URL printed on stdout has none, unless --show-token asks for it. Nor
is it on the browser's command line, which other users of the host can
see: easyai writes a page (mode 0600, in a new private directory under
$XDG_RUNTIME_DIR or the temporary directory) that redirects to the URL with
the token, or posts it to the tool's login form (code-server's), opens
that page, and removes it after a minute or when open ends. A browser
installed as a snap (Ubuntu's Firefox) cannot read those directories: the
page then goes to its own ~/snap/NAME/common, or, without one, open says so
in one line (--no-browser --show-token prints the URL to open yourself). The
browser is opened when there is one ($BROWSER, or a display on Linux) and not
--no-browser.`

// examples are open's examples.
const examples = `  easyai open mnist tensorboard
  easyai open mnist jupyter --no-browser
  easyai open mnist code-server
  easyai open tf/mnist metrics --task worker-1
  easyai open mnist 8080 --port 8080`

// NewCmdOpen returns the command; runF replaces Complete and Run in tests.
func NewCmdOpen(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, Request: webopen.Request{IO: f.IOStreams}}
	cmd := &cobra.Command{
		Use:     "open JOB jupyter|tensorboard|PORTNAME|PORT",
		Short:   "Open a web tool of a training job in the browser",
		Long:    long,
		Example: examples,
		Args:    cmdutil.ExactArgs(2, "a job and an endpoint: JOB NAME"),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return cmdutil.CompleteJobs(f)(cmd, args, toComplete)
			}
			if len(args) == 1 {
				return []cobra.Completion{"jupyter", "tensorboard", "code-server"}, cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JobArg, o.Name = args[0], args[1]
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	addFlags(cmd, f, o)
	return cmd
}

// addFlags adds open's flags.
func addFlags(cmd *cobra.Command, f *cmdutil.Factory, o *Options) {
	fl := cmd.Flags()
	cmdutil.AddKindFlag(cmd, f.Kinds, &o.KindName, "job's")
	cmdutil.AddTaskFlag(cmd, f, &o.Task, "the replica to open it in", "where the endpoint is")
	fl.StringVar(&o.Address, "address", "127.0.0.1", "local address to listen on (an IP address or localhost)")
	fl.IntVar(&o.LocalPort, "port", 0, "local port (default: a free one)")
	fl.BoolVar(&o.NoBrowser, "no-browser", false, "only print the URL")
	fl.BoolVar(&o.ShowToken, "show-token", false, "print the URL with the login token (the token is a secret)")
}

// Validate checks the flags and the job argument without reaching the cluster.
func (o *Options) Validate() error {
	if err := o.Request.Validate(); err != nil {
		return err
	}
	ref, err := kinds.ParseRef(o.Factory.Kinds, o.JobArg, o.KindName)
	if err != nil {
		return err
	}
	o.Ref = ref
	return nil
}

// Complete resolves the namespace, the clients and the browser.
func (o *Options) Complete() error {
	return o.Connect(cmdutil.ReplicaClients(o.Factory))
}
