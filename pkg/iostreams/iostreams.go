// Package iostreams holds a command's standard streams and what is known
// about them: which are terminals, whether colour is wanted, the terminal's
// width. Data goes to Out; progress, warnings and hints go to ErrOut.
package iostreams

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the standard streams of one command run.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdinTTY, stdoutTTY, stderrTTY bool
	colorDisabled                  bool
	width                          int
}

// System returns the process's streams. Colour is off when NO_COLOR is set,
// TERM is dumb, or stdout is not a terminal.
func System() *IOStreams {
	s := &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdinTTY:  isTerminal(os.Stdin),
		stdoutTTY: isTerminal(os.Stdout),
		stderrTTY: isTerminal(os.Stderr),
		width:     80,
	}
	if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
		s.width = w
	}
	if _, ok := os.LookupEnv("NO_COLOR"); ok || os.Getenv("TERM") == "dumb" {
		s.colorDisabled = true
	}
	return s
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// Test returns streams backed by buffers, none a terminal.
func Test() (s *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, width: 80}, in, out, errOut
}

// SetTTY marks all three streams as terminals or not (tests).
func (s *IOStreams) SetTTY(tty bool) { s.stdinTTY, s.stdoutTTY, s.stderrTTY = tty, tty, tty }

// IsStdinTTY reports whether standard input is a terminal.
func (s *IOStreams) IsStdinTTY() bool { return s.stdinTTY }

// IsStdoutTTY reports whether standard output is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether standard error is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// CanPrompt reports whether the user can be asked: both stdin and stdout are
// terminals (never in CI or a pipe).
func (s *IOStreams) CanPrompt() bool { return s.stdinTTY && s.stdoutTTY }

// DisableColor turns colour off (--no-color).
func (s *IOStreams) DisableColor() { s.colorDisabled = true }

// ColorEnabled reports whether stdout gets ANSI colour.
func (s *IOStreams) ColorEnabled() bool { return s.stdoutTTY && !s.colorDisabled }

// TerminalWidth is stdout's width in columns (80 when unknown).
func (s *IOStreams) TerminalWidth() int { return s.width }
