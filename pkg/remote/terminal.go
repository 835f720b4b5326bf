package remote

import (
	"context"
	"fmt"
	"io"

	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/kubectl/pkg/util/term"
)

// InteractiveShell is what an interactive session runs: bash when the image has it,
// else sh.
var InteractiveShell = []string{"sh", "-c", "command -v bash >/dev/null && exec bash || exec sh"}

// Terminal runs command in the pod's container on a remote terminal, as
// kubectl exec -it does: the local terminal raw while it runs (when in is
// one), its size followed, restored however the command ends. stdin always
// goes: a remote terminal reads it (and some kubelets, kwok's among them,
// fail a terminal without one).
func Terminal(ctx context.Context, e Executor, namespace, pod, container string, command []string, in io.Reader, out io.Writer, rawIn bool) error {
	tty := term.TTY{In: in, Out: out, Raw: rawIn}
	s := Streams{Stdin: in, Stdout: out, TTY: true}
	var sizes remotecommand.TerminalSizeQueue
	if tty.IsTerminalOut() {
		sizes = tty.MonitorSize(tty.GetSize())
		s.Sizes = sizes
	}
	return tty.Safe(func() error {
		return e.Exec(ctx, namespace, pod, container, command, s)
	})
}

// Attach runs command on a remote terminal in the replica task's pod (as
// Terminal does) and returns its exit code as easyai's: an error that says
// the replica, unless the command ran and exited.
func Attach(ctx context.Context, e Executor, namespace, pod, task, container string, command []string, in io.Reader, out io.Writer, rawIn bool) error {
	err := Terminal(ctx, e, namespace, pod, container, command, in, out, rawIn)
	if _, exited := ExitCode(err); err != nil && !exited {
		return fmt.Errorf("attach to %s (pod %s): %w", task, pod, err)
	}
	return ExitError(err)
}
