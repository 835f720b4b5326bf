package invoke

import (
	"bytes"
	"testing"
)

// TestWriteKeepsTheTerminalSafe: an answer reaches a pipe as the server
// sent it, and a terminal without the escapes that would act on it (a
// clipboard write, a title, a screen clear); its colours stay.
func TestWriteKeepsTheTerminalSafe(t *testing.T) {
	answer := []byte("\x1b[32mok\x1b[0m\n\x1b]52;c;aGk=\x07copied\x1b[2J\n")
	var pipe, term bytes.Buffer
	if err := write(&pipe, false, answer); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pipe.Bytes(), answer) {
		t.Errorf("to a pipe: %q, want the answer as sent", pipe.String())
	}
	if err := write(&term, true, answer); err != nil {
		t.Fatal(err)
	}
	if want := "\x1b[32mok\x1b[0m\ncopied\n"; term.String() != want {
		t.Errorf("to a terminal: %q, want %q", term.String(), want)
	}
}
