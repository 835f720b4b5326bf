package logs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// progressBar is what tqdm writes: redraws of one line separated by \r, and
// no newline until it is done (here: never, while the stream stays open).
func progressBar(redraws int) string {
	var b strings.Builder
	for i := 0; i < redraws; i++ {
		b.WriteString("\rtraining:  42%|████▏     | 420/1000 [00:42<00:58, 10.00it/s]")
	}
	return b.String()
}

func TestALineWithoutEndIsShownInPiecesOfAtMost64KiB(t *testing.T) {
	bar := progressBar(4000) // about 300 KB
	r, w := io.Pipe()
	var out syncBuffer
	done := make(chan error, 1)
	lw := &lineWriter{w: &out}
	go func() { done <- copyLines(r, lw, "[worker-0] ", nil, false) }()
	written := make(chan struct{})
	go func() { _, _ = io.WriteString(w, bar); close(written) }()

	// Shown while the stream is still open, without waiting for a newline.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "\n") < len(bar)/maxLineBytes && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	<-written
	_ = w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_ = lw.flush()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(bar)/maxLineBytes+1 {
		t.Fatalf("%d lines, want %d", len(lines), len(bar)/maxLineBytes+1)
	}
	var joined strings.Builder
	for i, line := range lines {
		text, ok := strings.CutPrefix(line, "[worker-0] ")
		if !ok || len(text) > maxLineBytes || !utf8.ValidString(text) {
			t.Fatalf("line %d: %d bytes, prefixed %v, valid UTF-8 %v", i, len(text), ok, utf8.ValidString(text))
		}
		joined.WriteString(text)
	}
	if joined.String() != bar {
		t.Error("the pieces do not make the line")
	}
}

func TestAResumedStreamSkipsEveryPieceOfALongLineAlreadyShown(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes: pieces of 32 bytes with the stamp
	log := stamp(1, 0, long) + "\n" + stamp(1, 0, "short") + "\n"
	var b bytes.Buffer
	out := &lineWriter{w: &b}
	var resume resumePoint
	if err := copyCappedLines(strings.NewReader(stamp(1, 0, long)+"\n"), out, "", &resume, false, 32); err != nil {
		t.Fatal(err)
	}
	_ = out.flush()
	first := b.String()
	if err := copyCappedLines(strings.NewReader(log), out, "", &resume, false, 32); err != nil {
		t.Fatal(err)
	}
	_ = out.flush()
	if got := strings.ReplaceAll(b.String(), "\n", ""); got != long+"short" {
		t.Errorf("output %q, want the long line once, then short", b.String())
	}
	if strings.Count(first, "\n") < 3 {
		t.Errorf("the long line was not cut: %q", first)
	}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if !utf8.ValidString(line) {
			t.Errorf("a piece cuts a character: %q", line)
		}
	}
}

func TestTheEndOfACutLineIsNoLineOfItsOwn(t *testing.T) {
	var b bytes.Buffer
	text := strings.Repeat("x", 16)
	out := &lineWriter{w: &b}
	if err := copyCappedLines(strings.NewReader(text+"\r\n"+text+"\nlast"), out, "> ", nil, false, 16); err != nil {
		t.Fatal(err)
	}
	_ = out.flush()
	if want := "> " + text + "\n> " + text + "\n> last\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// FuzzSplitTimestamp: no panic; a stamped line is its stamp, a space and its
// text (a bare stamp: no text); an unstamped one comes back whole.
func FuzzSplitTimestamp(f *testing.F) {
	for _, seed := range []string{
		stamp(1, 0, "hello world"), stamp(2, 500, ""), "2025-03-01T12:00:02.0000005Z", "no stamp here", "",
		" leading space", "2025-03-01T12:00:02Z\ttab", "2025-13-01T12:00:00Z x", "2025-03-01T12:00:00+01:00 zone",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		ts, text, ok := splitTimestamp(line)
		if !ok {
			if text != line || !ts.IsZero() {
				t.Fatalf("unstamped %q split into %v, %q", line, ts, text)
			}
			return
		}
		stampText, rest, found := strings.Cut(line, " ")
		if !found {
			stampText = line
		}
		if rest != text || (found && stampText+" "+text != line) || (!found && text != "") {
			t.Fatalf("%q split into %q and %q", line, stampText, text)
		}
		again, err := time.Parse(time.RFC3339Nano, ts.Format(time.RFC3339Nano))
		if err != nil || !again.Equal(ts) {
			t.Fatalf("stamp %v of %q does not round-trip: %v, %v", ts, line, again, err)
		}
	})
}

// FuzzResumePoint: a log of stamped lines (times never going back, often
// equal) read up to a break at a line's end, then again from the API
// server's sinceTime (the last shown stamp, whole seconds), shows every line
// once, in order.
func FuzzResumePoint(f *testing.F) {
	f.Add("step 1\nstep 2\nstep 2\nstep 3\nstep 4\nstep 5", []byte{1, 10, 0, 4, 0, 5}, uint8(4))
	f.Add("a\na\na\nb\na", []byte{0, 0, 0, 0, 0}, uint8(2))
	f.Add("x\n\ny\n", []byte{3, 200, 7}, uint8(1))
	f.Fuzz(func(t *testing.T, texts string, gaps []byte, cut uint8) {
		if len(texts) > 1<<14 {
			return
		}
		base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		var lines []string
		var stamps []time.Time
		at := base
		for i, text := range strings.Split(texts, "\n") {
			text = strings.TrimRight(text, "\r")
			if i < len(gaps) {
				// Often the same stamp, often the same second.
				at = at.Add(time.Duration(gaps[i]%8) * 250 * time.Millisecond)
			}
			lines = append(lines, at.Format(time.RFC3339Nano)+" "+text)
			stamps = append(stamps, at)
		}
		n := int(cut) % (len(lines) + 1)
		var b bytes.Buffer
		out := &lineWriter{w: &b}
		var resume resumePoint
		if err := copyLines(strings.NewReader(strings.Join(lines[:n], "\n")), out, "", &resume, false); err != nil {
			t.Fatal(err)
		}
		from := 0
		if n > 0 {
			since := resume.last.Truncate(time.Second)
			for from < len(stamps) && stamps[from].Before(since) {
				from++
			}
		}
		if err := copyLines(strings.NewReader(strings.Join(lines[from:], "\n")+"\n"), out, "", &resume, false); err != nil {
			t.Fatal(err)
		}
		_ = out.flush()
		want := make([]string, 0, len(lines))
		for _, line := range lines {
			_, text, _ := strings.Cut(line, " ")
			want = append(want, text+"\n")
		}
		if b.String() != strings.Join(want, "") {
			t.Fatalf("read up to line %d, then from line %d:\n%q\nwant\n%q", n, from, b.String(), strings.Join(want, ""))
		}
	})
}

// FuzzCopyCappedLines: no panic; no line longer than the cap; the lines,
// ends aside, are the stream.
func FuzzCopyCappedLines(f *testing.F) {
	f.Add([]byte("one\ntwo\r\n\nlast"), uint8(0))
	f.Add([]byte(progressBar(3)), uint8(3))
	f.Add([]byte(strings.Repeat("é", 30)+"\n"), uint8(1))
	f.Fuzz(func(t *testing.T, stream []byte, size uint8) {
		limit := 16 + int(size)%48
		var b bytes.Buffer
		out := &lineWriter{w: &b}
		if err := copyCappedLines(bytes.NewReader(stream), out, "", nil, false, limit); err != nil {
			t.Fatal(err)
		}
		_ = out.flush()
		var joined []byte
		for _, line := range strings.SplitAfter(b.String(), "\n") {
			if len(strings.TrimSuffix(line, "\n")) > limit {
				t.Fatalf("a line of %d bytes, cap %d: %q", len(line), limit, line)
			}
			joined = append(joined, strings.TrimSuffix(line, "\n")...)
		}
		// What is left out: newlines, and a \r ending a line.
		want := bytes.ReplaceAll(bytes.ReplaceAll(stream, []byte("\r\n"), []byte("\n")), []byte("\n"), nil)
		got := bytes.ReplaceAll(joined, []byte("\r"), nil)
		if !bytes.Equal(got, bytes.ReplaceAll(want, []byte("\r"), nil)) {
			t.Fatalf("lines %q are not the stream %q", b.String(), stream)
		}
	})
}

type failingWriter struct{ writes int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	return 0, io.ErrClosedPipe
}

// Lines are written out together; a failed write (the reader gone) is
// returned by flush and by every line after it, and nothing is written again.
func TestLinesAreWrittenTogetherAndAFailedWriteStopsThem(t *testing.T) {
	var b bytes.Buffer
	lw := &lineWriter{w: &b}
	for i := range 100 {
		if err := lw.writeLine("[w-0] ", fmt.Sprint("line ", i)); err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() != 0 {
		t.Errorf("%d bytes written before the flush, want them held", b.Len())
	}
	if err := lw.flush(); err != nil || strings.Count(b.String(), "\n") != 100 {
		t.Fatalf("flush: %v, %d lines", err, strings.Count(b.String(), "\n"))
	}

	w := &failingWriter{}
	lw = &lineWriter{w: w}
	_ = lw.writeLine("", "one")
	if err := lw.flush(); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("flush: %v, want the write's error", err)
	}
	if err := lw.writeLine("", "two"); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("a line after the failed write: %v, want its error", err)
	}
	_ = lw.flush()
	if w.writes != 1 {
		t.Errorf("%d writes, want 1", w.writes)
	}

	// Held lines go out on their own, without a flush.
	var sb syncBuffer
	lw = &lineWriter{w: &sb}
	_ = lw.writeLine("", "soon")
	deadline := time.Now().Add(5 * time.Second)
	for sb.String() == "" && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if sb.String() != "soon\n" {
		t.Errorf("held line not written within 5 s: %q", sb.String())
	}
}

func TestTerminalSafe(t *testing.T) {
	for in, want := range map[string]string{
		"plain line":                          "plain line",
		"\x1b[31mred\x1b[0m and \x1b[1;32mok": "\x1b[31mred\x1b[0m and \x1b[1;32mok",
		"title\x1b]0;owned\x07 after":         "title after",
		"clip\x1b]52;c;ZXZpbA==\x1b\\ after":  "clip after",
		"clear\x1b[2J\x1b[H home":             "clear home",
		"tab\tkept, cr\rand bell\a":           "tab\tkept, cr and bell ",
		"c1 \u009b2J raw \x9b2J":              "c1  2J raw \ufffd2J",
		"cut \x1b]8;;http://evil":             "cut ",
		"lone \x1b":                           "lone ",
	} {
		if got := terminalSafe(in); got != want {
			t.Errorf("terminalSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzTerminalSafe: whatever a container writes, a terminal gets printable
// text, tabs, and colour sequences (ESC [ digits ; m) only.
func FuzzTerminalSafe(f *testing.F) {
	f.Add("\x1b[31mred\x1b]0;t\x07\x1b[2J\r\x9b")
	f.Add("\x1b[1;2;3m\x1b[?25l\x1bP1$r\x1b\\")
	f.Fuzz(func(t *testing.T, in string) {
		out := terminalSafe(in)
		if !utf8.ValidString(out) {
			t.Fatalf("not UTF-8: %q", out)
		}
		for i := 0; i < len(out); i++ {
			c := out[i]
			if c == 0x1b {
				j := i + 2
				for j < len(out) && (out[j] >= '0' && out[j] <= '9' || out[j] == ';') {
					j++
				}
				if i+1 >= len(out) || out[i+1] != '[' || j >= len(out) || out[j] != 'm' {
					t.Fatalf("an escape that is no colour at %d in %q", i, out)
				}
				i = j
				continue
			}
			if c != '\t' && (c < 0x20 || c == 0x7f) {
				t.Fatalf("control byte %#x in %q", c, out)
			}
		}
		for _, r := range out {
			if r >= 0x80 && r < 0xa0 {
				t.Fatalf("C1 control %U in %q", r, out)
			}
		}
	})
}
