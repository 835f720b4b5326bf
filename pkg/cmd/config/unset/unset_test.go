package unset

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
)

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdUnset(f, runF)
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
	if err := execute(f, func(o *Options) error { got = o; return nil }, "queue"); err != nil || got.Key != "queue" {
		t.Fatalf("options %+v %v", got, err)
	}
	for _, args := range [][]string{{}, {"a", "b"}} {
		if err := execute(f, func(*Options) error { t.Fatal("ran"); return nil }, args...); exit.Code(err) != exit.Usage {
			t.Errorf("unset %v: %v, want exit 2", args, err)
		}
	}
}

func TestRemovesTheKey(t *testing.T) {
	t.Setenv("EASYAI_QUEUE", "")
	path := filepath.Join(t.TempDir(), "team.yaml")
	if err := os.WriteFile(path, []byte("# ours\nimgae: tf:1\n# the team's queue\nqueue: research\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	io, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: io, ConfigPath: path}
	for _, tc := range []struct {
		key, stderr, file string
	}{
		// The comment right above a key goes with it; the file's stays.
		{"queue", "queue removed from " + path + "\n", "# ours\nimgae: tf:1\n"},
		{"queue", "queue was not set in " + path + "\n", "# ours\nimgae: tf:1\n"},
		// A key easyai does not know goes too, if the file holds it.
		{"imgae", "imgae removed from " + path + "\n", "# ours\n\n{}\n"},
	} {
		errOut.Reset()
		if err := execute(f, nil, tc.key); err != nil {
			t.Fatalf("unset %s: %v", tc.key, err)
		}
		if data, _ := os.ReadFile(path); string(data) != tc.file || out.Len() != 0 || errOut.String() != tc.stderr {
			t.Errorf("unset %s: file %q, stdout %q, stderr %q; want file %q, stderr %q", tc.key, data, out, errOut, tc.file, tc.stderr)
		}
	}
	err := execute(f, nil, "imgae")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `did you mean "image"?`) {
		t.Errorf("unset of an unknown key the file does not hold: %v", err)
	}
	f.ConfigPath = filepath.Join(t.TempDir(), "missing.yaml")
	err = execute(f, nil, "queue")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--config "+f.ConfigPath+": no such file") {
		t.Errorf("unset in a missing --config file: %v", err)
	}
}
