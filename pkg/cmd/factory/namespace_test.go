package factory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/easyai-dev/easyai/pkg/exit"
)

const kubeconfigWithNamespace = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u, namespace: %s}}]
current-context: x
`

func configFlags(t *testing.T, contextNamespace, namespace string) *genericclioptions.ConfigFlags {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(strings.Replace(kubeconfigWithNamespace, "%s", contextNamespace, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig = &path
	if namespace != "" {
		flags.Namespace = &namespace
	}
	return flags
}

// TestNamespaceIsValidated: -n or a context's namespace that is no
// namespace name is exit 2 naming where it came from, before any request.
func TestNamespaceIsValidated(t *testing.T) {
	ns, explicit, err := ResolveNamespace(configFlags(t, "team-a", ""))
	if err != nil || ns != "team-a" || explicit {
		t.Errorf("the context's namespace: %q %v %v", ns, explicit, err)
	}
	ns, explicit, err = ResolveNamespace(configFlags(t, "team-a", "team-b"))
	if err != nil || ns != "team-b" || !explicit {
		t.Errorf("-n team-b: %q %v %v", ns, explicit, err)
	}
	for _, tc := range []struct {
		contextNS, flagNS, want string
	}{
		{"team-a", "../x", `-n "../x": not a namespace name`},
		{"team-a", "Bad_NS", `-n "Bad_NS": not a namespace name`},
		{"team-a", "a/b", `-n "a/b"`},
		{"Bad_NS", "", `the kubeconfig context's namespace "Bad_NS"`},
	} {
		_, _, err := ResolveNamespace(configFlags(t, tc.contextNS, tc.flagNS))
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("context %q, -n %q: error %v (exit %d), want exit 2 with %q", tc.contextNS, tc.flagNS, err, exit.Code(err), tc.want)
		}
	}
}

// TestKubeconfigIsBounded: --kubeconfig /dev/zero (or such a file in
// $KUBECONFIG) fails at once, exit 2, instead of being read without end.
func TestKubeconfigIsBounded(t *testing.T) {
	zero := "/dev/zero"
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig = &zero
	start := time.Now()
	_, _, err := ResolveNamespace(flags)
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--kubeconfig /dev/zero: not a regular file") {
		t.Errorf("--kubeconfig /dev/zero: error %v (exit %d)", err, exit.Code(err))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}

	good := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(good, []byte(strings.Replace(kubeconfigWithNamespace, "%s", "team-a", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", good+string(filepath.ListSeparator)+"/dev/zero")
	err = CheckKubeconfig(genericclioptions.NewConfigFlags(true))
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "$KUBECONFIG /dev/zero") {
		t.Errorf("$KUBECONFIG with /dev/zero: %v", err)
	}
	t.Setenv("KUBECONFIG", good+string(filepath.ListSeparator)+filepath.Join(t.TempDir(), "missing"))
	if err := CheckKubeconfig(genericclioptions.NewConfigFlags(true)); err != nil {
		t.Errorf("a missing file in $KUBECONFIG is client-go's business: %v", err)
	}
}
