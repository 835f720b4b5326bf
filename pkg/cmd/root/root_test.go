package root

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

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
	} {
		code, _, stderr := run(t, args...)
		if code != exit.Usage || !strings.HasPrefix(stderr, "Error: ") {
			t.Errorf("easyai %v: exit %d, stderr %q; want exit 2 with an error", args, code, stderr)
		}
	}
}

func TestVersionAndCompletion(t *testing.T) {
	code, out, _ := run(t, "version", "-o", "json")
	if code != 0 || !strings.Contains(out, `"version"`) {
		t.Errorf("version -o json: %d %q", code, out)
	}
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, _ := run(t, "completion", shell)
		if code != 0 || !strings.Contains(out, "easyai") {
			t.Errorf("completion %s: exit %d, %d bytes", shell, code, len(out))
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
