package factory_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmd/factory"
	"github.com/easyai-dev/easyai/pkg/cmd/root"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
)

// twoContexts writes a kubeconfig of contexts west (namespace team-b) and
// east (team-a, the current one), on servers west and east.
func twoContexts(t *testing.T, west, east string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	config := `apiVersion: v1
kind: Config
clusters:
- name: west
  cluster: {server: "` + west + `", insecure-skip-tls-verify: true}
- name: east
  cluster: {server: "` + east + `", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: t}
contexts:
- name: west
  context: {cluster: west, user: u, namespace: team-b}
- name: east
  context: {cluster: east, user: u, namespace: team-a}
current-context: east
`
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A context's platform is on that context's cluster and namespace, or -n's.
func TestPlatformFor(t *testing.T) {
	f := factory.New()
	*f.ConfigFlags.KubeConfig = twoContexts(t, "https://127.0.0.1:1", "https://127.0.0.1:2")
	names, err := f.Contexts()
	if err != nil || !reflect.DeepEqual(names, []string{"east", "west"}) {
		t.Fatalf("contexts %q, %v", names, err)
	}
	for _, tt := range []struct{ context, namespace, where string }{
		{"west", "", "namespace team-b"},
		{"east", "", "namespace team-a"},
		{"west", "team-c", "namespace team-c"},
	} {
		*f.ConfigFlags.Namespace = tt.namespace
		p, err := f.PlatformFor(tt.context, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Where(); got != tt.where {
			t.Errorf("%s -n %q: %s, want %s", tt.context, tt.namespace, got, tt.where)
		}
	}
	// The run's own context is still the current one.
	*f.ConfigFlags.Namespace = ""
	if ns, _, err := f.Namespace(); err != nil || ns != "team-a" {
		t.Errorf("namespace of the run: %s, %v", ns, err)
	}
}

// Through the real command tree: each context that cannot be listed is one
// line on stderr, naming it; none listed is exit 1; a context the
// kubeconfig has not is exit 2.
func TestListContextsThatFail(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	config := twoContexts(t, closed.URL, web.URL)
	runList := func(args ...string) (stdout, stderr string, err error) {
		f := factory.New()
		io, _, out, errOut := iostreams.Test()
		f.IOStreams = io
		cmd := root.NewCmdRoot(f)
		cmd.SetArgs(append([]string{"--kubeconfig", config, "list"}, args...))
		err = cmd.ExecuteContext(context.Background())
		return out.String(), errOut.String(), err
	}
	for _, args := range [][]string{{"--all-contexts"}, {"--context", "west,east"}} {
		stdout, stderr, err := runList(args...)
		if exit.Code(err) != exit.Error || err.Error() != "no context could be listed (east, west)" {
			t.Errorf("%v: %v (exit %d)", args, err, exit.Code(err))
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if stdout != "" || len(lines) != 2 ||
			!strings.HasPrefix(lines[0], `Warning: context "east": the server at `+web.URL+" is not a Kubernetes API server") ||
			!strings.HasPrefix(lines[1], `Warning: context "west": `) || !strings.Contains(lines[1], "connection refused") {
			t.Errorf("%v: stdout %q\nstderr %q", args, stdout, stderr)
		}
	}
	_, _, err := runList("--context", "east,north")
	if exit.Code(err) != exit.Usage || err.Error() != `--context "north": the kubeconfig has no such context (contexts: east, west)` {
		t.Errorf("an unknown context: %v (exit %d)", err, exit.Code(err))
	}
	_, _, err = runList("--all-contexts", "--cluster", "east")
	if exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), `--all-contexts and --cluster "east": `) {
		t.Errorf("--cluster: %v (exit %d)", err, exit.Code(err))
	}
}

// Listing several contexts sends each server the credentials of its own
// context only; a flag that gives credentials for one cluster is refused
// with several contexts, before any request, without repeating its value.
func TestListContextsSendsEachServerItsOwnCredentials(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]string{}
	server := func(name string) *httptest.Server {
		return httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			if auth := r.Header.Get("Authorization"); !slices.Contains(seen[name], auth) {
				seen[name] = append(seen[name], auth)
			}
			w.Header().Set("Content-Type", "application/json")
			if r.URL.Path == "/version" {
				_, _ = w.Write([]byte(`{"major":"1","minor":"34","gitVersion":"v1.34.2"}`))
				return
			}
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403}`))
		}))
	}
	west, east := server("west"), server("east")
	defer west.Close()
	defer east.Close()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	config := `apiVersion: v1
kind: Config
clusters:
- {name: west, cluster: {server: "` + west.URL + `", insecure-skip-tls-verify: true}}
- {name: east, cluster: {server: "` + east.URL + `", insecure-skip-tls-verify: true}}
users:
- {name: w, user: {token: west-token}}
- {name: e, user: {token: east-token}}
contexts:
- {name: west, context: {cluster: west, user: w, namespace: team-b}}
- {name: east, context: {cluster: east, user: e, namespace: team-a}}
current-context: east
`
	if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	runList := func(args ...string) error {
		f := factory.New()
		io, _, _, _ := iostreams.Test()
		f.IOStreams = io
		cmd := root.NewCmdRoot(f)
		cmd.SetArgs(append([]string{"--kubeconfig", path, "list"}, args...))
		return cmd.ExecuteContext(context.Background())
	}
	_ = runList("--all-contexts")
	want := map[string][]string{"west": {"Bearer west-token"}, "east": {"Bearer east-token"}}
	if !reflect.DeepEqual(seen, want) {
		t.Errorf("the servers saw %q, want %q", seen, want)
	}

	clear(seen)
	for _, tt := range []struct {
		args []string
		flag string
	}{
		{[]string{"--token", "stolen-token"}, "--token"},
		{[]string{"--client-certificate", "c.crt", "--client-key", "c.key"}, "--client-certificate"},
		{[]string{"--certificate-authority", "ca.crt"}, "--certificate-authority"},
		{[]string{"--insecure-skip-tls-verify"}, "--insecure-skip-tls-verify"},
		{[]string{"--tls-server-name", "api"}, "--tls-server-name"},
	} {
		for _, many := range [][]string{{"--all-contexts"}, {"--context", "west,east"}} {
			err := runList(append(many, tt.args...)...)
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), " and "+tt.flag+": ") || strings.Contains(err.Error(), "stolen") {
				t.Errorf("%v %v: %v (exit %d), want exit 2 naming %s", many, tt.args, err, exit.Code(err), tt.flag)
			}
		}
	}
	if len(seen) != 0 {
		t.Errorf("refused runs still reached the servers: %q", seen)
	}
	// One context may take them.
	_ = runList("--context", "west", "--token", "for-west")
	if got := seen["west"]; !reflect.DeepEqual(got, []string{"Bearer for-west"}) || len(seen["east"]) != 0 {
		t.Errorf("one context with --token: the servers saw %q", seen)
	}
}
