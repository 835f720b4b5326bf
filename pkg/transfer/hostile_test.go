package transfer

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// hostileDownload unpacks one archive of the whole source into base/dest,
// beside base/outside, which holds a file; dest holds the user's .bashrc.
func hostileDownload(t *testing.T, data []byte, req Request) (dest, outside, warnings string, res Result, err error) {
	t.Helper()
	base := t.TempDir()
	dest, outside = filepath.Join(base, "dest"), filepath.Join(base, "outside")
	for _, d := range []string{dest, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dest, ".bashrc"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	if req.Executor == nil {
		req.Executor = &fakeContainer{archives: [][]byte{data}}
	}
	req.Source, req.LocalDir, req.Warnings = Source{Pod: "p", Dir: ".", Name: "."}, dest, &w
	res, err = Download(context.Background(), req)
	return dest, outside, w.String(), res, err
}

// The temporary file of an entry has a name the archive cannot choose: a
// symlink planted at NAME.easyai-partial is refused and not followed.
func TestAPlantedTemporaryFileSymlinkIsNotFollowed(t *testing.T) {
	data := archive(t,
		entry{name: "outputs/", typ: tar.TypeDir},
		entry{name: "outputs/x" + partialSuffix, typ: tar.TypeSymlink, link: "../.bashrc"},
		entry{name: "outputs/y" + partialSuffix + "-0123456789abcdef", content: "y"},
		entry{name: "outputs/x", content: "export EVIL=1"},
	)
	dest, _, warnings, res, err := hostileDownload(t, data, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if b := readFile(t, filepath.Join(dest, ".bashrc")); string(b) != "mine" {
		t.Errorf(".bashrc was overwritten: %q", b)
	}
	want := []string{".bashrc: 4", "outputs/", "outputs/x: 13"}
	if got := tree(t, dest); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("tree %q, want %q", got, want)
	}
	for _, name := range []string{"outputs/x" + partialSuffix, "outputs/y" + partialSuffix + "-0123456789abcdef"} {
		if !strings.Contains(warnings, fmt.Sprintf("Warning: skipped %q: names with %q are easyai's own temporary files", name, partialSuffix)) {
			t.Errorf("no warning for %s in %q", name, warnings)
		}
	}
	if res.Skipped != 2 || res.Files != 1 {
		t.Errorf("result %+v", res)
	}
}

// A hard link must point at a regular file this download wrote: not at a
// name the archive replaced with a symlink since.
func TestAHardLinkToAnEntryReplacedByASymlinkIsRefused(t *testing.T) {
	data := archive(t,
		entry{name: "a/", typ: tar.TypeDir},
		entry{name: "a/c", content: "file"},
		entry{name: "a/c", typ: tar.TypeSymlink, link: "../secret"},
		entry{name: "h", typ: tar.TypeLink, link: "a/c"},
	)
	dest, outside, warnings, _, err := hostileDownload(t, data, Request{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".bashrc: 4", "a/", "a/c -> ../secret"}
	if got := tree(t, dest); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("tree %q, want %q", got, want)
	}
	if !strings.Contains(warnings, `Warning: skipped "h": its link target "a/c" is not a file this download wrote`) {
		t.Errorf("warnings %q", warnings)
	}
	if got := tree(t, outside); strings.Join(got, ",") != "secret: 6" {
		t.Errorf("outside %q", got)
	}
}

// gnuSparse is an archive of one old-GNU-format sparse file of realSize
// bytes, of which only the last 512 are stored: about 2 KiB.
func gnuSparse(t testing.TB, name string, realSize int64) []byte {
	t.Helper()
	hdr := make([]byte, 512)
	octal := func(b []byte, n int64) { copy(b, fmt.Sprintf("%0*o", len(b)-1, n)) }
	copy(hdr[0:], name)
	octal(hdr[100:108], 0o644)
	octal(hdr[108:116], 0)
	octal(hdr[116:124], 0)
	octal(hdr[124:136], 512) // bytes stored
	octal(hdr[136:148], mtime.Unix())
	hdr[156] = tar.TypeGNUSparse
	copy(hdr[257:], "ustar  \x00")
	// One data region: 512 bytes at the end.
	octal(hdr[386:398], realSize-512)
	octal(hdr[398:410], 512)
	octal(hdr[483:495], realSize)
	copy(hdr[148:156], "        ")
	var sum int64
	for _, b := range hdr {
		sum += int64(b)
	}
	copy(hdr[148:156], fmt.Sprintf("%06o\x00 ", sum))
	out := append(hdr, bytes.Repeat([]byte{'z'}, 512)...)
	return append(out, make([]byte, 1024)...)
}

func TestSparseEntriesAreRefused(t *testing.T) {
	data := append(gnuSparse(t, "big.img", 64<<20)[:1024], archive(t, entry{name: "ok", content: "ok"})...)
	if len(data) > 4<<10 {
		t.Fatalf("the archive is %d bytes", len(data))
	}
	// The archive is readable, and its entry is 64 MiB once expanded.
	hdr, err := tar.NewReader(bytes.NewReader(data)).Next()
	if err != nil || hdr.Size != 64<<20 || !isSparse(hdr) {
		t.Fatalf("the test archive: %+v %v", hdr, err)
	}
	dest, _, warnings, res, err := hostileDownload(t, data, Request{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dest); strings.Join(got, ",") != ".bashrc: 4,ok: 2" {
		t.Errorf("tree %q", got)
	}
	if !strings.Contains(warnings, `Warning: skipped "big.img": sparse files are not copied`) || res.Bytes != 2 {
		t.Errorf("warnings %q, result %+v", warnings, res)
	}
	if !isSparse(&tar.Header{Typeflag: tar.TypeReg, PAXRecords: map[string]string{"GNU.sparse.major": "1"}}) {
		t.Error("a PAX sparse header is not seen as sparse")
	}
}

func TestMaxBytesStopsTheDownload(t *testing.T) {
	data := archive(t, entry{name: "a.bin", size: 600}, entry{name: "b.bin", size: 600}, entry{name: "c.bin", size: 10})
	dest, _, _, res, err := hostileDownload(t, data, Request{MaxBytes: 1000, Retries: 3})
	var limit *limitError
	if !errors.As(err, &limit) || exit.Code(err) != exit.Error ||
		err.Error() != `"b.bin" (600 bytes) would take the download past --max-bytes 1000 (600 bytes written); it stopped there` {
		t.Fatalf("err %v", err)
	}
	if got := tree(t, dest); strings.Join(got, ",") != ".bashrc: 4,a.bin: 600" || res.Retries != 0 {
		t.Errorf("tree %q, result %+v", got, res)
	}
	if free := DefaultMaxBytes(dest); free <= 0 {
		t.Errorf("the default bound of %s is %d", dest, free)
	}
}

func TestMaxFilesStopsTheDownload(t *testing.T) {
	var entries []entry
	for i := range 5 {
		entries = append(entries, entry{name: fmt.Sprintf("f%d", i), content: "x"})
	}
	_, _, _, _, err := hostileDownload(t, archive(t, entries...), Request{MaxFiles: 3})
	if err == nil || err.Error() != `the archive holds more than --max-files 3 entries; the download stopped at "f3"` {
		t.Fatalf("err %v", err)
	}
	// An entry named again (tar lists a hard-linked or appended file twice)
	// counts once.
	entries = []entry{{name: "a", content: "1"}, {name: "a", content: "2"}, {name: "b", content: "x"}}
	if _, _, _, _, err := hostileDownload(t, archive(t, entries...), Request{MaxFiles: 2}); err != nil {
		t.Fatal(err)
	}
}

// GNU tar exits 1 when a file changed as it read it, usual while a job
// writes: every byte arrived, so it is a warning naming the files.
func TestTarExitStatusOneIsAWarning(t *testing.T) {
	data := archive(t, entry{name: "./a.log", content: "step 1\n"}, entry{name: "./b.log", content: "step 2\n"})
	f := &fakeContainer{archives: [][]byte{data}, tarErr: errors.New("command terminated with non-zero exit code: exit status 1"),
		stderr: "tar: ./a.log: file changed as we read it\ntar: ./b.log: file changed as we read it"}
	dir, res, warnings, err := download(t, f, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tree(t, dir), ","); got != "a.log: 7,b.log: 7" || res.Files != 2 || res.Retries != 0 {
		t.Errorf("tree %s, result %+v", got, res)
	}
	want := `Warning: tar in job-worker-0:. says files changed while it read them; their copies may mix old and new content: "./a.log", "./b.log"` + "\n"
	if warnings != want {
		t.Errorf("warnings %q\nwant %q", warnings, want)
	}
}

// shellContainer runs the resumed stream's command with this machine's sh
// and tail, and a tar that prints the archive and exits with status; the
// first stream breaks after brk bytes.
type shellContainer struct {
	data   []byte
	brk    int
	bin    string
	calls  int
	status int
}

func newShellContainer(t *testing.T, data []byte, brk, status int) *shellContainer {
	t.Helper()
	bin := t.TempDir()
	archivePath := filepath.Join(bin, "archive.tar")
	if err := os.WriteFile(archivePath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf("#!/bin/sh\ncat %q\necho 'tar: ./b.bin: file changed as we read it' >&2\nexit %d\n", archivePath, status)
	if err := os.WriteFile(filepath.Join(bin, "tar"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return &shellContainer{data: data, brk: brk, bin: bin, status: status}
}

func (c *shellContainer) Exec(ctx context.Context, _, _, _ string, command []string, s remote.Streams) error {
	switch command[0] {
	case "du":
		fmt.Fprintf(s.Stdout, "%d\t.\n", len(c.data))
		return nil
	case "tar":
		c.calls++
		_, _ = s.Stdout.Write(c.data[:c.brk])
		return errors.New("error reading from stream: connection reset by peer")
	}
	c.calls++
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Env = append(os.Environ(), "PATH="+c.bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.Stdout, cmd.Stderr = s.Stdout, s.Stderr
	return cmd.Run()
}

// A resumed stream pipes tar into tail: its status is tar's, not tail's.
func TestAResumedStreamReportsTarsStatus(t *testing.T) {
	if _, err := exec.LookPath("tail"); err != nil {
		t.Skip("no tail on this machine")
	}
	data := archive(t, entry{name: "./a.bin", size: 10 << 10}, entry{name: "./b.bin", size: 10 << 10})
	at := offsets(t, data)
	for _, tt := range []struct {
		status int
		err    string
		warn   string
	}{
		{0, "", ""},
		{1, "", `Warning: tar in p:. says files changed while it read them; their copies may mix old and new content: "./b.bin"`},
		{2, "tar in p:. reported an error: tar: ./b.bin: file changed as we read it", ""},
	} {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			c := newShellContainer(t, data, int(at["./b.bin"])+700, tt.status)
			dest, _, warnings, res, err := hostileDownload(t, nil, Request{Executor: c, Retries: 1})
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.calls != 2 || res.Retries != 1 {
				t.Errorf("%d streams, result %+v", c.calls, res)
			}
			if !bytes.Equal(readFile(t, filepath.Join(dest, "b.bin")), blob(10<<10, 1)) {
				t.Error("b.bin differs")
			}
			if tt.warn != "" && !strings.Contains(warnings, tt.warn) {
				t.Errorf("warnings %q\nwant %q", warnings, tt.warn)
			}
			if tt.warn == "" && strings.Contains(warnings, "changed") {
				t.Errorf("warnings %q", warnings)
			}
		})
	}
	// The script keeps tail's failure when tar succeeded.
	out, err := exec.Command("sh", "-c", resumeScript, "sh", ".", ".", "not-a-number").CombinedOutput()
	if err == nil {
		t.Errorf("tail's failure was hidden: %s", out)
	}
}

// A file rewritten at the same size is written again on a restart from
// zero: its modification time changed.
func TestARestartRewritesAFileChangedAtTheSameSize(t *testing.T) {
	later := mtime.Add(time.Hour)
	before := archive(t, entry{name: "./a.txt", content: "old content"}, entry{name: "./b.bin", size: 100 << 10})
	after := archive(t, entry{name: "./a.txt", content: "new content", mtime: later}, entry{name: "./c.bin", size: 100 << 10})
	at := offsets(t, before)
	f := &fakeContainer{archives: [][]byte{before, after, after}, breaks: []int{int(at["./b.bin"]) + 600, -1, -1}}
	dir, _, _, err := download(t, f, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dir); strings.Join(got, ",") != "a.txt: 11,c.bin: 102400" {
		t.Errorf("tree %q", got)
	}
	if b := readFile(t, filepath.Join(dir, "a.txt")); string(b) != "new content" {
		t.Errorf("a.txt is %q", b)
	}
	if fi, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil || !fi.ModTime().Equal(later) {
		t.Errorf("a.txt: %v %v", fi, err)
	}
}

// A stream that sends nothing for the idle timeout is resumed, then fails.
func TestAnIdleStreamIsRetriedThenFails(t *testing.T) {
	data := archive(t, entry{name: "./a.bin", size: 100 << 10})
	f := &fakeContainer{archives: [][]byte{data}, block: 4096}
	done := make(chan struct{})
	var res Result
	var warnings bytes.Buffer
	var err error
	go func() {
		defer close(done)
		res, err = Download(context.Background(), Request{
			Executor: f, Source: Source{Pod: "p", Dir: ".", Name: "."}, LocalDir: t.TempDir(),
			Retries: 2, Backoff: time.Millisecond, IdleTimeout: 200 * time.Millisecond, Warnings: &warnings,
		})
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the download hangs on an idle stream")
	}
	var broken *brokenStream
	if !errors.As(err, &broken) || err.Error() != "no data arrived for 200ms (--idle-timeout)" || res.Retries != 2 || len(f.tarCommands()) != 3 {
		t.Errorf("err %v, result %+v, commands %q", err, res, f.tarCommands())
	}
	if n := strings.Count(warnings.String(), "Warning: the stream from p broke (no data arrived for 200ms (--idle-timeout)); resuming"); n != 2 {
		t.Errorf("warnings %q", warnings.String())
	}
}

// trickle sends its archive in small pieces, pause apart.
type trickle struct {
	data  []byte
	pause time.Duration
}

func (c trickle) Exec(ctx context.Context, _, _, _ string, command []string, s remote.Streams) error {
	if command[0] == "du" {
		return errors.New("exit status 1")
	}
	for b := c.data; len(b) > 0; b = b[min(len(b), 2048):] {
		if _, err := s.Stdout.Write(b[:min(len(b), 2048)]); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(c.pause):
		}
	}
	return nil
}

// A slow stream that keeps sending is not idle, however long it takes.
func TestASlowStreamIsNotIdle(t *testing.T) {
	data := archive(t, entry{name: "./a.bin", size: 20 << 10})
	dest, _, _, res, err := hostileDownload(t, nil, Request{Executor: trickle{data, 40 * time.Millisecond}, IdleTimeout: 150 * time.Millisecond})
	if err != nil || res.Retries != 0 || !bytes.Equal(readFile(t, filepath.Join(dest, "a.bin")), blob(20<<10, 0)) {
		t.Errorf("err %v, result %+v", err, res)
	}
}

// Without --max-bytes, an entry larger than the destination's free space
// stops the download before a byte of it is written.
func TestTheFreeSpaceBoundsTheDownload(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	// Only the header: its size is checked before its content is read.
	if err := tw.WriteHeader(&tar.Header{Name: "huge.bin", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1 << 60, ModTime: mtime}); err != nil {
		t.Fatal(err)
	}
	dest, _, _, res, err := hostileDownload(t, buf.Bytes(), Request{Retries: 2})
	var limit *limitError
	if !errors.As(err, &limit) || !strings.Contains(err.Error(), `"huge.bin" (1152921504606846976 bytes) would take the download past the free space of `+dest+" less a margin (set --max-bytes to change it): ") {
		t.Fatalf("err %v", err)
	}
	if got := tree(t, dest); strings.Join(got, ",") != ".bashrc: 4" || res.Retries != 0 {
		t.Errorf("tree %q, result %+v", got, res)
	}
}
