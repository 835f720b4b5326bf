package root

import (
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmd/factory"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// TestKindFlagsDeclaredForTheCommandThatRuns: in a tree built as Main
// builds it, a submit kind has no flags until it is the command to run;
// then it has them all.
func TestKindFlagsDeclaredForTheCommandThatRuns(t *testing.T) {
	f := factory.New()
	f.DeferFlags = true
	root := NewCmdRoot(f)
	tf, _, err := root.Find([]string{"submit", "tf"})
	if err != nil || tf.Name() != "tf" {
		t.Fatalf("submit tf: %v, %v", tf, err)
	}
	if tf.Flags().Lookup("workers") != nil {
		t.Fatal("submit tf declared its flags while the tree was built")
	}
	cmdutil.DeclareFlags(commandToRun(root, []string{"submit", "tf", "--workers", "2", "--", "python"}))
	for _, name := range []string{"workers", "image", "gpus", "dry-run", "output", "wait", "set"} {
		if tf.Flags().Lookup(name) == nil {
			t.Errorf("after DeclareFlags, submit tf has no --%s", name)
		}
	}
	pytorch, _, _ := root.Find([]string{"submit", "pytorch"})
	if pytorch.Flags().Lookup("workers") != nil {
		t.Error("declaring submit tf's flags declared submit pytorch's")
	}
}

// TestDeferredFlagsAtEveryEntry: what parses, shows or completes a kind's
// flags finds them, in a run as Main runs: its arguments, --help, the help
// command and shell completion.
func TestDeferredFlagsAtEveryEntry(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "/nonexistent")
	for _, tt := range []struct {
		args       []string
		code       int
		out, inErr string
	}{
		// (The flags' table, not the examples, which name flags too.)
		{args: []string{"submit", "tf", "--help"}, out: "--workers int "},
		{args: []string{"help", "submit", "tf"}, out: "--workers int "},
		{args: []string{"submit", "pytorch", "-h"}, out: "--nproc-per-node string "},
		{args: []string{"__complete", "submit", "tf", "--work"}, out: "--workers\t"},
		{args: []string{"__completeNoDesc", "submit", "mpi", "--slots-per"}, out: "--slots-per-worker\n"},
		{args: []string{"submit", "tf", "--workers", "two", "--", "python"}, code: exit.Usage, inErr: `invalid argument "two" for "--workers"`},
		{args: []string{"submit", "tf", "--no-such-flag"}, code: exit.Usage, inErr: "unknown flag: --no-such-flag"},
		// cron create parses its submit line with the tree's submit kind
		// (and renders it before it needs the cluster this test has not).
		{args: []string{"cron", "create", "nightly", "--schedule", "0 3 * * *", "--", "tf", "--workers", "1", "--image", "example.com/x:1", "--", "python", "t.py"},
			code: exit.Error, inErr: "Job name: tf-"},
	} {
		code, stdout, stderr := runMain(t, tt.args...)
		if code != tt.code || !strings.Contains(stdout, tt.out) || !strings.Contains(stderr, tt.inErr) {
			t.Errorf("easyai %s: exit %d, stdout %q, stderr %q; want exit %d, %q on stdout, %q on stderr",
				strings.Join(tt.args, " "), code, trim(stdout), stderr, tt.code, tt.out, tt.inErr)
		}
	}
}

func trim(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
