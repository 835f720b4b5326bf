package printers

import (
	"strings"
	"unicode/utf8"
)

// TerminalSafe is text from a container (a log line, a server's answer),
// made safe for a terminal: its colours stay (SGR sequences, ESC [ digits and ; m), every other escape
// sequence (a title, a cursor move, a clear, a hyperlink, OSC 52's
// clipboard) is dropped, and other control characters but the tab are
// shown as spaces. A line with no control character is returned as it is.
func TerminalSafe(line string) string {
	if strings.IndexFunc(line, func(r rune) bool { return r != '\t' && isControl(r) }) < 0 && utf8.ValidString(line) {
		return line
	}
	var b strings.Builder
	b.Grow(len(line))
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		switch {
		case r == 0x1b:
			n, keep := escapeSequence(line[i:])
			if keep {
				b.WriteString(line[i : i+n])
			}
			i += n
			continue
		case r == '\t':
			b.WriteByte('\t')
		case isControl(r):
			b.WriteByte(' ')
		case r == utf8.RuneError && size == 1:
			b.WriteString("\uFFFD") // a byte that is no UTF-8 (0x9b would be a CSI)
		default:
			b.WriteString(line[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// escapeSequence measures the escape sequence at the start of s (ESC ...):
// its length, and whether it is a colour (SGR: ESC [ params m), the one
// kind kept. An OSC or DCS string runs to its terminator (BEL or ESC \),
// or to the end of the line.
func escapeSequence(s string) (n int, keep bool) {
	if len(s) < 2 {
		return len(s), false
	}
	switch s[1] {
	case '[': // CSI: parameters and intermediates, then a final byte
		j := 2
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			params := s[2:j]
			sgr := s[j] == 'm' && strings.Trim(params, "0123456789;") == ""
			return j + 1, sgr
		}
		return j, false
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: a string
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1, false
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2, false
			}
		}
		return len(s), false
	}
	return 2, false
}
