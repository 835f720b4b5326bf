// Package webopen opens a web tool of a training job (Jupyter, TensorBoard,
// code-server, any named container port): a local port forwarded to it, its
// URL printed, the browser logged in with the tool's token without the token
// on a command line. "easyai open" and "easyai notebook open" run it.
package webopen

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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// Request is one open: the job and its endpoint, where to listen and what
// to print; Connect gives it the clients that reach the job's pods. "easyai
// open" and "easyai notebook open" build it from their flags and the
// factory.
type Request struct {
	IO *iostreams.IOStreams
	// Ref is the job; JobArg names it in messages, as the user gave it.
	Ref    kinds.Ref
	JobArg string

	Name      string
	Task      string
	Address   string
	LocalPort int
	NoBrowser bool
	ShowToken bool

	// Check, when set, may refuse the job found (notebook open: a job
	// that is not a notebook).
	Check func(*remote.Job) error

	// Set by Connect.
	Namespace string
	Client    *jobclient.Client
	Kube      kubernetes.Interface
	Forwarder *remote.Forwarder
	Browser   Browser
	// RedirectDir is where the page handing the token to the browser goes
	// ("": $XDG_RUNTIME_DIR, else the temporary directory).
	RedirectDir string

	mu       sync.Mutex
	redirect *redirect
}

// Validate checks the endpoint and where to listen without reaching the
// cluster.
func (o *Request) Validate() error {
	if o.Name == "" {
		return exit.UsageErrorf("name the endpoint to open: jupyter, tensorboard, a container port's name or a port number")
	}
	if o.LocalPort < 0 || o.LocalPort > 65535 {
		return exit.UsageErrorf("--port %d: must be from 1 to 65535 (or 0 for a free port)", o.LocalPort)
	}
	_, err := remote.ParseAddresses([]string{o.Address})
	return err
}

// Connect gives open the clients that reach the job's pods, a forwarder on
// them, and the system's browser; err, when not nil, is why there are no
// clients (cmdutil.ReplicaClients' error), and is returned.
func (o *Request) Connect(c *remote.Clients, err error) error {
	if err != nil {
		return err
	}
	o.Namespace, o.Client, o.Kube = c.Namespace, c.Jobs, c.Kube
	o.Forwarder = &remote.Forwarder{
		Config: c.Config, Kube: c.Kube, Namespace: c.Namespace, Addresses: []string{o.Address},
		Out: o.IO.Out, ErrOut: o.IO.ErrOut,
	}
	o.Browser = SystemBrowser{Getenv: os.Getenv, Out: o.IO.ErrOut}
	return nil
}

// Run finds the endpoint, forwards to it and opens it until ctx ends.
func (o *Request) Run(ctx context.Context) error {
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
func (o *Request) token(ctx context.Context, t remote.Target, jobName string, jobUID types.UID) (string, error) {
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
func (o *Request) ready(r jobmodel.Replica, t remote.Target, local uint16, token string) {
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
func (o *Request) openInBrowser(login Login, secret bool) error {
	if !secret {
		return o.Browser.Open(login.URL)
	}
	dir := o.RedirectDir
	if _, system := o.Browser.(SystemBrowser); dir == "" && system {
		// A snap browser cannot read /tmp: its own directory, or say so.
		if name := systemLookups.snapName(); name != "" {
			home, _ := os.UserHomeDir()
			if dir = snapPageDir(name, home); dir == "" {
				return fmt.Errorf("the browser is the snap %s, which cannot read the page that logs it in; open it yourself: --no-browser --show-token prints the URL", name)
			}
		}
	}
	page, err := writeRedirect(dir, login)
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
func (o *Request) removeRedirect() {
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
