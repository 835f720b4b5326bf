package transfer

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// entry is one entry of a test archive.
type entry struct {
	name, link, content string
	typ                 byte
	size                int       // content of this many pseudo-random bytes instead
	mtime               time.Time // default: mtime
}

var mtime = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func blob(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) ^ seed
	}
	return b
}

// archive builds a tar stream as tar in a container would write it.
func archive(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i, e := range entries {
		data := []byte(e.content)
		if e.size > 0 {
			data = blob(e.size, byte(i))
		}
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		modTime := e.mtime
		if modTime.IsZero() {
			modTime = mtime
		}
		hdr := &tar.Header{Name: e.name, Linkname: e.link, Typeflag: typ, Mode: 0o644, ModTime: modTime}
		if typ == tar.TypeDir {
			hdr.Mode = 0o755
		}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write(data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fakeContainer serves tar (and du) from archives: attempt i of tar gets
// archives[min(i, last)] and breaks after breaks[i] bytes, when given (-1:
// never). "sh -c 'tar | tail -c +N'" is served from byte N on.
type fakeContainer struct {
	mu       sync.Mutex
	archives [][]byte
	breaks   []int
	// tarErr and stderr are what every tar returns and prints.
	tarErr   error
	stderr   string
	duErr    string
	commands [][]string
	attempts int
	// block makes tar wait for its context after writing this many bytes.
	block int
}

func (f *fakeContainer) Exec(ctx context.Context, _, _, _ string, command []string, s remote.Streams) error {
	f.mu.Lock()
	f.commands = append(f.commands, command)
	f.mu.Unlock()
	if command[0] == "du" {
		if f.duErr != "" {
			fmt.Fprintln(s.Stderr, f.duErr)
			return errors.New("exit status 1")
		}
		fmt.Fprintf(s.Stdout, "%d\t%s\n", len(f.archives[0]), command[len(command)-1])
		return nil
	}
	f.mu.Lock()
	i := f.attempts
	f.attempts++
	f.mu.Unlock()
	data := f.archives[min(i, len(f.archives)-1)]
	if command[0] == "sh" {
		from, err := strconv.Atoi(command[len(command)-1])
		if err != nil {
			return err
		}
		data = data[from-1:]
	}
	if f.stderr != "" {
		fmt.Fprintln(s.Stderr, f.stderr)
	}
	if f.block > 0 {
		if _, err := s.Stdout.Write(data[:f.block]); err != nil {
			return err
		}
		<-ctx.Done()
		return ctx.Err()
	}
	if i < len(f.breaks) && f.breaks[i] >= 0 && f.breaks[i] < len(data) {
		if _, err := s.Stdout.Write(data[:f.breaks[i]]); err != nil {
			return err
		}
		return errors.New("error reading from stream: connection reset by peer")
	}
	if _, err := s.Stdout.Write(data); err != nil {
		return err
	}
	return f.tarErr
}

func (f *fakeContainer) tarCommands() []string {
	var out []string
	for _, c := range f.commands {
		if c[0] != "du" {
			out = append(out, strings.Join(c, " "))
		}
	}
	return out
}

// download runs a download of "." from the fake into a fresh directory.
func download(t *testing.T, f *fakeContainer, retries int) (string, Result, string, error) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dest")
	var warnings bytes.Buffer
	res, err := Download(context.Background(), Request{
		Executor: f, Source: Source{Namespace: "ns", Pod: "job-worker-0", Dir: ".", Name: "."},
		LocalDir: dir, Retries: retries, Warnings: &warnings,
	})
	return dir, res, warnings.String(), err
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tree lists the files under dir, as "path" for directories, "path -> target"
// for symlinks and "path: size" for files.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out = append(out, rel+" -> "+target)
		case d.IsDir():
			out = append(out, rel+"/")
		default:
			out = append(out, fmt.Sprintf("%s: %d", rel, info.Size()))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestDownloadUnpacksTheArchive(t *testing.T) {
	f := &fakeContainer{archives: [][]byte{archive(t,
		entry{name: "./", typ: tar.TypeDir},
		entry{name: "./ckpt/", typ: tar.TypeDir},
		entry{name: "./ckpt/model.pt", size: 3 << 20},
		entry{name: "./ckpt/latest", typ: tar.TypeSymlink, link: "model.pt"},
		entry{name: "./ckpt/copy.pt", typ: tar.TypeLink, link: "./ckpt/model.pt"},
		entry{name: "./log.txt", content: "step 1\n"},
	)}}
	dir, res, warnings, err := download(t, f, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ckpt/", "ckpt/copy.pt: 3145728", "ckpt/latest -> model.pt", "ckpt/model.pt: 3145728", "log.txt: 7"}
	if got := tree(t, dir); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !bytes.Equal(readFile(t, filepath.Join(dir, "ckpt/model.pt")), blob(3<<20, 2)) {
		t.Error("model.pt differs")
	}
	if fi, err := os.Stat(filepath.Join(dir, "log.txt")); err != nil || !fi.ModTime().Equal(mtime) || fi.Mode().Perm() != 0o644 {
		t.Errorf("log.txt: %v %v", fi, err)
	}
	if res.Files != 3 || res.Bytes != 3<<20+7 || res.Skipped != 0 || res.Retries != 0 || warnings != "" {
		t.Errorf("result %+v, warnings %q", res, warnings)
	}
	if got := f.tarCommands(); len(got) != 1 || got[0] != "tar cf - -C . -- ." {
		t.Errorf("commands %q", got)
	}
}

func TestSplitPath(t *testing.T) {
	for _, tt := range []struct{ in, dir, name, into string }{
		{".", ".", ".", ""},
		{"./", ".", ".", ""},
		{"/", "/", ".", ""},
		{"outputs", ".", "outputs", "outputs"},
		{"outputs/", ".", "outputs", "outputs"},
		{"logs/train.log", "logs", "train.log", "train.log"},
		{"/mnt/data/run-1/", "/mnt/data", "run-1", "run-1"},
	} {
		dir, name, into := SplitPath(tt.in)
		if dir != tt.dir || name != tt.name || into != tt.into {
			t.Errorf("SplitPath(%q) = %q %q %q, want %q %q %q", tt.in, dir, name, into, tt.dir, tt.name, tt.into)
		}
	}
}

func TestDownloadIntoANamedDirectory(t *testing.T) {
	f := &fakeContainer{archives: [][]byte{archive(t,
		entry{name: "outputs/", typ: tar.TypeDir},
		entry{name: "outputs/a.txt", content: "a"},
		entry{name: "elsewhere.txt", content: "not asked for"},
	)}}
	dir := t.TempDir()
	var warnings bytes.Buffer
	_, err := Download(context.Background(), Request{
		Executor: f, Source: Source{Pod: "p", Dir: "/work", Name: "outputs"}, LocalDir: dir, Into: "outputs", Warnings: &warnings,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tree(t, dir), ","); got != "outputs/,outputs/a.txt: 1" {
		t.Errorf("tree %s", got)
	}
	if !strings.Contains(warnings.String(), `"elsewhere.txt": not under the requested path "outputs"`) {
		t.Errorf("warnings %q", warnings.String())
	}
	if f.commands[0][0] != "du" || strings.Join(f.commands[0][1:], " ") != "-sb -- /work/outputs" {
		t.Errorf("du command %q", f.commands[0])
	}
}

// offsets are where each entry of a tar stream starts.
func offsets(t *testing.T, data []byte) map[string]int64 {
	t.Helper()
	cr := &countingReader{r: bytes.NewReader(data)}
	tr := tar.NewReader(cr)
	out := map[string]int64{}
	for {
		at := (cr.n + 511) &^ 511
		hdr, err := tr.Next()
		if err != nil {
			return out
		}
		out[hdr.Name] = at
		if _, err := bytes.NewBuffer(nil).ReadFrom(tr); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDownloadResumesABrokenStreamWhereItBroke(t *testing.T) {
	data := archive(t,
		entry{name: "./a.bin", size: 300 << 10},
		entry{name: "./b.bin", size: 300 << 10},
		entry{name: "./c.bin", size: 300 << 10},
	)
	at := offsets(t, data)
	// Breaks in the middle of b, then in the middle of c (counted from
	// where the second stream starts, b's header).
	f := &fakeContainer{archives: [][]byte{data}, breaks: []int{int(at["./b.bin"]) + 1000, int(at["./c.bin"]-at["./b.bin"]) + 5000, -1}}
	dir, res, warnings, err := download(t, f, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"a.bin", "b.bin", "c.bin"} {
		if !bytes.Equal(readFile(t, filepath.Join(dir, name)), blob(300<<10, byte(i))) {
			t.Errorf("%s differs", name)
		}
	}
	want := []string{
		"tar cf - -C . -- .",
		fmt.Sprintf(`sh -c %s sh . . %d`, resumeScript, at["./b.bin"]+1),
		fmt.Sprintf(`sh -c %s sh . . %d`, resumeScript, at["./c.bin"]+1),
	}
	if got := f.tarCommands(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Files != 3 || res.Bytes != 3*300<<10 || res.Retries != 2 {
		t.Errorf("result %+v", res)
	}
	if n := strings.Count(warnings, "Warning: the stream from job-worker-0 broke (error reading from stream: connection reset by peer); resuming"); n != 2 {
		t.Errorf("warnings %q", warnings)
	}
	if got := strings.Join(tree(t, dir), ","); got != "a.bin: 307200,b.bin: 307200,c.bin: 307200" {
		t.Errorf("tree %s (no partial file may be left)", got)
	}
}

func TestDownloadStartsOverSkippingCompleteFilesWhenTheArchiveChanged(t *testing.T) {
	before := archive(t,
		entry{name: "./a.bin", size: 100 << 10},
		entry{name: "./b.bin", size: 100 << 10},
	)
	// a.bin grew: the archive after it moved.
	after := archive(t,
		entry{name: "./a.bin", size: 101 << 10},
		entry{name: "./b.bin", size: 100 << 10},
	)
	at := offsets(t, before)
	f := &fakeContainer{archives: [][]byte{before, after, after}, breaks: []int{int(at["./b.bin"]) + 600, -1, -1}}
	dir, res, warnings, err := download(t, f, 3)
	if err != nil {
		t.Fatal(err)
	}
	got := f.tarCommands()
	if len(got) != 3 || !strings.HasPrefix(got[1], "sh -c") || got[2] != "tar cf - -C . -- ." {
		t.Errorf("commands %q", got)
	}
	if !strings.Contains(warnings, "the files changed since the stream broke") {
		t.Errorf("warnings %q", warnings)
	}
	// a.bin changed size, so it was written again; b.bin arrived whole.
	if len(readFile(t, filepath.Join(dir, "a.bin"))) != 101<<10 || !bytes.Equal(readFile(t, filepath.Join(dir, "b.bin")), blob(100<<10, 1)) {
		t.Error("files differ")
	}
	if res.Files != 2 || res.Retries != 2 {
		t.Errorf("result %+v", res)
	}
}

func TestDownloadSkipsCompleteFilesWhenStartingOver(t *testing.T) {
	data := archive(t,
		entry{name: "./a.bin", size: 100 << 10},
		entry{name: "./b.bin", size: 100 << 10},
	)
	at := offsets(t, data)
	// The resumed stream does not start with b.bin's header: the archive is
	// read from its start again, and a.bin, complete, is not written again.
	other := append(append([]byte{}, data[:at["./b.bin"]]...), archive(t, entry{name: "./z", content: "z"})...)
	f := &fakeContainer{archives: [][]byte{data, other, data}, breaks: []int{int(at["./b.bin"]) + 600, -1, -1}}
	dir, res, _, err := download(t, f, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.tarCommands(); len(got) != 3 || got[2] != "tar cf - -C . -- ." {
		t.Errorf("commands %q", got)
	}
	if !bytes.Equal(readFile(t, filepath.Join(dir, "b.bin")), blob(100<<10, 1)) {
		t.Error("b.bin differs")
	}
	// Each file's bytes were written once: a.bin's again would count twice.
	if res.Files != 2 || res.Bytes != 200<<10 || res.Retries != 2 {
		t.Errorf("result %+v", res)
	}
	if got := strings.Join(tree(t, dir), ","); got != "a.bin: 102400,b.bin: 102400" {
		t.Errorf("tree %s", got)
	}
}

func TestDownloadGivesUpAfterItsRetries(t *testing.T) {
	data := archive(t, entry{name: "./a.bin", size: 100 << 10})
	f := &fakeContainer{archives: [][]byte{data}, breaks: []int{2000, 2000, 2000}}
	dir, res, _, err := download(t, f, 2)
	var broken *brokenStream
	if !errors.As(err, &broken) || !strings.Contains(err.Error(), "connection reset by peer") {
		t.Fatalf("err %v", err)
	}
	if len(f.tarCommands()) != 3 || res.Retries != 2 {
		t.Errorf("%d attempts, result %+v", len(f.tarCommands()), res)
	}
	if got := tree(t, dir); len(got) != 0 {
		t.Errorf("left behind %q", got)
	}
}

func TestDownloadDoesNotRetryWhenTarFails(t *testing.T) {
	f := &fakeContainer{archives: [][]byte{{}}, tarErr: errors.New("command terminated: exit status 2"), stderr: "tar: secret: Cannot open: Permission denied"}
	_, res, _, err := download(t, f, 3)
	if err == nil || !strings.Contains(err.Error(), "tar: secret: Cannot open: Permission denied") || res.Retries != 0 {
		t.Errorf("err %v, result %+v", err, res)
	}
	if len(f.tarCommands()) != 1 {
		t.Errorf("commands %q", f.tarCommands())
	}
}

func TestDownloadOfAMissingPath(t *testing.T) {
	f := &fakeContainer{archives: [][]byte{{}}, duErr: "du: cannot access 'nope': No such file or directory"}
	_, _, _, err := download(t, f, 3)
	if exit.Code(err) != exit.NotFound || !strings.Contains(err.Error(), "job-worker-0:.: no such file or directory") {
		t.Errorf("err %v", err)
	}
}

func TestDownloadStopsWhenCancelled(t *testing.T) {
	data := archive(t, entry{name: "./a.bin", size: 100 << 10})
	f := &fakeContainer{archives: [][]byte{data}, block: 4096}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	dir := filepath.Join(t.TempDir(), "dest")
	go func() {
		_, err := Download(ctx, Request{Executor: f, Source: Source{Pod: "p", Dir: ".", Name: "."}, LocalDir: dir, Retries: 5})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Download did not return after its context was cancelled")
	}
	if got := tree(t, dir); len(got) != 0 {
		t.Errorf("left behind %q", got)
	}
}

func TestDownloadResumesAtTheLastWholeHeaderWhenAHeaderBroke(t *testing.T) {
	data := archive(t,
		entry{name: "./a.bin", size: 10 << 10},
		entry{name: "./b.bin", size: 10 << 10},
		entry{name: "./c.bin", size: 10 << 10},
	)
	at := offsets(t, data)
	f := &fakeContainer{archives: [][]byte{data}, breaks: []int{int(at["./c.bin"]) + 100, -1}}
	dir, res, _, err := download(t, f, 1)
	if err != nil {
		t.Fatal(err)
	}
	// b's header is checked again; b itself is complete and skipped.
	if got := f.tarCommands(); len(got) != 2 || !strings.HasSuffix(got[1], fmt.Sprintf(" %d", at["./b.bin"]+1)) {
		t.Errorf("commands %q", got)
	}
	if res.Files != 3 || res.Bytes != 30<<10 || !bytes.Equal(readFile(t, filepath.Join(dir, "c.bin")), blob(10<<10, 2)) {
		t.Errorf("result %+v", res)
	}
}

func TestDownloadResumesAStreamThatStoppedBetweenEntries(t *testing.T) {
	data := archive(t, entry{name: "./a.bin", size: 1000}, entry{name: "./b.bin", size: 1000})
	at := offsets(t, data)
	// The first stream ends cleanly, exactly where b's header starts.
	f := &fakeContainer{archives: [][]byte{data[:at["./b.bin"]], data}}
	dir, res, warnings, err := download(t, f, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != 2 || res.Retries != 1 || !strings.Contains(warnings, "the archive ended without its end marker") {
		t.Errorf("result %+v, warnings %q", res, warnings)
	}
	if got := strings.Join(tree(t, dir), ","); got != "a.bin: 1000,b.bin: 1000" {
		t.Errorf("tree %s", got)
	}
}

// A remote command's stderr, which the container writes, is one line of at
// most 200 characters in an error: its last line, no control character.
func TestRemoteMessageIsOneShortLine(t *testing.T) {
	stderr := &tailBuffer{max: 64 << 10}
	fmt.Fprintf(stderr, "first\nlast \x1b[2J%s\n", strings.Repeat("x", 500))
	got := remoteMessage(errors.New("exit status 2"), stderr)
	if strings.ContainsAny(got, "\x1b\n") || len([]rune(got)) != maxRemoteLine+1 || !strings.HasPrefix(got, "last  [2Jxxx") {
		t.Errorf("%q", got)
	}
	if got := remoteMessage(errors.New("exit status 2"), &tailBuffer{max: 10}); got != "exit status 2" {
		t.Errorf("without stderr: %q", got)
	}
}
