// Package exit holds easyai's typed errors and the exit code each maps to
// (docs/exit-codes.md). Engines and commands return them; main maps them.
package exit

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes of every easyai command; docs/exit-codes.md documents them.
const (
	OK          = 0
	Error       = 1
	Usage       = 2
	NotFound    = 3
	JobFailed   = 4
	Timeout     = 5
	Interrupted = 130
)

// CodedError is an error that decides easyai's exit code, with an optional hint
// printed below the message ("install the Kubeflow training-operator").
type CodedError struct {
	Code int
	Err  error
	Hint string
}

func (e *CodedError) Error() string { return e.Err.Error() }
func (e *CodedError) Unwrap() error { return e.Err }

// UsageErrorf is bad usage or input: exit 2. The message names the flag or field.
func UsageErrorf(format string, args ...any) error {
	return &CodedError{Code: Usage, Err: fmt.Errorf(format, args...)}
}

// NotFoundErrorf is a job, replica or file that does not exist: exit 3.
func NotFoundErrorf(format string, args ...any) error {
	return &CodedError{Code: NotFound, Err: fmt.Errorf(format, args...)}
}

// JobFailedErrorf is a job a command waited for that ended in failure: exit 4.
func JobFailedErrorf(format string, args ...any) error {
	return &CodedError{Code: JobFailed, Err: fmt.Errorf(format, args...)}
}

// TimeoutErrorf is a wait that ran out of time: exit 5.
func TimeoutErrorf(format string, args ...any) error {
	return &CodedError{Code: Timeout, Err: fmt.Errorf(format, args...)}
}

// WithHint adds a one-line hint to err, keeping its exit code.
func WithHint(err error, hint string) error {
	var e *CodedError
	if errors.As(err, &e) {
		return &CodedError{Code: e.Code, Err: e.Err, Hint: hint}
	}
	return &CodedError{Code: Error, Err: err, Hint: hint}
}

// ErrCancel is the user pressing Ctrl-C (at a prompt too): exit 130.
var ErrCancel = errors.New("cancelled")

// DeclinedError is the user answering no at a prompt: nothing was done,
// said as its message ("Nothing deleted.") without "Error:", exit 1.
type DeclinedError struct{ Message string }

func (e *DeclinedError) Error() string { return e.Message }

// Declined is the error of a "no" at a prompt; message says what was not
// done ("Nothing deleted.").
func Declined(message string) error {
	return &CodedError{Code: Error, Err: &DeclinedError{Message: message}}
}

// ErrSilent fails a command whose output already said why.
var ErrSilent = errors.New("silent error")

// Code maps an error returned by a command to easyai's exit code.
func Code(err error) int {
	var e *CodedError
	switch {
	case err == nil:
		return OK
	case errors.Is(err, ErrCancel), errors.Is(err, context.Canceled):
		return Interrupted
	case errors.As(err, &e):
		return e.Code
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout
	default:
		return Error
	}
}

// Hint returns the hint carried by err, if any.
func Hint(err error) string {
	var e *CodedError
	if errors.As(err, &e) {
		return e.Hint
	}
	return ""
}

// IsNotFound reports whether err is a NotFound error (exit 3): a job,
// replica or file that does not exist.
func IsNotFound(err error) bool { return Code(err) == NotFound }
