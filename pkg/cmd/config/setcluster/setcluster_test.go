package setcluster

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
)

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdSetCluster(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return exit.UsageErrorf("%v", err) })
	return cmd.ExecuteContext(context.Background())
}

// TestCommandLine: the flags given, and only those, are the fields that
// change; each is checked with an error naming the flag.
func TestCommandLine(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: io}
	var got *Options
	run := func(o *Options) error { got = o; return nil }
	if err := execute(f, run, "prod", "--type", "timaker", "--addr", "https://ti.example.com", "--project-id", "3", "--uin", "100012345", "--host", ""); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"type": "timaker", "addr": "https://ti.example.com", "project-id": "3", "uin": "100012345", "host": ""}
	if got.Name != "prod" || !reflect.DeepEqual(got.Fields, want) {
		t.Errorf("options %q %q", got.Name, got.Fields)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, `needs a cluster NAME`},
		{[]string{"a", "b", "--uin", "1"}, `needs a cluster NAME`},
		{[]string{"Prod", "--uin", "1"}, `cluster "Prod": not a cluster name`},
		{[]string{"prod"}, `nothing to set: give the fields that change (--type, --addr, --host, --project-id, --uin, --app-group-id, --credentials-file)`},
		{[]string{"prod", "--type", "k8s"}, `--type "k8s": the only cluster type is timaker`},
		{[]string{"prod", "--addr", "ti.example.com"}, `--addr "ti.example.com": want the gateway's URL`},
		{[]string{"prod", "--addr", "https://ti.example.com?x=1"}, `--addr "https://ti.example.com?x=1": no query or fragment`},
		{[]string{"prod", "--addr", ""}, `--addr "": a cluster needs its type, addr, project-id and uin`},
		{[]string{"prod", "--host", "a b"}, `--host "a b": want a host name or an IP address`},
		{[]string{"prod", "--project-id", "0"}, `--project-id "0": want a whole number from 1 to 2147483647 (timaker's default project is 1)`},
		{[]string{"prod", "--project-id", "x"}, `--project-id "x": want a whole number`},
		{[]string{"prod", "--app-group-id", "-2"}, `--app-group-id "-2": want a whole number from 0`},
		{[]string{"prod", "--uin", ""}, `--uin "": a cluster needs`},
		{[]string{"prod", "--uin", "a b"}, `--uin "a b": want the user's id on timaker`},
		{[]string{"prod", "--secret-key", "x"}, `unknown flag: --secret-key`},
	} {
		err := execute(f, func(*Options) error { t.Fatal("ran"); return nil }, tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("set-cluster %q: %v (exit %d), want exit 2 saying %q", tc.args, err, exit.Code(err), tc.want)
		}
	}
}

// TestWritesTheCluster: set-cluster adds a cluster to the file, then
// changes only the fields given, keeping the rest of the file; it warns
// when easyai would find no credentials for the cluster.
func TestWritesTheCluster(t *testing.T) {
	t.Setenv("EASYAI_CLUSTER", "")
	t.Setenv("EASYAI_TIMAKER_SECRET_ID", "")
	t.Setenv("EASYAI_TIMAKER_SECRET_KEY", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(path, []byte("# the team's settings\nqueue: research # shared\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	io, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: io, ConfigPath: path}
	t.Chdir(dir)
	if err := execute(f, nil, "prod", "--type", "timaker", "--addr", "https://ti.example.com", "--project-id", "3", "--uin", "100012345", "--credentials-file", "creds.yaml"); err != nil {
		t.Fatal(err)
	}
	creds := filepath.Join(dir, "creds.yaml")
	want := "# the team's settings\nqueue: research # shared\nclusters:\n  prod:\n    type: timaker\n    addr: https://ti.example.com\n    project-id: 3\n    uin: \"100012345\"\n    credentials-file: " + creds + "\n"
	if data, _ := os.ReadFile(path); string(data) != want {
		t.Errorf("file:\n%s\nwant:\n%s", data, want)
	}
	wantErr := "cluster prod added to " + path + "\n" +
		"Warning: credentials file " + creds + " of cluster prod: no such file\n" +
		"Hint: export EASYAI_TIMAKER_SECRET_ID and EASYAI_TIMAKER_SECRET_KEY, or write \"clusters: {prod: {secret-id: ID, secret-key: KEY}}\" into " + creds + " and chmod 600 it\n" +
		"To make it the default: easyai config set cluster prod\n"
	if out.Len() != 0 || errOut.String() != wantErr {
		t.Errorf("stdout %q, stderr:\n%s\nwant:\n%s", out, errOut, wantErr)
	}

	// Only the flags given change; the credentials found, nothing to warn of.
	if err := os.WriteFile(creds, []byte("secret-id: a\nsecret-key: b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	if err := execute(f, nil, "prod", "--uin", "42", "--host", "ti.example.com"); err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(want, "    addr: https://ti.example.com\n", "    addr: https://ti.example.com\n    host: ti.example.com\n", 1)
	want = strings.Replace(want, `"100012345"`, `"42"`, 1)
	if data, _ := os.ReadFile(path); string(data) != want {
		t.Errorf("file:\n%s\nwant:\n%s", data, want)
	}
	if errOut.String() != "cluster prod changed in "+path+"\n" {
		t.Errorf("stderr %q", errOut)
	}

	// A new cluster needs every required flag; nothing is written.
	err := execute(f, nil, "dev", "--addr", "https://dev.example.com")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "a new cluster needs --type, --addr, --project-id, --uin (missing: --type, --project-id, --uin)") {
		t.Errorf("a new cluster without its fields: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != want {
		t.Errorf("a failed set-cluster changed the file:\n%s", data)
	}
}

func TestCompletesConfiguredClusters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte("clusters:\n  staging: {}\n  prod: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	io, _, _, _ := iostreams.Test()
	cmd := NewCmdSetCluster(&cmdutil.Factory{IOStreams: io, ConfigPath: path}, nil)
	names, directive := cmd.ValidArgsFunction(cmd, nil, "")
	if !reflect.DeepEqual(names, []cobra.Completion{"prod", "staging"}) || directive != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("completion %q %v", names, directive)
	}
	if names, _ := cmd.ValidArgsFunction(cmd, []string{"prod"}, ""); len(names) != 0 {
		t.Errorf("after NAME: %q", names)
	}
}
