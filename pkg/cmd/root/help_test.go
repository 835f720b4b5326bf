package root

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmd/factory"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
)

// runMain runs easyai as Main does (execute, then printError).
func runMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	f := factory.New()
	io, _, out, errOut := iostreams.Test()
	f.IOStreams = io
	f.DeferFlags = true
	cmd := NewCmdRoot(f)
	if err := execute(context.Background(), cmd, args); err != nil {
		return printError(f, err), out.String(), errOut.String()
	}
	return 0, out.String(), errOut.String()
}

// TestHelpAfterAnUnknownCommand: --help (or -h) beside an argument that
// names no subcommand is the same usage error as the line without it
// (exit 2, nothing on stdout), not the command's help with exit 0.
func TestHelpAfterAnUnknownCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, args := range [][]string{
		{"deploy"},
		{"sbumit"},
		{"config", "foo"},
		{"config", "set-clustr"},
		{"submit", "tff"},
		{"queue", "lst"},
		{"top", "nod"},
	} {
		wantCode, wantStdout, wantStderr := runMain(t, args...)
		if wantCode != exit.Usage || wantStdout != "" || !strings.HasPrefix(wantStderr, "Error: unknown command ") {
			t.Fatalf("easyai %v: exit %d, stdout %q, stderr %q; want exit 2", args, wantCode, wantStdout, wantStderr)
		}
		withHelps := [][]string{append(slices.Clone(args), "--help"), append(slices.Clone(args), "-h")}
		if len(args) == 1 {
			withHelps = append(withHelps, []string{"--help", args[0]})
		}
		for _, withHelp := range withHelps {
			code, stdout, stderr := runMain(t, withHelp...)
			if code != wantCode || stdout != "" || stderr != wantStderr {
				t.Errorf("easyai %v: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", withHelp, code, stdout, stderr, wantCode, wantStderr)
			}
		}
	}
}

// TestHelpOfKnownCommands: help of a command that exists still prints its
// help and exits 0, whatever arguments a command that takes some is given.
// ("--help config" is the root's help: cobra parses it before it knows
// --help.)
func TestHelpOfKnownCommands(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"config", "--help"}, {"submit", "--help"}, {"submit", "tf", "-h"},
		{"get", "mnist", "--help"}, {"get", "a", "b", "--help"}, {"help", "config"}, {"queue", "list", "--help"}, {"--help", "config"}, {"-h", "config", "foo"},
	} {
		code, stdout, stderr := runMain(t, args...)
		if code != 0 || !strings.Contains(stdout, "Usage:") || stderr != "" {
			t.Errorf("easyai %v: exit %d, stdout %q, stderr %q; want its help", args, code, stdout, stderr)
		}
	}
}
