package getclusters

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
)

var configured = &config.Config{
	Path:    "/home/a/.config/easyai/config.yaml",
	Cluster: "prod",
	Clusters: map[string]config.Cluster{
		"prod":    {Name: "prod", Type: "timaker", Addr: "https://ti.example.com", Host: "ti.example.com", ProjectID: 3, Uin: "100012345"},
		"staging": {Name: "staging", Type: "timaker", Addr: "http://10.0.0.1:8080", ProjectID: 1, Uin: "42", AppGroupID: 9},
	},
}

func run(t *testing.T, c *config.Config, tty bool, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	io.SetTTY(tty)
	f := &cmdutil.Factory{IOStreams: io, Config: func() (*config.Config, error) { return c, nil }}
	cmd := NewCmdGetClusters(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	var discard bytes.Buffer
	cmd.SetOut(&discard)
	cmd.SetErr(&discard)
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// TestGetClusters: a table on a terminal, tab-separated lines otherwise,
// a ClusterList with -o json and yaml, names with -o name.
func TestGetClusters(t *testing.T) {
	for _, tc := range []struct {
		tty  bool
		args []string
		want string
	}{
		{true, nil, "NAME      TYPE      ADDR                     PROJECT   UIN\nprod      timaker   https://ti.example.com   3         100012345\nstaging   timaker   http://10.0.0.1:8080     1         42\n"},
		{false, nil, "prod\ttimaker\thttps://ti.example.com\t3\t100012345\nstaging\ttimaker\thttp://10.0.0.1:8080\t1\t42\n"},
		{false, []string{"-o", "name"}, "prod\nstaging\n"},
		{false, []string{"-o", "json"}, `{
  "apiVersion": "easyai.io/v1",
  "kind": "ClusterList",
  "default": "prod",
  "items": [
    {
      "name": "prod",
      "type": "timaker",
      "addr": "https://ti.example.com",
      "host": "ti.example.com",
      "project-id": 3,
      "uin": "100012345"
    },
    {
      "name": "staging",
      "type": "timaker",
      "addr": "http://10.0.0.1:8080",
      "project-id": 1,
      "uin": "42",
      "app-group-id": 9
    }
  ]
}
`},
		{false, []string{"-o", "jsonpath={.items[*].addr}"}, "https://ti.example.com http://10.0.0.1:8080"},
	} {
		stdout, stderr, err := run(t, configured, tc.tty, tc.args...)
		if err != nil || stdout != tc.want || stderr != "" {
			t.Errorf("get-clusters %q (tty %v): %v\nstdout:\n%s\nwant:\n%s\nstderr %q", tc.args, tc.tty, err, stdout, tc.want, stderr)
		}
	}
	stdout, _, err := run(t, configured, false, "-o", "yaml")
	if err != nil || !strings.HasPrefix(stdout, "apiVersion: easyai.io/v1\ndefault: prod\nitems:\n- addr: https://ti.example.com\n") {
		t.Errorf("-o yaml: %v\n%s", err, stdout)
	}

	// None: nothing on stdout, how to add one on stderr; an empty list in JSON.
	empty := &config.Config{Path: "/home/a/.config/easyai/config.yaml"}
	stdout, stderr, err := run(t, empty, true)
	if err != nil || stdout != "" || stderr != "No clusters in /home/a/.config/easyai/config.yaml: easyai config set-cluster NAME --type timaker --addr URL --project-id N --uin UIN adds one.\n" {
		t.Errorf("no clusters: %v, stdout %q, stderr %q", err, stdout, stderr)
	}
	stdout, _, _ = run(t, empty, false, "-o", "json")
	if stdout != "{\n  \"apiVersion\": \"easyai.io/v1\",\n  \"kind\": \"ClusterList\",\n  \"items\": []\n}\n" {
		t.Errorf("no clusters in JSON: %q", stdout)
	}

	if _, _, err := run(t, configured, false, "-o", "wide"); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `-o "wide": must be one of json, yaml, name`) {
		t.Errorf("-o wide: %v", err)
	}
	if _, _, err := run(t, configured, false, "extra"); exit.Code(err) != exit.Usage {
		t.Errorf("an argument: %v", err)
	}
}
