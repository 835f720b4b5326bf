package logs

import (
	"bufio"
	"errors"
	"hash/fnv"
	"io"
	"strings"
	"sync"
	"time"
)

// lineWriter is the one writer every stream shares: each call writes one
// whole line under the lock, so two replicas' output never mixes in a line.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lineWriter) writeLine(prefix, line string) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	_, err := io.WriteString(lw.w, prefix+line+"\n")
	return err
}

// colours are the ANSI foregrounds replicas' prefixes cycle through.
var colours = []string{"32", "33", "34", "35", "36", "91", "92", "93", "94", "95", "96"}

// prefixOf is "[worker-0] ", coloured by a hash of the name so a replica keeps
// its colour across runs.
func prefixOf(name string, colour bool) string {
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
	r.seen = map[string]int{text: 1}
	r.repeats = map[string]int{text: 1}
	return true
}

// copyLines writes every whole line of the stream (a last line without its
// newline included) through out, with prefix; stamped lines go through
// resume when it is set, their stamp kept only when keepStamps.
func copyLines(stream io.Reader, out *lineWriter, prefix string, resume *resumePoint, keepStamps bool) error {
	br := bufio.NewReaderSize(stream, 64*1024)
	if resume != nil {
		resume.startStream()
	}
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if werr := emitLine(out, prefix, strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), resume, keepStamps); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func emitLine(out *lineWriter, prefix, line string, resume *resumePoint, keepStamps bool) error {
	if resume != nil {
		if ts, text, ok := splitTimestamp(line); ok {
			if !resume.fresh(ts, text) {
				return nil
			}
			if !keepStamps {
				line = text
			}
		}
	}
	return out.writeLine(prefix, line)
}
