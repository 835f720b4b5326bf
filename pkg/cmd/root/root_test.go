package root

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/cobra"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/cmd/factory"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
)

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	f := factory.New()
	io, _, out, errOut := iostreams.Test()
	f.IOStreams = io
	cmd := NewCmdRoot(f)
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		return printError(f, err), out.String(), errOut.String()
	}
	return 0, out.String(), errOut.String()
}

func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"bogus"},
		{"version", "--bogus"},
		{"version", "extra"},
		{"submit", "tf", "--workers", "many"},
		{"completion", "tcsh"},
		{"config", "foo"},
		{"config", "get"},
		{"config", "get", "imgae"},
		{"submit", "tff", "--image", "x"},
	} {
		code, _, stderr := run(t, args...)
		if code != exit.Usage || !strings.HasPrefix(stderr, "Error: ") {
			t.Errorf("easyai %v: exit %d, stderr %q; want exit 2 with an error", args, code, stderr)
		}
	}
}

// TestVersionAndCompletion: version prints the build's version, commit and
// date, the Go version and the platform, as a line and as a JSON document;
// completion prints, for each shell, a script that registers easyai and
// asks easyai's hidden __complete command, which offers every subcommand.
func TestVersionAndCompletion(t *testing.T) {
	saved := []string{build.Version, build.Commit, build.Date}
	t.Cleanup(func() { build.Version, build.Commit, build.Date = saved[0], saved[1], saved[2] })
	goVersion, platform := runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH

	build.Version, build.Commit, build.Date = "v1.2.3", "0123abc", "2026-01-02T03:04:05Z"
	want := "easyai v1.2.3 (commit 0123abc, built 2026-01-02T03:04:05Z) " + goVersion + " " + platform + "\n"
	if code, out, errOut := run(t, "version"); code != 0 || out != want || errOut != "" {
		t.Errorf("version: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
	code, out, _ := run(t, "version", "-o", "json")
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("version -o json: exit %d, %v: %q", code, err, out)
	}
	wantDoc := map[string]any{"version": "v1.2.3", "commit": "0123abc", "buildDate": "2026-01-02T03:04:05Z", "goVersion": goVersion, "platform": platform}
	if !reflect.DeepEqual(doc, wantDoc) {
		t.Errorf("version -o json: %v, want %v", doc, wantDoc)
	}

	// A build that knows no commit ("go run" outside a repository).
	build.Version, build.Commit, build.Date = "dev", "", ""
	want = "easyai dev " + goVersion + " " + platform + "\n"
	if code, out, _ := run(t, "version"); code != 0 || out != want {
		t.Errorf("version without a commit: exit %d, %q; want %q", code, out, want)
	}
	_, out, _ = run(t, "version", "-o", "json")
	doc = nil
	wantDoc = map[string]any{"version": "dev", "goVersion": goVersion, "platform": platform}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || !reflect.DeepEqual(doc, wantDoc) {
		t.Errorf("version -o json without a commit: %v (%v), want %v", doc, err, wantDoc)
	}

	// Each script registers the completion of the easyai command and asks
	// "easyai __complete ..." for the candidates.
	registers := map[string]string{
		"bash":       "complete -o default -F __start_easyai easyai",
		"zsh":        "compdef _easyai easyai",
		"fish":       "complete -c easyai ",
		"powershell": "Register-ArgumentCompleter -CommandName 'easyai'",
	}
	for shell, line := range registers {
		code, out, errOut := run(t, "completion", shell)
		if code != 0 || errOut != "" || !strings.Contains(out, line) || !strings.Contains(out, " __complete ") {
			t.Errorf("completion %s: exit %d, stderr %q, %d bytes; want a script with %q that calls __complete", shell, code, errOut, len(out), line)
		}
	}
	code, out, _ = run(t, "__complete", "")
	offered := map[string]bool{}
	for _, line := range strings.Split(out, "\n") {
		name, _, _ := strings.Cut(line, "\t")
		offered[name] = true
	}
	subcommands := NewCmdRoot(factory.New()).Commands()
	if code != 0 || len(subcommands) < 10 {
		t.Fatalf("__complete: exit %d, %d subcommands", code, len(subcommands))
	}
	for _, sub := range subcommands {
		if sub.IsAvailableCommand() && !offered[sub.Name()] {
			t.Errorf("completing easyai's first argument does not offer %s: %q", sub.Name(), out)
		}
	}
}

func TestConnectionRefusedGetsAHint(t *testing.T) {
	err := classify(fmt.Errorf("listing TFJob: %w", syscall.ECONNREFUSED))
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(exit.Hint(err), "cluster up") {
		t.Errorf("hint %q", exit.Hint(err))
	}
	err = classify(errors.New(`Get "http://localhost:8080/api": ` + syscall.ECONNREFUSED.Error()))
	if exit.Hint(err) != "" {
		t.Errorf("a message alone is not classified: %q", exit.Hint(err))
	}
}

func TestForbiddenPointsAtDoctor(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods", Group: ""}, "p", errors.New(`User "alice" cannot create resource "pods/exec"`))
	err := classify(fmt.Errorf("exec in worker-0: %w", forbidden))
	if exit.Code(err) != exit.Error || !strings.Contains(exit.Hint(err), "easyai doctor") {
		t.Errorf("exit %d, hint %q", exit.Code(err), exit.Hint(err))
	}
}

// TestUnknownSubcommands: a mistyped subcommand of any command is exit 2
// naming it, with the subcommands it is close to, or a hint at the list.
func TestUnknownSubcommands(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"submit", "tff", "--image", "x"}, "Error: unknown command \"tff\" for \"easyai submit\"\n\nDid you mean this?\n\ttf\n"},
		// --ps is tf's flag, not submit's: the kind is what is wrong.
		{[]string{"submit", "tff", "--ps", "1"}, "Error: unknown command \"tff\" for \"easyai submit\"\n\nDid you mean this?\n\ttf\n"},
		{[]string{"config", "foo"}, "Error: unknown command \"foo\" for \"easyai config\"\nHint: \"easyai config --help\" lists its commands\n"},
		{[]string{"config", "gte", "image"}, "Error: unknown command \"gte\" for \"easyai config\"\n\nDid you mean this?\n\tget\n"},
		{[]string{"sbumit"}, "Error: unknown command \"sbumit\" for \"easyai\"\n\nDid you mean this?\n\tsubmit\n"},
		{[]string{"help", "sbumit"}, "Error: unknown command \"sbumit\" for \"easyai\"\n\nDid you mean this?\n\tsubmit\n"},
		{[]string{"help", "config", "foo"}, "Error: unknown command \"foo\" for \"easyai config\"\nHint: \"easyai config --help\" lists its commands\n"},
	} {
		code, stdout, stderr := run(t, tc.args...)
		if code != exit.Usage || stdout != "" || stderr != tc.stderr {
			t.Errorf("easyai %v: exit %d, stdout %q, stderr %q; want exit 2, stderr %q", tc.args, code, stdout, stderr, tc.stderr)
		}
	}
}

// TestEveryCommandWithSubcommandsRejectsUnknownOnes walks the whole tree,
// so that a command group added later is covered too.
func TestEveryCommandWithSubcommandsRejectsUnknownOnes(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var groups [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.HasSubCommands() {
			groups = append(groups, path)
		}
		for _, sub := range c.Commands() {
			walk(sub, append(slices.Clone(path), sub.Name()))
		}
	}
	walk(NewCmdRoot(factory.New()), nil)
	if len(groups) < 3 {
		t.Fatalf("groups %v: want the root, config and submit at least", groups)
	}
	for _, path := range groups {
		code, _, stderr := run(t, append(slices.Clone(path), "zz-no-such")...)
		want := fmt.Sprintf("unknown command %q for %q", "zz-no-such", strings.Join(append([]string{"easyai"}, path...), " "))
		if code != exit.Usage || !strings.Contains(stderr, want) {
			t.Errorf("easyai %v zz-no-such: exit %d, stderr %q; want exit 2 saying %s", path, code, stderr, want)
		}
	}
}

// TestHelpOfCommandGroups: with no argument, a command group prints its
// help and exits 0, as help does.
func TestHelpOfCommandGroups(t *testing.T) {
	for _, args := range [][]string{{}, {"config"}, {"help", "config"}, {"config", "--help"}, {"help", "config", "get"}} {
		code, stdout, stderr := run(t, args...)
		if code != 0 || !strings.Contains(stdout, "Usage:") || stderr != "" {
			t.Errorf("easyai %v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestConfigurationErrors: easyai's settings fail a command that reads them
// with exit 2, naming the flag, file or variable; unknown keys only warn.
func TestConfigurationErrors(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.yaml")
	unknown := filepath.Join(dir, "unknown.yaml")
	for path, content := range map[string]string{broken: "image: tf:1\n  queue: x\n", unknown: "imgae: tf:1\n"} {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing.yaml")
	for _, tc := range []struct {
		env    string
		args   []string
		stderr string
	}{
		{"", []string{"--config", missing, "config", "view"}, "Error: --config " + missing + ": no such file\nHint: create it with: easyai --config " + missing + " config set KEY VALUE\n"},
		{"", []string{"--config", broken, "config", "get", "image"}, "Error: --config " + broken + ": line 2: mapping values are not allowed in this context\n"},
		{"", []string{"--config", broken, "config", "set", "image", "x"}, "Error: --config " + broken + ": line 2: mapping values are not allowed in this context\n"},
		{"EASYAI_LABELS=a", []string{"config", "view"}, "Error: EASYAI_LABELS \"a\": \"a\" is not KEY=VALUE (want KEY=VALUE[,KEY=VALUE...], e.g. team=vision,cost=42)\n"},
		{"", []string{"config", "set", "gpu-resource", "bad resource"}, "Error: gpu-resource \"bad resource\": not an extended resource name"},
	} {
		if name, value, ok := strings.Cut(tc.env, "="); ok {
			t.Setenv(name, value)
		}
		code, stdout, stderr := run(t, tc.args...)
		if code != exit.Usage || stdout != "" || !strings.HasPrefix(stderr, tc.stderr) {
			t.Errorf("%s easyai %v: exit %d, stdout %q, stderr %q; want exit 2, stderr %q", tc.env, tc.args, code, stdout, stderr, tc.stderr)
		}
		if name, _, ok := strings.Cut(tc.env, "="); ok {
			t.Setenv(name, "")
		}
	}
	code, stdout, stderr := run(t, "--config", unknown, "config", "view")
	want := "Warning: --config " + unknown + ": line 1: unknown key \"imgae\" is ignored (did you mean \"image\"?)\n# " + unknown + "\n"
	if code != 0 || stderr != want || !strings.Contains(stdout, "gpu-resource: nvidia.com/gpu") {
		t.Errorf("unknown key: exit %d, stdout %q, stderr %q; want stderr %q", code, stdout, stderr, want)
	}
}

// A "no" at a prompt is exit 1, said as what was not done; Ctrl-C is 130.
func TestADeclinedPromptIsExit1(t *testing.T) {
	f := factory.New()
	io, _, _, errOut := iostreams.Test()
	f.IOStreams = io
	if code := printError(f, exit.Declined("Nothing deleted.")); code != exit.Error || errOut.String() != "Nothing deleted.\n" {
		t.Errorf("declined: exit %d, stderr %q", code, errOut.String())
	}
	errOut.Reset()
	if code := printError(f, exit.ErrCancel); code != exit.Interrupted || errOut.String() != "Interrupted.\n" {
		t.Errorf("Ctrl-C: exit %d, stderr %q", code, errOut.String())
	}
}

// An error's text may hold a container's or the cluster's: no escape or
// carriage return reaches the terminal.
func TestErrorsArePrintable(t *testing.T) {
	f := factory.New()
	io, _, _, errOut := iostreams.Test()
	f.IOStreams = io
	printError(f, exit.WithHint(errors.New("tar failed: \x1b]0;owned\x07\rgone\u009b2J\nsecond line"), "hint \x1b[31m"))
	if got := errOut.String(); got != "Error: tar failed:  ]0;owned  gone 2J\nsecond line\nHint: hint  [31m\n" {
		t.Errorf("stderr %q", got)
	}
}
