package cmdutil

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes of every easyai command; docs/exit-codes.md documents them.
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitNotFound    = 3
	ExitJobFailed   = 4
	ExitTimeout     = 5
	ExitInterrupted = 130
)

// Error is an error that decides easyai's exit code, with an optional hint
// printed below the message ("install the Kubeflow training-operator").
type Error struct {
	Code int
	Err  error
	Hint string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// UsageErrorf is bad usage or input: exit 2. The message names the flag or field.
func UsageErrorf(format string, args ...any) error {
	return &Error{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// NotFoundErrorf is a job, replica or file that does not exist: exit 3.
func NotFoundErrorf(format string, args ...any) error {
	return &Error{Code: ExitNotFound, Err: fmt.Errorf(format, args...)}
}

// JobFailedErrorf is a job a command waited for that ended in failure: exit 4.
func JobFailedErrorf(format string, args ...any) error {
	return &Error{Code: ExitJobFailed, Err: fmt.Errorf(format, args...)}
}

// TimeoutErrorf is a wait that ran out of time: exit 5.
func TimeoutErrorf(format string, args ...any) error {
	return &Error{Code: ExitTimeout, Err: fmt.Errorf(format, args...)}
}

// WithHint adds a one-line hint to err, keeping its exit code.
func WithHint(err error, hint string) error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Code: e.Code, Err: e.Err, Hint: hint}
	}
	return &Error{Code: ExitError, Err: err, Hint: hint}
}

// ErrCancel is the user saying no at a prompt or pressing Ctrl-C.
var ErrCancel = errors.New("cancelled")

// ErrSilent fails a command whose output already said why.
var ErrSilent = errors.New("silent error")

// ExitCode maps an error returned by a command to easyai's exit code.
func ExitCode(err error) int {
	var e *Error
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, ErrCancel), errors.Is(err, context.Canceled):
		return ExitInterrupted
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, context.DeadlineExceeded):
		return ExitTimeout
	default:
		return ExitError
	}
}

// Hint returns the hint carried by err, if any.
func Hint(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Hint
	}
	return ""
}
