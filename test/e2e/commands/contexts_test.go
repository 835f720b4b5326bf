//go:build e2e

package commands

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// TestListAcrossContexts lists the jobs of a kubeconfig of three contexts:
// east is the local cluster as its admin, west the same cluster as alice
// (the example Role in her namespace), dead a server that is not there.
// Both live contexts hold a job named mnist, each in its namespace.
func TestListAcrossContexts(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	nsEast, nsWest := c.Namespace(t), c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", nsWest)
	kubeconfig := threeContexts(t, c.Kubeconfig, c.UserKubeconfig(t, "alice", nsWest), nsEast)
	env := []string{"KUBECONFIG=" + kubeconfig}
	run := func(args ...string) easyai.Result { t.Helper(); return easyai.RunWith(t, env, args...) }
	createTFJob(t, kf, nsEast, "mnist", 1, 0, "bob", "")
	createTFJob(t, kf, nsWest, "mnist", 2, 0, "alice", "lr-sweep")

	// Every context: CONTEXT and NAMESPACE first, by context; the dead one
	// is one line on stderr, and the others print (exit 0).
	res := run("list", "--all-contexts").MustSucceed(t)
	lines := strings.Split(strings.TrimSuffix(res.Stdout, "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "east\t"+nsEast+"\tmnist\ttf\t") || !strings.HasSuffix(lines[0], "\tbob") ||
		!strings.HasPrefix(lines[1], "west\t"+nsWest+"\tmnist\ttf\t") || !strings.HasSuffix(lines[1], "\talice") {
		t.Errorf("list --all-contexts: stdout %q", res.Stdout)
	}
	if !oneLineAbout(res.Stderr, "dead", "connection refused") {
		t.Errorf("list --all-contexts: stderr %q, want one line about context dead", res.Stderr)
	}

	// Those named, as JSON: each item says its context.
	res = run("list", "--context", "west,east", "-o", "json").MustSucceed(t)
	var doc struct {
		Kind  string
		Items []struct{ Context, Name, Namespace, JobKind string }
	}
	if err := json.Unmarshal([]byte(res.Stdout), &doc); err != nil {
		t.Fatalf("list -o json: %v\n%s", err, res.Stdout)
	}
	if doc.Kind != "JobList" || len(doc.Items) != 2 || doc.Items[0].Context != "east" || doc.Items[0].Namespace != nsEast ||
		doc.Items[1].Context != "west" || doc.Items[1].Namespace != nsWest || doc.Items[1].Name != "mnist" || doc.Items[1].JobKind != "tf" || res.Stderr != "" {
		t.Errorf("list --context west,east -o json: %+v, stderr %q", doc, res.Stderr)
	}

	// With the other flags: -o name, --experiment, -o wide, --kind, -n for all.
	if res := run("list", "--context", "west,dead", "-o", "name").MustSucceed(t); res.Stdout != "west/tf/mnist\n" || !oneLineAbout(res.Stderr, "dead", "connection refused") {
		t.Errorf("list --context west,dead -o name: stdout %q, stderr %q", res.Stdout, res.Stderr)
	}
	if res := run("list", "--all-contexts", "--experiment", "lr-sweep", "-o", "wide").MustSucceed(t); !strings.HasPrefix(res.Stdout, "west\t"+nsWest+"\tmnist\t") ||
		strings.Count(res.Stdout, "\n") != 1 || !strings.Contains(res.Stdout, "\tlr-sweep\t") {
		t.Errorf("list --all-contexts --experiment lr-sweep -o wide: %q", res.Stdout)
	}
	if res := run("list", "--context", "east,west", "-n", nsWest, "--kind", "tf").MustSucceed(t); !strings.HasPrefix(res.Stdout, "east\tmnist\ttf\t") ||
		!strings.Contains(res.Stdout, "\nwest\tmnist\ttf\t") || strings.Count(res.Stdout, "\n") != 2 {
		t.Errorf("list --context east,west -n %s: %q", nsWest, res.Stdout)
	}

	// Forbidden in one context (alice may not list across namespaces): one
	// line, the other context lists.
	res = run("list", "--context", "east,west", "-A", "-o", "name").MustSucceed(t)
	if !strings.Contains(res.Stdout, "east/tf/mnist\n") || strings.Contains(res.Stdout, "west/") ||
		!oneLineAbout(res.Stderr, "west", "you may not list jobs across namespaces") {
		t.Errorf("list -A: stdout %q, stderr %q", res.Stdout, res.Stderr)
	}

	// A credential for one cluster is never sent to every context's server:
	// exit 2, naming the flag, not its value.
	for _, many := range [][]string{{"--all-contexts"}, {"--context", "east,west"}} {
		res := run(append([]string{"list", "--token", "one-clusters-token"}, many...)...)
		if res.Code != 2 || !strings.Contains(res.Stderr, "--token") || strings.Contains(res.Stderr, "one-clusters-token") {
			t.Errorf("list %v --token: exit %d, stderr %q; want 2 naming --token", many, res.Code, res.Stderr)
		}
	}

	// Only dead contexts: exit 1.
	if res := run("list", "--context", "dead"); res.Code != 1 || !strings.Contains(res.Stderr, "connection refused") {
		t.Errorf("list --context dead: exit %d, stderr %q", res.Code, res.Stderr)
	}
	if res := run("list", "--context", "dead,"); res.Code != 1 || !strings.Contains(res.Stderr, "Error: no context could be listed (dead)\n") {
		t.Errorf("list --context dead,: exit %d, stderr %q", res.Code, res.Stderr)
	}

	// A name in two contexts: get and logs take one, with --context.
	if res := run("get", "mnist", "--context", "west").MustSucceed(t); !strings.Contains(res.Stdout, "Namespace:  "+nsWest+"\n") {
		t.Errorf("get mnist --context west: %q", res.Stdout)
	}

	// Flags that name one place: exit 2, naming both.
	if res := run("list", "--all-contexts", "--cluster", "prod"); res.Code != 2 || !strings.Contains(res.Stderr, `--all-contexts and --cluster "prod"`) {
		t.Errorf("list --all-contexts --cluster prod: exit %d, stderr %q", res.Code, res.Stderr)
	}
	if res := run("list", "--context", "east,west", "--id", "train-42"); res.Code != 2 || !strings.Contains(res.Stderr, `--context "east,west" and --id`) {
		t.Errorf("list --context east,west --id: exit %d, stderr %q", res.Code, res.Stderr)
	}
	if res := run("list", "--context", "east,north"); res.Code != 2 || !strings.Contains(res.Stderr, `--context "north": the kubeconfig has no such context (contexts: dead, east, west)`) {
		t.Errorf("list --context east,north: exit %d, stderr %q", res.Code, res.Stderr)
	}
}

// threeContexts writes a kubeconfig of contexts east (the admin's, in
// namespace nsEast), west (alice's kubeconfig) and dead (nothing listens
// at its server).
func threeContexts(t *testing.T, admin, alice, nsEast string) string {
	t.Helper()
	a, err := clientcmd.LoadFromFile(admin)
	if err != nil {
		t.Fatal(err)
	}
	u, err := clientcmd.LoadFromFile(alice)
	if err != nil {
		t.Fatal(err)
	}
	adminCtx, aliceCtx := a.Contexts[a.CurrentContext], u.Contexts[u.CurrentContext]
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["local"] = a.Clusters[adminCtx.Cluster]
	cfg.Clusters["local-as-alice"] = u.Clusters[aliceCtx.Cluster]
	cfg.Clusters["nowhere"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1", InsecureSkipTLSVerify: true}
	cfg.AuthInfos["admin"] = a.AuthInfos[adminCtx.AuthInfo]
	cfg.AuthInfos["alice"] = u.AuthInfos[aliceCtx.AuthInfo]
	cfg.Contexts["east"] = &clientcmdapi.Context{Cluster: "local", AuthInfo: "admin", Namespace: nsEast}
	cfg.Contexts["west"] = &clientcmdapi.Context{Cluster: "local-as-alice", AuthInfo: "alice", Namespace: aliceCtx.Namespace}
	cfg.Contexts["dead"] = &clientcmdapi.Context{Cluster: "nowhere", AuthInfo: "alice", Namespace: "default"}
	cfg.CurrentContext = "east"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// oneLineAbout reports whether stderr is one line, a warning about the
// context that says what.
func oneLineAbout(stderr, context, what string) bool {
	return strings.Count(stderr, "\n") == 1 && strings.HasPrefix(stderr, `Warning: context "`+context+`": `) && strings.Contains(stderr, what)
}
