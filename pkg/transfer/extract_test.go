package transfer

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaliciousArchivesWriteNothingOutside feeds archives of the kubectl cp
// CVE class (CVE-2019-1002101, -11246, -11249, -11251): every entry that
// would write outside the destination is refused, named in a warning, and
// nothing outside changes.
func TestMaliciousArchivesWriteNothingOutside(t *testing.T) {
	for _, tt := range cveArchives {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dest, outside := filepath.Join(base, "dest"), filepath.Join(base, "outside")
			for _, d := range []string{dest, outside} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(outside, "target"), []byte("original"), 0o644); err != nil {
				t.Fatal(err)
			}
			// A file of the user's, already in the destination.
			if err := os.WriteFile(filepath.Join(dest, "theirs.txt"), []byte("theirs"), 0o644); err != nil {
				t.Fatal(err)
			}
			f := &fakeContainer{archives: [][]byte{archive(t, tt.entries...)}}
			var warnings bytes.Buffer
			res, err := Download(context.Background(), Request{
				Executor: f, Source: Source{Pod: "p", Dir: ".", Name: "."}, LocalDir: dest, Warnings: &warnings,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tt.refused {
				if !strings.Contains(warnings.String(), "Warning: skipped "+r) {
					t.Errorf("no warning %q in:\n%s", r, warnings.String())
				}
			}
			if n := strings.Count(warnings.String(), "\n"); n != len(tt.refused) || res.Skipped != n {
				t.Errorf("%d warnings, %d skipped, want %d:\n%s", n, res.Skipped, len(tt.refused), warnings.String())
			}
			want := append([]string{}, tt.tree...)
			if !contains(want, "theirs.txt: 6") {
				want = append(want, "theirs.txt: 6")
			}
			if got := tree(t, dest); !sameSet(got, want) {
				t.Errorf("destination:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if got := tree(t, outside); strings.Join(got, ",") != "target: 8" {
				t.Errorf("outside the destination: %q", got)
			}
			if b := readFile(t, filepath.Join(outside, "target")); string(b) != "original" {
				t.Errorf("outside/target is %q", b)
			}
			if b := readFile(t, filepath.Join(dest, "theirs.txt")); string(b) != "theirs" {
				t.Errorf("theirs.txt is %q", b)
			}
			if entries, _ := os.ReadDir(base); len(entries) != 2 {
				t.Errorf("%d entries beside the destination", len(entries))
			}
		})
	}
}

// cveArchives are archives of the kubectl cp CVE class (CVE-2019-1002101,
// -11246, -11249, -11251), with the entries refused and the tree written.
var cveArchives = []struct {
	name    string
	entries []entry
	// refused are the entries warned about; tree what is written.
	refused []string
	tree    []string
}{
	{"absolute path", []entry{{name: "/abs/evil", content: "x"}, {name: "ok", content: "ok"}},
		[]string{`"/abs/evil": an absolute path`}, []string{"ok: 2"}},
	{"dot-dot", []entry{{name: "../outside/evil", content: "x"}, {name: "a/../../outside/evil", content: "x"}, {name: "./../evil", content: "x"}},
		[]string{`"../outside/evil"`, `"a/../../outside/evil"`, `"./../evil"`}, nil},
	{"symlink out, then a file through it", []entry{
		{name: "escape", typ: tar.TypeSymlink, link: "../outside"},
		{name: "escape/evil", content: "x"},
		{name: "abs", typ: tar.TypeSymlink, link: "/etc"},
		{name: "abs/passwd", content: "x"},
	}, []string{
		`"escape": its target "../outside" is outside the destination`,
		`"escape/evil": it lies beneath the refused symlink "escape"`,
		`"abs": its target "/etc" is an absolute path`,
		`"abs/passwd": it lies beneath the refused symlink "abs"`,
	}, nil},
	{"symlink in, then a file through it", []entry{
		{name: "sub/", typ: tar.TypeDir},
		{name: "in", typ: tar.TypeSymlink, link: "sub"},
		{name: "in/file", content: "x"},
		{name: "in/deeper/file", content: "x"},
	}, []string{`"in/file": it would be written through the symlink "in"`, `"in/deeper/file": it would be written through the symlink "in"`},
		[]string{"in -> sub", "sub/"}},
	{"symlink chain that climbs out", []entry{
		{name: "dot", typ: tar.TypeSymlink, link: "."},
		{name: "sneaky", typ: tar.TypeSymlink, link: "dot/../outside/target"},
		{name: "d/", typ: tar.TypeDir},
		{name: "d/up", typ: tar.TypeSymlink, link: "../../outside"},
	}, []string{`"sneaky": its target "dot/../outside/target" has ".." after a name`, `"d/up": its target "../../outside" is outside the destination`},
		[]string{"d/", "dot -> ."}},
	{"a file replaces a symlink instead of writing through it", []entry{
		{name: "target.txt", content: "mine"},
		{name: "link", typ: tar.TypeSymlink, link: "target.txt"},
		{name: "link", content: "replaced"},
	}, nil, []string{"link: 8", "target.txt: 4"}},
	{"hard links", []entry{
		{name: "hl-abs", typ: tar.TypeLink, link: "/etc/passwd"},
		{name: "hl-up", typ: tar.TypeLink, link: "../outside/target"},
		{name: "hl-theirs", typ: tar.TypeLink, link: "theirs.txt"},
		{name: "mine.txt", content: "mine"},
		{name: "hl-mine", typ: tar.TypeLink, link: "mine.txt"},
	}, []string{
		`"hl-abs": its link target "/etc/passwd": an absolute path`,
		`"hl-up": its link target "../outside/target"`,
		`"hl-theirs": its link target "theirs.txt" is not a file this download wrote`,
	}, []string{"hl-mine: 4", "mine.txt: 4", "theirs.txt: 6"}},
	{"devices and pipes", []entry{
		{name: "null", typ: tar.TypeChar},
		{name: "sda", typ: tar.TypeBlock},
		{name: "pipe", typ: tar.TypeFifo},
	}, []string{`"null": devices and named pipes are not copied`, `"sda": devices`, `"pipe": devices`}, nil},
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}

// TestADestinationSymlinkOfTheUserIsNotWrittenThrough: a symlink already in
// the destination (the user's) is not followed either.
func TestADestinationSymlinkOfTheUserIsNotWrittenThrough(t *testing.T) {
	base := t.TempDir()
	dest, outside := filepath.Join(base, "dest"), filepath.Join(base, "outside")
	for _, d := range []string{dest, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dest, "out")); err != nil {
		t.Fatal(err)
	}
	f := &fakeContainer{archives: [][]byte{archive(t, entry{name: "out/evil", content: "x"}, entry{name: "via", typ: tar.TypeSymlink, link: "out/x"})}}
	var warnings bytes.Buffer
	if _, err := Download(context.Background(), Request{Executor: f, Source: Source{Pod: "p", Dir: ".", Name: "."}, LocalDir: dest, Warnings: &warnings}); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, outside); len(got) != 0 {
		t.Errorf("written outside: %q", got)
	}
	for _, w := range []string{`"out/evil": it would be written through the symlink "out"`, `"via": its target "out/x" goes through the symlink "out"`} {
		if !strings.Contains(warnings.String(), w) {
			t.Errorf("no warning %q in %s", w, warnings.String())
		}
	}
}
