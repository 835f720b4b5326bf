package factory_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/cmd/factory"
	"github.com/easyai-dev/easyai/pkg/cmd/root"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// kubeconfig writes a kubeconfig naming server (TLS not verified).
func kubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	config := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: u
  user:
    token: t
contexts:
- name: c
  context: {cluster: c, user: u, namespace: team-a}
current-context: c
`, server)
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// run runs easyai's real command tree, on the real factory, against the
// kubeconfig; it returns the error Main would map to an exit code.
func run(t *testing.T, config string, args ...string) (stdout string, err error) {
	t.Helper()
	f := factory.New()
	io, _, out, _ := iostreams.Test()
	f.IOStreams = io
	cmd := root.NewCmdRoot(f)
	cmd.SetArgs(append([]string{"--kubeconfig", config}, args...))
	err = cmd.ExecuteContext(context.Background())
	return out.String(), err
}

// A server that completes TLS and never answers: list fails after
// --request-timeout (exit 1, not wait's exit 5), with a hint.
func TestSilentServerTimesOut(t *testing.T) {
	// The handlers answer nothing until the test ends: one that returned
	// when its request was given up would answer an empty 200 to it, which
	// a request still waiting on the same connection could read (seen once
	// under -race in a full suite).
	release := make(chan struct{})
	server := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
	}))
	defer server.Close()
	defer close(release)
	config := kubeconfig(t, server.URL)
	start := time.Now()
	_, err := run(t, config, "list", "--request-timeout", "300ms")
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("list took %s", elapsed)
	}
	if err == nil || exit.Code(err) != exit.Error || !strings.Contains(err.Error(), "did not answer GET /apis/") ||
		!strings.Contains(err.Error(), "within 300ms") || !strings.Contains(exit.Hint(err), "--request-timeout") {
		t.Errorf("list: %v (exit %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}
	_, err = run(t, config, "get", "x", "--request-timeout", "300ms")
	if err == nil || exit.Code(err) != exit.Error || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("get: %v (exit %d)", err, exit.Code(err))
	}
}

// Without --request-timeout every request that is not a stream is bounded.
func TestRequestTimeoutDefault(t *testing.T) {
	f := factory.New()
	if f.ConfigFlags.Timeout == nil || *f.ConfigFlags.Timeout != kube.DefaultRequestTimeout.String() {
		t.Fatalf("default --request-timeout %v, want %s", f.ConfigFlags.Timeout, kube.DefaultRequestTimeout)
	}
	*f.ConfigFlags.KubeConfig = kubeconfig(t, "https://127.0.0.1:1")
	cfg, err := f.RESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	// The limit is per request, not the HTTP client's (which would cut streams).
	if cfg.Timeout != 0 || cfg.WrapTransport == nil {
		t.Errorf("rest config timeout %s, wrapped %v", cfg.Timeout, cfg.WrapTransport != nil)
	}
}

// A plain web server is named as such: get is not "not found" (exit 3),
// list is not "the training-operator is missing".
func TestPlainWebServer(t *testing.T) {
	server := httptest.NewServer(http.NotFoundHandler())
	defer server.Close()
	config := kubeconfig(t, server.URL)
	want := "the server at " + server.URL + " is not a Kubernetes API server"
	for _, args := range [][]string{{"get", "x"}, {"list"}, {"delete", "x", "--yes"}} {
		_, err := run(t, config, args...)
		if err == nil || exit.Code(err) != exit.Error || !strings.HasPrefix(err.Error(), want) || exit.Hint(err) == "" {
			t.Errorf("%v: %v (exit %d)", args, err, exit.Code(err))
		}
	}
}

// A dead cluster is one line for the commands that find a job, naming the
// same kind on every run.
func TestDeadClusterIsOneLine(t *testing.T) {
	server := httptest.NewServer(http.NotFoundHandler())
	server.Close()
	config := kubeconfig(t, server.URL)
	for _, cmd := range [][]string{{"get", "x"}, {"logs", "x"}, {"delete", "x", "--yes"}, {"wait", "x"}, {"exec", "x", "--", "true"}} {
		var first string
		for range 3 {
			_, err := run(t, config, cmd...)
			if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "connection refused") {
				t.Fatalf("%v: %q, want one line saying the connection was refused", cmd, err)
			}
			if first == "" {
				first = err.Error()
			} else if err.Error() != first {
				t.Errorf("%v: %q, then %q", cmd, first, err)
			}
		}
	}
}

// The configuration is read once per run: an unknown key in it is one
// warning on stderr, however many parts of the command ask for it.
func TestConfigurationWarnsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("image: tf:1\nimgae: tf:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := factory.New()
	io, _, out, errOut := iostreams.Test()
	f.IOStreams = io
	f.ConfigPath = path
	for range 2 {
		if c, err := f.Config(); err != nil || c.Image != "tf:1" {
			t.Fatalf("%+v %v", c, err)
		}
	}
	want := "Warning: --config " + path + ": line 2: unknown key \"imgae\" is ignored (did you mean \"image\"?)\n"
	if errOut.String() != want || out.Len() != 0 {
		t.Errorf("stderr %q, stdout %q; want stderr %q", errOut, out, want)
	}
}
