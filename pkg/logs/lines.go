package logs

import (
	"bufio"
	"bytes"
	"errors"
	"hash/fnv"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// lineWriter is the one writer every stream shares: each call writes one
// whole line under the lock, so two replicas' output never mixes in a line.
// Lines are gathered and written out together (one write for many lines
// rather than one for each, which is most of the cost of following hundreds
// of replicas): when lineBufferBytes are held, within flushAfter of the
// first line held, and at flush, which whoever made the writer calls once
// no stream writes any more.
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	buf     []byte
	timer   *time.Timer
	pending bool
	// err is the first failed write (a closed pipe); every later line fails with it.
	err error
	// terminal: the lines go to a terminal, and are made safe for it
	// (terminalSafe).
	terminal bool
}

const (
	lineBufferBytes = 32 << 10
	flushAfter      = 20 * time.Millisecond
)

func (lw *lineWriter) writeLine(prefix, line string) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.err != nil {
		return lw.err
	}
	if lw.terminal {
		line = terminalSafe(line)
	}
	lw.buf = append(append(append(lw.buf, prefix...), line...), '\n')
	if len(lw.buf) >= lineBufferBytes {
		return lw.flushLocked()
	}
	if !lw.pending {
		lw.pending = true
		if lw.timer == nil {
			lw.timer = time.AfterFunc(flushAfter, func() {
				lw.mu.Lock()
				defer lw.mu.Unlock()
				_ = lw.flushLocked()
			})
		} else {
			lw.timer.Reset(flushAfter)
		}
	}
	return nil
}

// flush writes out the lines held.
func (lw *lineWriter) flush() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.timer != nil {
		lw.timer.Stop()
	}
	return lw.flushLocked()
}

func (lw *lineWriter) flushLocked() error {
	lw.pending = false
	if lw.err != nil || len(lw.buf) == 0 {
		return lw.err
	}
	_, lw.err = lw.w.Write(lw.buf)
	if cap(lw.buf) > 2*lineBufferBytes {
		lw.buf = nil // one overlong line does not stay held
	} else {
		lw.buf = lw.buf[:0]
	}
	return lw.err
}

// colours are the ANSI foregrounds replicas' prefixes cycle through.
var colours = []string{"32", "33", "34", "35", "36", "91", "92", "93", "94", "95", "96"}

// prefixOf is "[worker-0] ", coloured by a hash of the name so a replica keeps
// its colour across runs.
func prefixOf(name string, colour bool) string {
	name = jobmodel.OneLine(name) // a replica's name is the cluster's
	if !colour {
		return "[" + name + "] "
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return "\x1b[" + colours[h.Sum32()%uint32(len(colours))] + "m[" + name + "]\x1b[0m "
}

// splitTimestamp splits a line the API server stamped (Timestamps: true) into
// its time and its text; ok is false for a line without a stamp.
func splitTimestamp(line string) (ts time.Time, text string, ok bool) {
	stamp, text, found := strings.Cut(line, " ")
	if !found {
		// An empty line comes as a bare stamp.
		stamp, text = line, ""
	}
	ts, err := time.Parse(time.RFC3339Nano, stamp)
	if err != nil {
		return time.Time{}, line, false
	}
	return ts, text, true
}

// resumePoint remembers the last line a stream showed, so a stream reopened
// from that time (the API server's sinceTime is whole seconds) skips what
// was already shown.
type resumePoint struct {
	last time.Time
	// seen are the texts shown at last, to tell a repeat from a new line
	// stamped with the same time.
	seen map[string]int
	// repeats counts, in the current stream, the lines at last already met.
	repeats map[string]int
}

// startStream begins reading a new (resumed) stream.
func (r *resumePoint) startStream() { r.repeats = map[string]int{} }

// fresh reports whether a stamped line is new, and records it.
func (r *resumePoint) fresh(ts time.Time, text string) bool {
	if r.repeats == nil {
		r.startStream()
	}
	switch {
	case ts.Before(r.last):
		return false
	case ts.Equal(r.last):
		r.repeats[text]++
		if r.repeats[text] <= r.seen[text] {
			return false
		}
		r.seen[text]++
		return true
	}
	r.last = ts
	r.seen = reset(r.seen, text)
	r.repeats = reset(r.repeats, text)
	return true
}

// reset empties m for the lines of a new time, text the first: the same
// map again (each new line would otherwise make two), unless lines of one
// time made it large.
func reset(m map[string]int, text string) map[string]int {
	if m == nil || len(m) > 64 {
		m = map[string]int{}
	} else {
		clear(m)
	}
	m[text] = 1
	return m
}

// maxLineBytes caps the part of a line held while its end has not come (a
// tqdm progress bar redraws itself with \r and never ends its line): what is
// held is then shown as a line of its own, and the rest follows as more lines.
const maxLineBytes = 64 * 1024

// copyLines writes every whole line of the stream (a last line without its
// newline included) through out, with prefix; stamped lines go through
// resume when it is set, their stamp kept only when keepStamps.
func copyLines(stream io.Reader, out *lineWriter, prefix string, resume *resumePoint, keepStamps bool) error {
	return copyCappedLines(stream, out, prefix, resume, keepStamps, maxLineBytes)
}

// readBufferBytes is what each stream reads at a time. A line longer than
// that is gathered piece by piece up to the cap (maxLineBytes), so a stream
// holds more only while it is in such a line.
const readBufferBytes = 4 << 10

// copyCappedLines is copyLines with lines cut at limit bytes (at least 16),
// never inside a UTF-8 sequence. A line's pieces after the first carry no
// stamp: they are shown when its first piece was, and skipped with it.
func copyCappedLines(stream io.Reader, out *lineWriter, prefix string, resume *resumePoint, keepStamps bool, limit int) error {
	br := bufio.NewReaderSize(stream, min(limit, readBufferBytes))
	if resume != nil {
		resume.startStream()
	}
	p := pieces{out: out, prefix: prefix, resume: resume, keepStamps: keepStamps}
	// held: the start of a line whose end has not come yet (its own copy).
	var held []byte
	for {
		chunk, err := br.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		body := chunk
		if len(held) > 0 || full {
			// The reader's buffer is reused by the next read: keep a copy.
			held = append(held, chunk...)
			body = held
		}
		if !full {
			body = bytes.TrimSuffix(bytes.TrimSuffix(body, []byte("\n")), []byte("\r"))
		}
		for len(body) > limit {
			whole := wholeRunes(body[:limit])
			if werr := p.emit(string(body[:whole]), true); werr != nil {
				return werr
			}
			body = body[whole:]
		}
		if full {
			// (body may be the end of held: append moves it down.)
			held = append(held[:0], body...)
			continue
		}
		if len(chunk) > 0 || len(held) > 0 {
			if werr := p.emit(string(body), false); werr != nil {
				return werr
			}
		}
		held = held[:0]
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// pieces writes a stream's lines, some of them cut into pieces.
type pieces struct {
	out        *lineWriter
	prefix     string
	resume     *resumePoint
	keepStamps bool
	// continued: the line goes on from a piece cut at the limit; skipping:
	// that line's first piece was a repeat, and so are the others.
	continued, skipping bool
}

// emit writes one piece of a line; cut says the line goes on after it.
func (p *pieces) emit(line string, cut bool) error {
	switch {
	case !p.continued:
		shown, err := emitLine(p.out, p.prefix, line, p.resume, p.keepStamps)
		if err != nil {
			return err
		}
		p.skipping = !shown
	case p.skipping, line == "" && !cut:
		// A repeat, or only the end of a line already shown.
	default:
		if err := p.out.writeLine(p.prefix, line); err != nil {
			return err
		}
	}
	p.continued = cut
	return nil
}

// wholeRunes is the length of b without an incomplete UTF-8 sequence at its end.
func wholeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

// emitLine writes one line unless resume knows it as a repeat; shown says
// whether it was written.
func emitLine(out *lineWriter, prefix, line string, resume *resumePoint, keepStamps bool) (shown bool, err error) {
	if resume != nil {
		if ts, text, ok := splitTimestamp(line); ok {
			if !resume.fresh(ts, text) {
				return false, nil
			}
			if !keepStamps {
				line = text
			}
		}
	}
	return true, out.writeLine(prefix, line)
}

// terminalSafe is a line a container wrote, made safe for a terminal
// (printers.TerminalSafe: colours kept, other escapes dropped).
func terminalSafe(line string) string { return printers.TerminalSafe(line) }
