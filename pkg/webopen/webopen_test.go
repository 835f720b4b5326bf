package webopen

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

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
	// pages are the files opened, with what each held when opened.
	pages map[string]string
}

func (b *fakeBrowser) Available() (bool, string) { return b.available, "no display" }
func (b *fakeBrowser) Open(url string) error     { b.opened = append(b.opened, url); return nil }
func (b *fakeBrowser) OpenFile(path string) error {
	b.opened = append(b.opened, path)
	data, err := os.ReadFile(path)
	if b.pages == nil {
		b.pages = map[string]string{}
	}
	b.pages[path] = string(data)
	return err
}

const jobUID = types.UID("0b7a5e1c-mnist")

// tokenSecret is the Secret of mnist's Jupyter token, owned by the job.
func tokenSecret() *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "mnist-jupyter", Namespace: "team-a", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "kubeflow.org/v1", Kind: "PyTorchJob", Name: "mnist", UID: jobUID,
		}}},
		Data: map[string][]byte{jobmodel.TokenSecretKey: []byte("s3cret")},
	}
}

// readyWith runs the step after the port is forwarded, with a Jupyter whose
// token is in a Secret.
func readyWith(t *testing.T, o *Request, browser Browser) (stdout, stderr string) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	o.IO, o.Browser, o.Namespace, o.JobArg, o.Address = io, browser, "team-a", "mnist", "127.0.0.1"
	if o.RedirectDir == "" {
		o.RedirectDir = t.TempDir()
	}
	o.Kube = kubefake.NewClientset(tokenSecret())
	target := remote.Target{Task: "master-0", Port: 8888, Path: "/lab", TokenSecret: "mnist-jupyter"}
	token, err := o.token(context.Background(), target, "mnist", jobUID)
	if err != nil {
		t.Fatal(err)
	}
	o.ready(jobmodel.Replica{Task: "master-0"}, target, 43210, token)
	return out.String(), errOut.String()
}

func TestTheTokenGoesToTheBrowserOnlyThroughAPrivatePage(t *testing.T) {
	b := &fakeBrowser{available: true}
	o := &Request{}
	stdout, stderr := readyWith(t, o, b)
	if stdout != "http://127.0.0.1:43210/lab\n" {
		t.Errorf("stdout %q", stdout)
	}
	if len(b.opened) != 1 || strings.Contains(b.opened[0], "s3cret") || !strings.HasPrefix(b.opened[0], o.RedirectDir) {
		t.Fatalf("the browser opened %q, want a page in %s", b.opened, o.RedirectDir)
	}
	page := b.opened[0]
	if !strings.Contains(b.pages[page], `url=http://127.0.0.1:43210/lab?token=s3cret"`) ||
		!strings.Contains(b.pages[page], `location.replace("http://127.0.0.1:43210/lab?token=s3cret")`) {
		t.Errorf("the page does not send the browser on with the token:\n%s", b.pages[page])
	}
	for path, want := range map[string]os.FileMode{page: 0o600, filepath.Dir(page): 0o700 | os.ModeDir} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != want {
			t.Errorf("%s: %v, mode %v, want %v", path, err, fi.Mode(), want)
		}
	}
	if strings.Contains(stderr, "s3cret") || !strings.Contains(stderr, "logged in with the token of Secret mnist-jupyter") {
		t.Errorf("stderr %q", stderr)
	}
	o.removeRedirect()
	if _, err := os.Stat(filepath.Dir(page)); !os.IsNotExist(err) {
		t.Errorf("the page's directory is still there after open ended: %v", err)
	}
}

func TestAURLWithoutATokenIsOpenedAsItIs(t *testing.T) {
	b := &fakeBrowser{available: true}
	io, _, _, _ := iostreams.Test()
	o := &Request{IO: io, Browser: b, Address: "127.0.0.1", RedirectDir: t.TempDir()}
	o.ready(jobmodel.Replica{Task: "worker-0"}, remote.Target{Task: "worker-0", Port: 6006, Path: "/"}, 43210, "")
	if len(b.opened) != 1 || b.opened[0] != "http://127.0.0.1:43210/" {
		t.Errorf("the browser opened %q", b.opened)
	}
}

// TestTheBrowsersCommandLineNeverHoldsTheToken runs a $BROWSER that records
// its arguments (what ps shows other users) and loads the page it is given.
func TestTheBrowsersCommandLineNeverHoldsTheToken(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake browser is a shell script")
	}
	dir := t.TempDir()
	argv, loaded := filepath.Join(dir, "argv"), filepath.Join(dir, "loaded")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho \"$@\" >> "+argv+"\ncat \"${1#file://}\" > "+loaded+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"BROWSER": script}
	var out bytes.Buffer
	o := &Request{}
	_, stderr := readyWith(t, o, SystemBrowser{Getenv: func(k string) string { return env[k] }, Out: &out})
	args, err := os.ReadFile(argv)
	if err != nil {
		t.Fatalf("the browser did not run: %v; stderr %q, its output %q", err, stderr, out.String())
	}
	if strings.Contains(string(args), "s3cret") || !strings.HasPrefix(string(args), "file://"+o.RedirectDir+"/") {
		t.Errorf("the browser's command line is %q", args)
	}
	page, _ := os.ReadFile(loaded)
	if !strings.Contains(string(page), "http://127.0.0.1:43210/lab?token=s3cret") {
		t.Errorf("the browser loaded %q", page)
	}
	o.removeRedirect()
}

func TestATokenSecretTheJobDoesNotOwnIsRefused(t *testing.T) {
	owned := tokenSecret()
	notOwned := tokenSecret()
	notOwned.OwnerReferences = nil
	otherJob := tokenSecret()
	otherJob.OwnerReferences[0].UID = "another-job"
	saToken := tokenSecret()
	saToken.Type = corev1.SecretTypeServiceAccountToken
	for _, tt := range []struct {
		name   string
		secret *corev1.Secret
		want   string
	}{
		{"an Opaque Secret owned by the job", owned, ""},
		{"a Secret without owner", notOwned, "is not owned by the job"},
		{"a Secret of another job", otherJob, "is not owned by the job"},
		{"a service account token, even owned by the job", saToken, "is a service account token"},
	} {
		var errOut bytes.Buffer
		o := &Request{IO: &iostreams.IOStreams{ErrOut: &errOut}, Kube: kubefake.NewClientset(tt.secret)}
		o.Namespace = "team-a"
		token, err := o.token(context.Background(), remote.Target{TokenSecret: "mnist-jupyter"}, "mnist", jobUID)
		if tt.want == "" {
			if err != nil || token != "s3cret" {
				t.Errorf("%s: token %q, %v", tt.name, token, err)
			}
			continue
		}
		if err == nil || token != "" {
			t.Errorf("%s: token %q, no error", tt.name, token)
			continue
		}
		msg := err.Error() + exit.Hint(err) + errOut.String()
		if exit.Code(err) != exit.Error || !strings.Contains(err.Error(), "Secret mnist-jupyter, named by the easyai.io/endpoints annotation of job mnist,") ||
			!strings.Contains(err.Error(), tt.want) || strings.Contains(msg, "s3cret") {
			t.Errorf("%s: exit %d, %q (hint %q)", tt.name, exit.Code(err), err, exit.Hint(err))
		}
	}
}

func TestWithoutABrowserTheUserIsToldWhereTheTokenIs(t *testing.T) {
	for _, tt := range []struct {
		name    string
		o       *Request
		browser *fakeBrowser
		why     string
	}{
		{"--no-browser", &Request{NoBrowser: true}, &fakeBrowser{available: true}, ""},
		{"no display", &Request{}, &fakeBrowser{available: false}, "Not opening a browser: no display"},
	} {
		stdout, stderr := readyWith(t, tt.o, tt.browser)
		if len(tt.browser.opened) != 0 || strings.Contains(stdout+stderr, "s3cret") {
			t.Errorf("%s: opened %q, stdout %q, stderr %q", tt.name, tt.browser.opened, stdout, stderr)
		}
		if !strings.Contains(stderr, "The login token is in Secret mnist-jupyter (key token): --show-token") || !strings.Contains(stderr, tt.why) {
			t.Errorf("%s: stderr %q", tt.name, stderr)
		}
	}
	stdout, _ := readyWith(t, &Request{NoBrowser: true, ShowToken: true}, &fakeBrowser{})
	if stdout != "http://127.0.0.1:43210/lab?token=s3cret\n" {
		t.Errorf("--show-token: stdout %q", stdout)
	}
}

func TestAMissingTokenSecretIsAWarning(t *testing.T) {
	var errOut bytes.Buffer
	o := &Request{IO: &iostreams.IOStreams{ErrOut: &errOut}, Kube: kubefake.NewClientset()}
	o.Namespace = "team-a"
	if tok, _ := o.token(context.Background(), remote.Target{TokenSecret: "gone"}, "mnist", "uid-1"); tok != "" || !strings.Contains(errOut.String(), "cannot read the login token from Secret gone") {
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

// code-server logs in by a form: the page posts the password to its login
// URL; neither stdout nor the browser's command line holds it.
func TestAPasswordIsPostedToTheLoginForm(t *testing.T) {
	b := &fakeBrowser{available: true}
	io, _, out, errOut := iostreams.Test()
	o := &Request{IO: io, Browser: b, Address: "127.0.0.1", RedirectDir: t.TempDir()}
	target := remote.Target{Task: "master-0", Port: 13337, Path: "/", TokenSecret: "mnist-code-server", Login: jobmodel.LoginPassword}
	o.ready(jobmodel.Replica{Task: "master-0"}, target, 43210, `pa"ss<w>`)
	defer o.removeRedirect()
	if out.String() != "http://127.0.0.1:43210/\n" || strings.Contains(errOut.String(), "pa") {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
	if len(b.opened) != 1 || strings.Contains(b.opened[0], "pa") {
		t.Fatalf("opened %q", b.opened)
	}
	page := b.pages[b.opened[0]]
	for _, want := range []string{`method="POST" action="http://127.0.0.1:43210/login"`, `name="password" value="pa&#34;ss&lt;w&gt;"`, `document.forms[0].submit()`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}

	io, _, out, errOut = iostreams.Test()
	o = &Request{IO: io, Browser: &fakeBrowser{}, Address: "127.0.0.1", NoBrowser: true}
	o.ready(jobmodel.Replica{Task: "master-0"}, target, 43210, "pw")
	if out.String() != "http://127.0.0.1:43210/\n" || !strings.Contains(errOut.String(), "The password is in Secret mnist-code-server") {
		t.Errorf("without a browser: stdout %q, stderr %q", out.String(), errOut.String())
	}
	io, _, out, _ = iostreams.Test()
	o = &Request{IO: io, Browser: &fakeBrowser{}, Address: "127.0.0.1", NoBrowser: true, ShowToken: true}
	o.ready(jobmodel.Replica{Task: "master-0"}, target, 43210, "pw")
	if out.String() != "http://127.0.0.1:43210/\npassword: pw\n" {
		t.Errorf("--show-token: stdout %q", out.String())
	}
}

func TestLoginURL(t *testing.T) {
	for path, want := range map[string]string{"/": "http://127.0.0.1:1/login", "": "http://127.0.0.1:1/login", "/code": "http://127.0.0.1:1/code/login"} {
		if got := LoginURL("127.0.0.1", 1, path); got != want {
			t.Errorf("LoginURL(%q) = %s, want %s", path, got, want)
		}
	}
}
