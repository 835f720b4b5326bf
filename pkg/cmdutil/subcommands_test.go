package cmdutil

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// tree is "app" with "config" (view, set: nothing to run of its own),
// "submit" (tf, pytorch; runs with -f and no arguments), "exec" (any
// arguments), and "version".
func tree() *cobra.Command {
	leaf := func(use string) *cobra.Command {
		return &cobra.Command{Use: use, Args: NoArgs, RunE: func(*cobra.Command, []string) error { return nil }}
	}
	root := &cobra.Command{Use: "app", SilenceErrors: true, SilenceUsage: true}
	config := &cobra.Command{Use: "config", Short: "settings"}
	config.AddCommand(leaf("view"), leaf("set"))
	submit := leaf("submit")
	submit.Flags().StringP("values", "f", "", "")
	tf, pytorch := leaf("tf"), leaf("pytorch")
	tf.Flags().Int("ps", 0, "")
	submit.AddCommand(tf, pytorch)
	exec := &cobra.Command{Use: "exec", RunE: func(*cobra.Command, []string) error { return nil }}
	root.AddCommand(config, submit, exec, leaf("version"))
	RejectUnknownSubcommands(root)
	return root
}

func execute(args ...string) (stdout string, err error) {
	root := tree()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), err
}

func TestUnknownSubcommands(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "foo"}, `unknown command "foo" for "app config"`},
		{[]string{"config", "vieww"}, "unknown command \"vieww\" for \"app config\"\n\nDid you mean this?\n\tview"},
		{[]string{"submit", "tff", "-f", "x"}, "unknown command \"tff\" for \"app submit\"\n\nDid you mean this?\n\ttf"},
		{[]string{"submit", "pytroch"}, "Did you mean this?\n\tpytorch"},
		{[]string{"confg"}, "unknown command \"confg\" for \"app\"\n\nDid you mean this?\n\tconfig"},
		{[]string{"zzz"}, `unknown command "zzz" for "app"`},
	} {
		_, err := execute(tc.args...)
		if exit.Code(err) != exit.Usage || !IsUnknownCommand(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v (exit %d), want exit 2 saying %q", tc.args, err, exit.Code(err), tc.want)
		}
	}
	// Without a suggestion, a hint at the list.
	_, err := execute("config", "foo")
	if hint := exit.Hint(err); hint != `"app config --help" lists its commands` {
		t.Errorf("hint %q", hint)
	}
	_, err = execute("config", "vieww")
	if strings.Contains(err.Error(), "\n\n\n") || exit.Hint(err) != "" {
		t.Errorf("with a suggestion: %q, hint %q", err, exit.Hint(err))
	}
}

func TestOtherArgumentsKeepTheirChecks(t *testing.T) {
	// After "--", an argument is not a subcommand: the command's own check speaks.
	_, err := execute("submit", "-f", "x", "--", "python")
	if exit.Code(err) != exit.Usage || IsUnknownCommand(err) || !strings.Contains(err.Error(), "takes no arguments") {
		t.Errorf("submit -- python: %v", err)
	}
	for _, args := range [][]string{{"submit", "-f", "x"}, {"submit", "tf"}, {"exec", "a", "b"}, {"version"}} {
		if _, err := execute(args...); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
	_, err = execute("version", "x")
	if exit.Code(err) != exit.Usage || IsUnknownCommand(err) {
		t.Errorf("version x: %v", err)
	}
}

// TestNoArgumentPrintsHelp: a command with subcommands and nothing to run
// of its own prints its help, exit 0, as cobra does.
func TestNoArgumentPrintsHelp(t *testing.T) {
	for _, args := range [][]string{{}, {"config"}} {
		out, err := execute(args...)
		if err != nil || !strings.Contains(out, "Available Commands:") {
			t.Errorf("%v: %v, output %q", args, err, out)
		}
	}
}
