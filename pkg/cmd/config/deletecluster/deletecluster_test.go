package deletecluster

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
	cmd := NewCmdDeleteCluster(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestCommandLine(t *testing.T) {
	io, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: io}
	var got *Options
	if err := execute(f, func(o *Options) error { got = o; return nil }, "prod"); err != nil || got.Name != "prod" {
		t.Fatalf("options %+v %v", got, err)
	}
	for _, args := range [][]string{{}, {"a", "b"}} {
		if err := execute(f, func(*Options) error { t.Fatal("ran"); return nil }, args...); exit.Code(err) != exit.Usage {
			t.Errorf("delete-cluster %v: %v, want exit 2", args, err)
		}
	}
}

// TestRemovesTheCluster: the cluster goes with the comment above it, the
// default too when it named it (said on stderr); one the file does not
// have is exit 3.
func TestRemovesTheCluster(t *testing.T) {
	t.Setenv("EASYAI_CLUSTER", "prod")
	path := filepath.Join(t.TempDir(), "team.yaml")
	content := `# the team's settings
queue: research
cluster: prod # the usual
clusters:
  # production
  prod: {type: timaker, addr: "https://a", project-id: 1, uin: "7"}
  staging: {type: timaker, addr: "https://b", project-id: 1, uin: "7"}
`
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	io, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: io, ConfigPath: path}

	cmd := NewCmdDeleteCluster(f, nil)
	if names, _ := cmd.ValidArgsFunction(cmd, nil, ""); !reflect.DeepEqual(names, []cobra.Completion{"prod", "staging"}) {
		t.Errorf("completion %q", names)
	}

	if err := execute(f, nil, "prod"); err != nil {
		t.Fatal(err)
	}
	want := "# the team's settings\nqueue: research\nclusters:\n  staging: {type: timaker, addr: \"https://b\", project-id: 1, uin: \"7\"}\n"
	if data, _ := os.ReadFile(path); string(data) != want {
		t.Errorf("file:\n%s\nwant:\n%s", data, want)
	}
	wantErr := "cluster prod removed from " + path + "\n" +
		"prod was the default cluster: the cluster setting is removed too, and commands use the kubeconfig's context\n" +
		"Warning: EASYAI_CLUSTER names prod, which is no longer configured: unset it\n"
	if out.Len() != 0 || errOut.String() != wantErr {
		t.Errorf("stdout %q, stderr %q, want %q", out, errOut, wantErr)
	}

	errOut.Reset()
	err := execute(f, nil, "prod")
	if exit.Code(err) != exit.NotFound || err.Error() != `no cluster "prod" in --config `+path+": the clusters there are staging" {
		t.Errorf("delete-cluster prod again: %v (exit %d)", err, exit.Code(err))
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr %q", errOut)
	}
	errOut.Reset()
	if err := execute(f, nil, "staging"); err != nil || errOut.String() != "cluster staging removed from "+path+"\n" {
		t.Errorf("delete-cluster staging: %v, stderr %q", err, errOut)
	}
	if data, _ := os.ReadFile(path); string(data) != "# the team's settings\nqueue: research\n" {
		t.Errorf("file %q", data)
	}
	f.ConfigPath = filepath.Join(t.TempDir(), "missing.yaml")
	if err := execute(f, nil, "prod"); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing --config: %v", err)
	}
}
