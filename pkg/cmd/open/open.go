// Package open is "easyai open JOB NAME": forward a web tool of a training
// job (Jupyter, TensorBoard, any named container port) to a local port and
// open it in the browser.
package open

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// Options of open.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	cmdutil.JobOptions

	Name      string
	Task      string
	Address   string
	LocalPort int
	NoBrowser bool
	ShowToken bool

	// Check, when set, may refuse the job found (notebook open: a job
	// that is not a notebook).
	Check func(*remote.Job) error

	// Set by Complete.
	Kube      kubernetes.Interface
	Forwarder *remote.Forwarder
	Browser   Browser
	// RedirectDir is where the page handing the token to the browser goes
	// ("": $XDG_RUNTIME_DIR, else the temporary directory).
	RedirectDir string

	mu       sync.Mutex
	redirect *redirect
}

// NewCmdOpen returns the command; runF replaces Complete and Run in tests.
func NewCmdOpen(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams}
	cmd := &cobra.Command{
		Use:   "open JOB jupyter|tensorboard|PORTNAME|PORT",
		Short: "Open a web tool of a training job in the browser",
		Long: `Forward a web tool of a training job to a local port, print its URL and open
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
that page, and removes it after a minute or when open ends. The browser is
opened when there is
one ($BROWSER, or a display on Linux) and not --no-browser.`,
		Example: `  easyai open mnist tensorboard
  easyai open mnist jupyter --no-browser
  easyai open mnist code-server
  easyai open tf/mnist metrics --task worker-1
  easyai open mnist 8080 --port 8080`,
		Args: cmdutil.ExactArgs(2, "a job and an endpoint: JOB NAME"),
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
	fl := cmd.Flags()
	cmdutil.AddKindFlag(cmd, f.Kinds, &o.KindName, "job's")
	fl.StringVar(&o.Task, "task", "", "the replica to open it in, e.g. worker-1 (default: where the endpoint is)")
	_ = cmd.RegisterFlagCompletionFunc("task", cmdutil.CompleteTasks(f))
	fl.StringVar(&o.Address, "address", "127.0.0.1", "local address to listen on (an IP address or localhost)")
	fl.IntVar(&o.LocalPort, "port", 0, "local port (default: a free one)")
	fl.BoolVar(&o.NoBrowser, "no-browser", false, "only print the URL")
	fl.BoolVar(&o.ShowToken, "show-token", false, "print the URL with the login token (the token is a secret)")
	return cmd
}

// Validate checks the flags and the job argument without reaching the cluster.
func (o *Options) Validate() error {
	if o.Name == "" {
		return exit.UsageErrorf("name the endpoint to open: jupyter, tensorboard, a container port's name or a port number")
	}
	if o.LocalPort < 0 || o.LocalPort > 65535 {
		return exit.UsageErrorf("--port %d: must be from 1 to 65535 (or 0 for a free port)", o.LocalPort)
	}
	if _, err := remote.ParseAddresses([]string{o.Address}); err != nil {
		return err
	}
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the namespace, the clients and the browser.
func (o *Options) Complete() error {
	r, err := cmdutil.ReplicaClients(o.Factory)
	if err != nil {
		return err
	}
	o.Namespace, o.Client, o.Kube = r.Namespace, r.Jobs, r.Kube
	o.Forwarder = &remote.Forwarder{
		Config: r.Config, Kube: r.Kube, Namespace: r.Namespace, Addresses: []string{o.Address},
		Out: o.IO.Out, ErrOut: o.IO.ErrOut,
	}
	o.Browser = SystemBrowser{Getenv: os.Getenv, Out: o.IO.ErrOut}
	return nil
}

// Run finds the endpoint, forwards to it and opens it until ctx ends.
func (o *Options) Run(ctx context.Context) error {
	j, err := remote.FindJob(ctx, o.Client, o.Namespace, o.Ref)
	if err != nil {
		return err
	}
	if o.Check != nil {
		if err := o.Check(j); err != nil {
			return err
		}
	}
	target, err := j.Target(o.Name, o.Task)
	if err != nil {
		return err
	}
	jobUID := j.Object.GetUID()
	token, err := o.token(ctx, target, j.Object.GetName(), jobUID)
	if err != nil {
		return err
	}
	defer o.removeRedirect()

	f := o.Forwarder
	f.Ports = []remote.PortSpec{{Local: uint16(o.LocalPort), Remote: uint16(target.Port)}}
	found := j // the first connection uses the job just read
	f.Resolve = func(ctx context.Context) (jobmodel.Replica, error) {
		if target.Service != "" {
			return remote.ServicePod(ctx, o.Kube, o.Namespace, target.Service, jobUID)
		}
		j := found
		found = nil
		if j == nil {
			var err error
			if j, err = remote.FindJob(ctx, o.Client, o.Namespace, o.Ref); err != nil {
				return jobmodel.Replica{Task: target.Task}, err
			}
		}
		return remote.FindReplica(j.Replicas, target.Task)
	}
	f.Ready = func(r jobmodel.Replica, ports []remote.PortSpec) {
		o.ready(r, target, ports[0].Local, token)
	}
	fmt.Fprintf(o.IO.ErrOut, "Opening %s: port %d of %s (from %s)\n", o.Name, target.Port, target.Where(), target.From)
	return f.Run(ctx)
}

// token reads the endpoint's login token. A Secret that cannot be read is
// said on stderr and the endpoint opened without a token; one the job does
// not own, or a service account's token, is refused: whoever may patch the
// job's annotation must not be able to send another Secret to a browser.
func (o *Options) token(ctx context.Context, t remote.Target, jobName string, jobUID types.UID) (string, error) {
	if t.TokenSecret == "" {
		return "", nil
	}
	s, err := o.Kube.CoreV1().Secrets(o.Namespace).Get(ctx, t.TokenSecret, metav1.GetOptions{})
	if err != nil {
		fmt.Fprintf(o.IO.ErrOut, "Warning: cannot read the login token from Secret %s: %v\n", t.TokenSecret, err)
		return "", nil
	}
	if err := tokenSecretAllowed(s, jobName, jobUID); err != nil {
		return "", err
	}
	token := string(s.Data[jobmodel.TokenSecretKey])
	if token == "" {
		fmt.Fprintf(o.IO.ErrOut, "Warning: Secret %s has no %q key: opening without a token\n", t.TokenSecret, jobmodel.TokenSecretKey)
	}
	return token, nil
}

// tokenSecretAllowed accepts a token Secret only when the job owns it (an
// ownerReference with the job's uid) and it is not a service account's
// token. The error names the Secret, never its data.
func tokenSecretAllowed(s *corev1.Secret, jobName string, jobUID types.UID) error {
	from := fmt.Sprintf("Secret %s, named by the %s annotation of job %s,", s.Name, jobmodel.EndpointsAnnotation, jobName)
	if s.Type == corev1.SecretTypeServiceAccountToken {
		return exit.WithHint(fmt.Errorf("%s is a service account token: refusing to read a login token from it", from),
			"a login token's Secret must be an Opaque Secret owned by the job; check who changed the annotation")
	}
	owned := false
	for _, ref := range s.OwnerReferences {
		if jobUID != "" && ref.UID == jobUID {
			owned = true
		}
	}
	if !owned {
		return exit.WithHint(fmt.Errorf("%s is not owned by the job: refusing to read a login token from it", from),
			fmt.Sprintf("a login token's Secret needs an ownerReference to the job (uid %s); check who changed the annotation", jobUID))
	}
	return nil
}

// ready prints the URL and opens the browser once the port is forwarded.
// A URL with a token goes to the browser through a private redirect page,
// never on its command line.
func (o *Options) ready(r jobmodel.Replica, t remote.Target, local uint16, token string) {
	password := t.Login == jobmodel.LoginPassword
	plain := URL(o.Address, local, t.Path, "")
	login := Login{URL: URL(o.Address, local, t.Path, token)}
	if password {
		login = Login{URL: LoginURL(o.Address, local, t.Path), Password: token}
	}
	if o.ShowToken && !password {
		plain = login.URL
	}
	fmt.Fprintln(o.IO.Out, plain)
	if o.ShowToken && password && token != "" {
		fmt.Fprintf(o.IO.Out, "password: %s\n", token)
	}
	opened := false
	if !o.NoBrowser {
		if ok, why := o.Browser.Available(); !ok {
			fmt.Fprintf(o.IO.ErrOut, "Not opening a browser: %s\n", why)
		} else if err := o.openInBrowser(login, token != ""); err != nil {
			fmt.Fprintf(o.IO.ErrOut, "Warning: could not open a browser: %v\n", err)
		} else {
			opened = true
		}
	}
	switch {
	case token != "" && opened:
		fmt.Fprintf(o.IO.ErrOut, "Opened in the browser, logged in with the token of Secret %s\n", t.TokenSecret)
	case token != "" && !o.ShowToken:
		if password {
			fmt.Fprintf(o.IO.ErrOut, "The password is in Secret %s (key %s): --show-token prints it\n", t.TokenSecret, jobmodel.TokenSecretKey)
		} else {
			fmt.Fprintf(o.IO.ErrOut, "The login token is in Secret %s (key %s): --show-token prints the URL with it\n", t.TokenSecret, jobmodel.TokenSecretKey)
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "Forwarding to %s of %s until Ctrl-C\n", r.Task, o.JobArg)
}

// openInBrowser opens the login's URL; one holding a secret through a
// page that redirects or posts the login form, removed after RedirectTTL or
// when open ends, whichever is first.
func (o *Options) openInBrowser(login Login, secret bool) error {
	if !secret {
		return o.Browser.Open(login.URL)
	}
	page, err := writeRedirect(o.RedirectDir, login)
	if err != nil {
		return fmt.Errorf("writing the page that logs the browser in: %w", err)
	}
	o.mu.Lock()
	o.redirect = page
	o.mu.Unlock()
	time.AfterFunc(RedirectTTL, page.Remove)
	return o.Browser.OpenFile(page.Path)
}

// removeRedirect deletes the redirect page, if one was written.
func (o *Options) removeRedirect() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.redirect.Remove()
}

// LoginURL is the login page under path of a tool logged in by password
// (code-server's PATH/login, which takes a form's "password" field).
func LoginURL(address string, port uint16, path string) string {
	if !strings.HasSuffix(path, "/") {
		path += "/"
	}
	return URL(address, port, path+"login", "")
}

// URL is the local URL of a forwarded endpoint; an unspecified listen
// address (0.0.0.0, ::) is reached as localhost.
func URL(address string, port uint16, path, token string) string {
	host := address
	if ip := net.ParseIP(address); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	u := url.URL{Scheme: "http", Host: net.JoinHostPort(host, strconv.Itoa(int(port))), Path: path}
	if token != "" {
		u.RawQuery = url.Values{"token": {token}}.Encode()
	}
	return u.String()
}
