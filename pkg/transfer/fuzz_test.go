package transfer

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzExtractStaysInTheDestination unpacks arbitrary archives. Whatever
// they hold, the download ends, nothing outside the destination changes,
// and no symlink in it resolves outside it.
func FuzzExtractStaysInTheDestination(f *testing.F) {
	for _, tt := range cveArchives {
		f.Add(archive(f, tt.entries...))
	}
	f.Add(archive(f,
		entry{name: "outputs/", typ: tar.TypeDir},
		entry{name: "outputs/x" + partialSuffix, typ: tar.TypeSymlink, link: "../.bashrc"},
		entry{name: "outputs/x", content: "export EVIL=1"},
	))
	f.Add(archive(f,
		entry{name: "a/", typ: tar.TypeDir},
		entry{name: "a/c", content: "file"},
		entry{name: "a/c", typ: tar.TypeSymlink, link: "../secret"},
		entry{name: "h", typ: tar.TypeLink, link: "a/c"},
	))
	f.Add(append(gnuSparse(f, "big.img", 64<<20)[:1024], archive(f, entry{name: "ok", content: "ok"})...))
	f.Add(archive(f,
		entry{name: "d/", typ: tar.TypeDir},
		entry{name: "d/l", typ: tar.TypeSymlink, link: ".."},
		entry{name: "d/l/x", content: "x"},
		entry{name: "up", typ: tar.TypeSymlink, link: "d/l/.."},
		entry{name: "d", typ: tar.TypeSymlink, link: "../outside"},
		entry{name: "e", typ: tar.TypeLink, link: "d/l"},
	))
	f.Fuzz(func(t *testing.T, data []byte) {
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		dest, outside := filepath.Join(base, "dest"), filepath.Join(base, "outside")
		for _, d := range []string{dest, outside} {
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for name, content := range map[string]string{"outside/secret": "secret", "outside/d/inner": "inner", "dest/.bashrc": "mine"} {
			p := filepath.Join(base, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink("../outside", filepath.Join(outside, "loop")); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, base, dest)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err = Download(ctx, Request{
			Executor: &fakeContainer{archives: [][]byte{data}}, Source: Source{Pod: "p", Dir: ".", Name: "."},
			LocalDir: dest, MaxBytes: 1 << 20, MaxFiles: 200, IdleTimeout: 10 * time.Second,
		})
		if ctx.Err() != nil {
			t.Fatalf("the download did not end: %v", err)
		}
		if after := snapshot(t, base, dest); after != before {
			t.Fatalf("outside the destination:\n%s\nbecame:\n%s", before, after)
		}
		err = filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Type()&fs.ModeSymlink == 0 {
				return err
			}
			if to := resolve(p); !within(dest, to) {
				target, _ := os.Readlink(p)
				t.Errorf("%s -> %s resolves to %s, outside the destination", p, target, to)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// snapshot lists every file under base except skip (the destination), with
// its type, mode and content.
func snapshot(t *testing.T, base, skip string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == skip {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %s", p, info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(&b, " -> %s", target)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %x", sha256.Sum256(data))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// resolve follows p as the kernel would, symlink by symlink, to the path it
// names (which need not exist).
func resolve(p string) string {
	var at []string // the resolved path so far, from "/"
	rest := strings.Split(filepath.ToSlash(p), "/")
	for hops := 0; len(rest) > 0; {
		part := rest[0]
		rest = rest[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if len(at) > 0 {
				at = at[:len(at)-1]
			}
			continue
		}
		next := "/" + strings.Join(append(append([]string{}, at...), part), "/")
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			at = append(at, part)
			continue
		}
		if hops++; hops > 40 {
			return next // a loop: the kernel gives up (ELOOP)
		}
		target, err := os.Readlink(next)
		if err != nil {
			at = append(at, part)
			continue
		}
		if strings.HasPrefix(target, "/") {
			at = nil
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return "/" + strings.Join(at, "/")
}

// within says p is dir or beneath it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

func TestResolve(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"in", "sub"}, {"out", "../x"}, {"sub", "."}, {"deep", "in/../../y"}, {"loop", "loop"}} {
		if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	for name, inside := range map[string]bool{"in": true, "out": false, "deep": false, "loop": true, "sub": true} {
		if got := within(dir, resolve(filepath.Join(dir, name))); got != inside {
			t.Errorf("%s: inside %v (%s)", name, got, resolve(filepath.Join(dir, name)))
		}
	}
}
