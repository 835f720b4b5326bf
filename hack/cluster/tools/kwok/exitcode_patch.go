//go:build easyai_kwok_patch

// This file is not part of the wrapper module: build.sh copies it into the
// server package of a copy of kwok's source, whose exec handlers it makes
// report a command's exit code the way a kubelet does. kwok v0.8.0 returns
// the command's error as it comes from os/exec, which the streaming server
// turns into an internal error ("exit status 3"); wrapped in the exit error
// type the streaming server knows, it becomes the NonZeroExitCode status
// that "kubectl exec" and easyai read the exit code from.

package server

import (
	"errors"
	"os/exec"

	utilexec "k8s.io/utils/exec"
)

// exitCodeError passes err on, as a CodeExitError when it says the command
// exited with a code.
func exitCodeError(err error) error {
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.Exited() {
		return utilexec.CodeExitError{Err: err, Code: exitErr.ExitCode()}
	}
	return err
}
