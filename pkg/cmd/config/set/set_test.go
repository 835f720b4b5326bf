package set

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
)

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdSet(f, runF)
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
	if err := execute(f, func(o *Options) error { got = o; return nil }, "image", "tf:1"); err != nil {
		t.Fatal(err)
	}
	if got.Key != "image" || got.Value != "tf:1" {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{{"imgae", "x"}, {"image"}, {"a", "b", "c"}} {
		if err := execute(f, func(*Options) error { t.Fatal("ran"); return nil }, args...); exit.Code(err) != exit.Usage {
			t.Errorf("set %v: %v, want exit 2", args, err)
		}
	}
}

func TestWritesTheFile(t *testing.T) {
	t.Setenv("EASYAI_QUEUE", "")
	t.Setenv("EASYAI_IMAGE", "")
	path := filepath.Join(t.TempDir(), "team.yaml")
	io, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: io, ConfigPath: path}
	if err := execute(f, nil, "queue", "research"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "queue: research\n" {
		t.Errorf("file %q", data)
	}
	if out.Len() != 0 || errOut.String() != "queue set in "+path+"\n" {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}

	// The value is checked; the file is left as it was.
	err := execute(f, nil, "gpu-resource", "bad resource")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `gpu-resource "bad resource": not an extended resource name`) {
		t.Errorf("bad gpu-resource: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "queue: research\n" {
		t.Errorf("file %q", data)
	}

	// A variable that overrides the key is pointed out.
	errOut.Reset()
	t.Setenv("EASYAI_IMAGE", "pt:2")
	if err := execute(f, nil, "image", "tf:1"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "Warning: EASYAI_IMAGE is set in the environment and overrides the file\n") {
		t.Errorf("stderr %q", errOut)
	}
}

// TestCluster: the default cluster must be a configured one; its VALUE is
// completed with them.
func TestCluster(t *testing.T) {
	t.Setenv("EASYAI_CLUSTER", "")
	path := filepath.Join(t.TempDir(), "config.yaml")
	content := "clusters:\n  prod: {type: timaker, addr: \"https://a\", project-id: 1, uin: \"7\"}\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	io, _, _, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: io, ConfigPath: path}
	if err := execute(f, nil, "cluster", "prod"); err != nil || errOut.String() != "cluster set in "+path+"\n" {
		t.Fatalf("set cluster prod: %v, stderr %q", err, errOut)
	}
	err := execute(f, nil, "cluster", "staging")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `cluster "staging": no such cluster in --config `+path+": the clusters there are prod") {
		t.Errorf("set cluster staging: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != content+"cluster: prod\n" {
		t.Errorf("file %q", data)
	}
	cmd := NewCmdSet(f, nil)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"cluster", "cron-image", "fetcher-image", "gpu-resource", "gpu-resources", "image", "kubeflow-backend", "labels", "notebook-image", "notify", "preemptible-priority-class", "priority-class", "queue", "queue-system", "storage"}},
		{[]string{"cluster"}, []string{"prod"}},
		{[]string{"queue"}, nil},
	} {
		if got, _ := cmd.ValidArgsFunction(cmd, tc.args, ""); !slices.Equal(got, tc.want) {
			t.Errorf("completing after %q: %q, want %q", tc.args, got, tc.want)
		}
	}
}
