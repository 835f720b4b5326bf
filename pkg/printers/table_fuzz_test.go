package printers

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
)

// FuzzTable: whatever the cells hold (names, statuses, event messages from
// the cluster), a table on a terminal is rows of printable text, lines
// apart: no control character but the newlines between rows, no escape;
// for scripts, each row is one line of exactly one tab between cells.
func FuzzTable(f *testing.F) {
	f.Add("worker-0", "Running", "msg")
	f.Add("evil\x1b]0;title\x07", "a\tb\r\nc", "\u009b31m")
	f.Add("\xff\xfe", "", "\u202eabc")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, aligned := range []bool{true, false} {
			var out bytes.Buffer
			table := NewTable(&out, aligned, "A", "B", "C")
			table.AddRow(a, b, c)
			table.AddRow(c, a, b)
			if err := table.Render(); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			want := 2
			if aligned {
				want = 3 // the header
			}
			if len(lines) != want {
				t.Fatalf("aligned %v: %d lines, want %d:\n%q", aligned, len(lines), want, out.String())
			}
			for _, line := range lines {
				if !aligned && strings.Count(line, "\t") != 2 {
					t.Fatalf("a script's line %q has not 2 tabs", line)
				}
				for _, r := range line {
					if unicode.IsControl(r) && !(r == '\t' && !aligned) {
						t.Fatalf("aligned %v: control character %U in %q", aligned, r, line)
					}
				}
			}
		}
	})
}
