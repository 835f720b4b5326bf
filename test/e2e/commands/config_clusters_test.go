//go:build e2e

package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// TestConfigClusters: set-cluster, get-clusters, set cluster and
// delete-cluster on a file of the user's, keeping its comments; the secret
// key, from the environment or a credentials file, shows nowhere; a
// credentials file others may read is refused as ssh refuses a key.
func TestConfigClusters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(path, []byte("# the vision team's settings\nqueue: research # shared\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const secret = "sk-NEVER-SHOWN-0123"
	creds := filepath.Join(dir, "credentials.yaml")
	if err := os.WriteFile(creds, []byte("clusters:\n  prod:\n    secret-id: AKID1\n    secret-key: "+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"EASYAI_CLUSTER=", "EASYAI_TIMAKER_SECRET_ID=", "EASYAI_TIMAKER_SECRET_KEY="}
	cfg := func(args ...string) easyai.Result {
		return easyai.RunWith(t, env, append([]string{"--config", path, "config"}, args...)...)
	}
	r := cfg("set-cluster", "prod", "--type", "timaker", "--addr", "https://ti.example.com", "--host", "ti.example.com",
		"--project-id", "3", "--uin", "100012345", "--credentials-file", creds).MustSucceed(t)
	if want := "cluster prod added to " + path + "\nTo make it the default: easyai config set cluster prod\n"; r.Stderr != want {
		t.Errorf("set-cluster: stderr %q, want %q", r.Stderr, want)
	}
	cfg("set-cluster", "staging", "--type", "timaker", "--addr", "http://10.0.0.1:8080", "--project-id", "1", "--uin", "42").MustSucceed(t)
	cfg("set-cluster", "staging", "--uin", "43").MustSucceed(t)
	cfg("set", "cluster", "prod").MustSucceed(t)

	if r := cfg("get-clusters").MustSucceed(t); r.Stdout != "prod\ttimaker\thttps://ti.example.com\t3\t100012345\nstaging\ttimaker\thttp://10.0.0.1:8080\t1\t43\n" {
		t.Errorf("get-clusters: %q", r.Stdout)
	}
	var list struct {
		Kind, Default string
		Items         []map[string]any
	}
	r = cfg("get-clusters", "-o", "json").MustSucceed(t)
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil || list.Kind != "ClusterList" || list.Default != "prod" || len(list.Items) != 2 || list.Items[0]["host"] != "ti.example.com" {
		t.Errorf("get-clusters -o json: %v\n%s", err, r.Stdout)
	}
	if r := cfg("get", "cluster").MustSucceed(t); r.Stdout != "prod\n" {
		t.Errorf("get cluster: %q", r.Stdout)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "# the vision team's settings\nqueue: research # shared\nclusters:\n  prod:\n") {
		t.Errorf("the file:\n%s", data)
	}

	// The secret key shows in no output, with it in the environment too.
	withSecret := []string{"EASYAI_TIMAKER_SECRET_ID=AKID2", "EASYAI_TIMAKER_SECRET_KEY=" + secret}
	for _, args := range [][]string{{"view"}, {"view", "-o", "json"}, {"get-clusters", "-o", "yaml"}, {"set-cluster", "prod", "--uin", "100012345"}} {
		r := easyai.RunWith(t, withSecret, append([]string{"--config", path, "config"}, args...)...).MustSucceed(t)
		if strings.Contains(r.Stdout+r.Stderr, "NEVER-SHOWN") {
			t.Errorf("config %v shows the secret key:\n%s%s", args, r.Stdout, r.Stderr)
		}
	}

	// A credentials file others may read is refused, with the fix.
	if err := os.Chmod(creds, 0o644); err != nil {
		t.Fatal(err)
	}
	r = cfg("set-cluster", "prod", "--uin", "100012345").MustSucceed(t)
	if want := "Warning: credentials file " + creds + " is readable by others (mode 0644): chmod 600 " + creds + "\n"; !strings.Contains(r.Stderr, want) {
		t.Errorf("stderr %q lacks %q", r.Stderr, want)
	}

	// Mistakes: exit 2 naming the flag, the key or the variable.
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"set-cluster", "dev", "--addr", "https://dev.example.com"}, "a new cluster needs --type, --addr, --project-id, --uin (missing: --type, --project-id, --uin)"},
		{nil, []string{"set-cluster", "dev", "--addr", "ti.example.com"}, `--addr "ti.example.com": want the gateway's URL`},
		{nil, []string{"set-cluster", "Dev", "--uin", "1"}, `cluster "Dev": not a cluster name`},
		{nil, []string{"set-cluster", "prod", "--secret-key", "x"}, "unknown flag: --secret-key"},
		{nil, []string{"set", "cluster", "dev"}, `cluster "dev": no such cluster in --config ` + path},
		{[]string{"EASYAI_CLUSTER=dev"}, []string{"view"}, `EASYAI_CLUSTER "dev": the clusters configured in ` + path + " are prod, staging"},
	} {
		r := easyai.RunWith(t, append(env[:len(env):len(env)], tc.env...), append([]string{"--config", path, "config"}, tc.args...)...)
		if r.Code != 2 || r.Stdout != "" || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("%v config %v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", tc.env, tc.args, r.Code, r.Stdout, r.Stderr, tc.want)
		}
	}

	r = cfg("delete-cluster", "prod").MustSucceed(t)
	if want := "cluster prod removed from " + path + "\nprod was the default cluster: the cluster setting is removed too, and commands use the kubeconfig's context\n"; r.Stderr != want {
		t.Errorf("delete-cluster: stderr %q, want %q", r.Stderr, want)
	}
	if r := cfg("delete-cluster", "prod"); r.Code != 3 || !strings.Contains(r.Stderr, `no cluster "prod" in --config `+path) {
		t.Errorf("delete-cluster of a cluster the file lacks: exit %d, stderr %q; want exit 3", r.Code, r.Stderr)
	}
	if r := cfg("get-clusters", "-o", "name").MustSucceed(t); r.Stdout != "staging\n" {
		t.Errorf("after delete-cluster: %q", r.Stdout)
	}
}
