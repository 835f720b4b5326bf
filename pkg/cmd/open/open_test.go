package open

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/job"
	"github.com/easyai-dev/easyai/pkg/jobs/jobstest"
	"github.com/easyai-dev/easyai/pkg/remote"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestFlagsMakeOptions(t *testing.T) {
	f, _, _ := jobstest.Factory(t, false, jobstest.Dynamic(), nil)
	var got *Options
	cmd := NewCmdOpen(f, func(o *Options) error { got = o; return nil })
	if err := run(cmd, "tf/mnist", "jupyter", "--task", "worker-1", "--port", "8888", "--no-browser", "--address", "0.0.0.0"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "tf/mnist" || got.Name != "jupyter" || got.Task != "worker-1" || got.LocalPort != 8888 || !got.NoBrowser || got.Address != "0.0.0.0" {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{
		{"mnist"}, {"mnist", "jupyter", "extra"}, {"mnist", "jupyter", "--port", "70000"}, {"mnist", "jupyter", "--address", "example.com"},
	} {
		err := run(NewCmdOpen(f, func(*Options) error { return nil }), args...)
		if exit.Code(err) != exit.Usage {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

func TestURL(t *testing.T) {
	for _, tt := range []struct {
		address, path, token, want string
	}{
		{"127.0.0.1", "", "", "http://127.0.0.1:6006/"},
		{"127.0.0.1", "/lab", "s3cr=t&x", "http://127.0.0.1:8888/lab?token=s3cr%3Dt%26x"},
		{"0.0.0.0", "lab", "", "http://localhost:8888/lab"},
		{"::", "/", "", "http://localhost:8888/"},
		{"::1", "/", "", "http://[::1]:8888/"},
	} {
		port := uint16(8888)
		if tt.path == "" {
			port = 6006
		}
		if got := URL(tt.address, port, tt.path, tt.token); got != tt.want {
			t.Errorf("URL(%s, %s, %s) = %s, want %s", tt.address, tt.path, tt.token, got, tt.want)
		}
	}
}

type fakeBrowser struct {
	available bool
	opened    []string
}

func (b *fakeBrowser) Available() (bool, string) { return b.available, "no display" }
func (b *fakeBrowser) Open(url string) error     { b.opened = append(b.opened, url); return nil }

// readyWith runs the step after the port is forwarded, with a Jupyter whose
// token is in a Secret.
func readyWith(t *testing.T, o *Options, browser *fakeBrowser) (stdout, stderr string) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	o.IO, o.Browser, o.Namespace, o.JobArg, o.Address = io, browser, "team-a", "mnist", "127.0.0.1"
	o.Kube = kubefake.NewClientset(&corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "mnist-jupyter", Namespace: "team-a"},
		Data:       map[string][]byte{job.TokenSecretKey: []byte("s3cret")},
	})
	target := remote.Target{Task: "master-0", Port: 8888, Path: "/lab", TokenSecret: "mnist-jupyter"}
	o.ready(job.Replica{Task: "master-0"}, target, 43210, o.token(context.Background(), target))
	return out.String(), errOut.String()
}

func TestTheTokenGoesToTheBrowserOnly(t *testing.T) {
	b := &fakeBrowser{available: true}
	stdout, stderr := readyWith(t, &Options{}, b)
	if stdout != "http://127.0.0.1:43210/lab\n" {
		t.Errorf("stdout %q", stdout)
	}
	if len(b.opened) != 1 || b.opened[0] != "http://127.0.0.1:43210/lab?token=s3cret" {
		t.Errorf("the browser opened %q", b.opened)
	}
	if strings.Contains(stderr, "s3cret") || !strings.Contains(stderr, "logged in with the token of Secret mnist-jupyter") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestWithoutABrowserTheUserIsToldWhereTheTokenIs(t *testing.T) {
	for _, tt := range []struct {
		name    string
		o       *Options
		browser *fakeBrowser
		why     string
	}{
		{"--no-browser", &Options{NoBrowser: true}, &fakeBrowser{available: true}, ""},
		{"no display", &Options{}, &fakeBrowser{available: false}, "Not opening a browser: no display"},
	} {
		stdout, stderr := readyWith(t, tt.o, tt.browser)
		if len(tt.browser.opened) != 0 || strings.Contains(stdout+stderr, "s3cret") {
			t.Errorf("%s: opened %q, stdout %q, stderr %q", tt.name, tt.browser.opened, stdout, stderr)
		}
		if !strings.Contains(stderr, "The login token is in Secret mnist-jupyter (key token): --show-token") || !strings.Contains(stderr, tt.why) {
			t.Errorf("%s: stderr %q", tt.name, stderr)
		}
	}
	stdout, _ := readyWith(t, &Options{NoBrowser: true, ShowToken: true}, &fakeBrowser{})
	if stdout != "http://127.0.0.1:43210/lab?token=s3cret\n" {
		t.Errorf("--show-token: stdout %q", stdout)
	}
}

func TestAMissingTokenSecretIsAWarning(t *testing.T) {
	var errOut bytes.Buffer
	o := &Options{IO: &iostreams.IOStreams{ErrOut: &errOut}, Kube: kubefake.NewClientset()}
	o.Namespace = "team-a"
	if tok := o.token(context.Background(), remote.Target{TokenSecret: "gone"}); tok != "" || !strings.Contains(errOut.String(), "cannot read the login token from Secret gone") {
		t.Errorf("token %q, stderr %q", tok, errOut.String())
	}
}

func TestSystemBrowserNeedsADisplayOrBROWSER(t *testing.T) {
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	if ok, _ := (SystemBrowser{Getenv: env(map[string]string{"BROWSER": "firefox"})}).Available(); !ok {
		t.Errorf("$BROWSER set: not available")
	}
	var out bytes.Buffer
	b := SystemBrowser{Getenv: env(map[string]string{"BROWSER": "echo opening"}), Out: &out}
	if err := b.Open("http://127.0.0.1:1/"); err != nil || out.String() != "opening http://127.0.0.1:1/\n" {
		t.Errorf("$BROWSER run: %v, output %q", err, out.String())
	}
}
