// Package transfer copies files out of a training job's containers, as
// "kubectl cp" does: tar runs in the container through the exec subresource
// and its archive is unpacked locally, refusing every entry that would land
// outside the destination. A stream that breaks is resumed where it broke.
// When the job's pods are gone, a short-lived fetcher pod mounting the job's
// shared storage (--data) stands in for them. It is the engine of
// "easyai download".
package transfer

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// Defaults of a Request's retries and limits.
const (
	DefaultRetries = 5
	DefaultBackoff = time.Second
	MaxBackoff     = 30 * time.Second
	// DefaultIdleTimeout is how long a stream may send nothing before it
	// counts as broken.
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultMaxFiles is the most entries an archive may hold.
	DefaultMaxFiles = 1_000_000
)

// Source is what to download: the entry Name of the directory Dir of a
// container.
type Source struct {
	Namespace, Pod, Container string
	// Dir is where tar starts: relative to the container's working
	// directory, or absolute.
	Dir string
	// Name is the file or directory in Dir; "." for Dir itself.
	Name string
	// Confined: Dir is a sub-path of the working directory (a volume's
	// root) that tar enters only when no directory of it is a symbolic
	// link (enterScript); a fetcher pod mounting a whole storage volume.
	Confined bool
}

// Path is the source's path as the container sees it.
func (s Source) Path() string { return path.Join(s.Dir, s.Name) }

// SplitPath splits a remote path into the directory tar starts in, the
// entry it archives, and that entry's local name (scp's rule: a directory's
// last element is kept, "." and "/" are unpacked into the destination
// itself).
func SplitPath(p string) (dir, name, into string) {
	p = path.Clean(p)
	if p == "." || p == "/" {
		return p, ".", ""
	}
	return path.Dir(p), path.Base(p), path.Base(p)
}

// Progress is told the size expected (-1: unknown), then the bytes written
// so far as they grow (they may shrink when a file is restarted).
type Progress interface {
	Start(total int64)
	Set(written int64)
	Finish()
}

// Request is one download.
type Request struct {
	Executor remote.Executor
	Source   Source
	// LocalDir is where the download is written; it is made if missing.
	LocalDir string
	// Into is the local name of Source.Name under LocalDir; "" unpacks a
	// directory's content into LocalDir itself.
	Into string
	// Retries is how often a broken stream is resumed; Backoff the first
	// wait before that, doubling each time up to MaxBackoff.
	Retries int
	Backoff time.Duration
	// IdleTimeout is how long a stream may send no byte before it counts as
	// broken (0: DefaultIdleTimeout).
	IdleTimeout time.Duration
	// MaxBytes bounds the bytes written (0: the free space of LocalDir's
	// file system minus a margin, DefaultMaxBytes; < 0: no bound). MaxFiles bounds the
	// entries of the archive (0: DefaultMaxFiles; < 0: no bound).
	MaxBytes int64
	MaxFiles int
	// Warnings are written here, one line each (stderr).
	Warnings io.Writer
	Progress Progress
}

// Result is what a download wrote.
type Result struct {
	Files   int
	Bytes   int64
	Skipped int
	Retries int
	Elapsed time.Duration
}

// Download copies the source into the local directory.
func Download(ctx context.Context, req Request) (Result, error) {
	start := time.Now()
	var res Result
	if err := os.MkdirAll(req.LocalDir, 0o755); err != nil {
		return res, err
	}
	root, err := os.OpenRoot(req.LocalDir)
	if err != nil {
		return res, err
	}
	defer root.Close()
	if req.IdleTimeout <= 0 {
		req.IdleTimeout = DefaultIdleTimeout
	}
	x := downloadExtractor(root, req)
	total, err := remoteSize(ctx, req.Executor, req.Source, req.IdleTimeout)
	if err != nil {
		return res, err
	}
	progress := req.Progress
	if progress == nil {
		progress = noProgress{}
	}
	progress.Start(total)
	x.progress = func(int) { progress.Set(x.bytes) }

	r := &resumer{max: req.Retries, backoff: req.Backoff}
	var from resumePoint
	for {
		next, err := attempt(ctx, req, x, from)
		if err == nil {
			break
		}
		if err := r.again(ctx, err, "from "+req.Source.Pod, x.warn); err != nil {
			return x.result(r.retries, start), err
		}
		from = next
	}
	progress.Finish()
	return x.result(r.retries, start), nil
}

// downloadExtractor is the extractor of a download into root: its warnings
// go to req.Warnings; it writes at most req.MaxBytes (0: the free space
// of LocalDir's file system less a margin) and reads at most req.MaxFiles
// entries (0: DefaultMaxFiles).
func downloadExtractor(root *os.Root, req Request) *extractor {
	maxBytes, limitName := req.MaxBytes, "--max-bytes"
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes(req.LocalDir)
		limitName = fmt.Sprintf("the free space of %s less a margin (set --max-bytes to change it):", req.LocalDir)
	}
	maxFiles := req.MaxFiles
	if maxFiles == 0 {
		maxFiles = DefaultMaxFiles
	}
	warnings := req.Warnings
	if warnings == nil {
		warnings = io.Discard
	}
	x := newExtractor(root, req.Source.Name, req.Into,
		func(format string, args ...any) { fmt.Fprintf(warnings, format+"\n", args...) },
		nil)
	x.maxBytes, x.limitName, x.maxEntries = maxBytes, limitName, maxFiles
	return x
}

func (x *extractor) result(retries int, start time.Time) Result {
	return Result{Files: x.files, Bytes: x.bytes, Skipped: x.refused, Retries: retries, Elapsed: time.Since(start)}
}

type noProgress struct{}

func (noProgress) Start(int64) {}
func (noProgress) Set(int64)   {}
func (noProgress) Finish()     {}

// resumePoint is where an archive is read again after its stream broke:
// the offset of the last entry whose header arrived, and that header (the
// new stream must start with the same one, else the files changed and the
// archive is read from its start, skipping the files already written).
// The zero point is the archive's start.
type resumePoint struct {
	offset int64
	header *tar.Header
}

// brokenStream is an attempt that may be resumed.
type brokenStream struct{ err error }

func (e *brokenStream) Error() string { return e.err.Error() }
func (e *brokenStream) Unwrap() error { return e.err }

// errStopped ends the stream of an attempt from this side.
var errStopped = errors.New("download stopped")

// errArchiveChanged: the archive read again differs where it broke.
var errArchiveChanged = errors.New("the files changed since the stream broke; reading them again from the start")

// resumeScript runs tar and drops the first $3-1 bytes of its archive with
// tail, exiting with tar's status (or tail's, when tar succeeded): a
// pipeline's status is its last command's, and POSIX sh has no pipefail, so
// tar's status leaves the pipeline through fd 3 and the archive through fd 4.
const resumeScript = `exec 4>&1
s=$( { { tar cf - -C "$1" -- "$2"; echo $? >&3; } | tail -c +"$3" >&4; } 3>&1 ) || exit
exit "${s:-1}"`

// tarCommand archives the source to stdout, from offset on.
func tarCommand(s Source, offset int64) []string {
	if s.Confined {
		if offset == 0 {
			return confined(s.Dir, false, `exec tar cf - -C "$1" -- "$2"`, s.Name)
		}
		return confined(s.Dir, false, resumeScript, s.Name, strconv.FormatInt(offset+1, 10))
	}
	if offset == 0 {
		return []string{"tar", "cf", "-", "-C", s.Dir, "--", s.Name}
	}
	// tar writes the same archive again for unchanged files; tail drops
	// what was received (its offset counts from 1).
	return []string{"sh", "-c", resumeScript, "sh", s.Dir, s.Name, strconv.FormatInt(offset+1, 10)}
}

// attempt reads the archive once, from a resume point. The error is a
// *brokenStream, with where to resume, when the stream broke.
func attempt(ctx context.Context, req Request, x *extractor, from resumePoint) (resumePoint, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	stderr := &tailBuffer{max: 64 << 10}
	// A stream that sends nothing for IdleTimeout is broken: it is ended
	// here and resumed.
	idle := time.AfterFunc(req.IdleTimeout, func() {
		pw.CloseWithError(&idleError{req.IdleTimeout})
		cancel()
	})
	defer idle.Stop()
	execErr := make(chan error, 1)
	go func() {
		err := req.Executor.Exec(ctx, req.Source.Namespace, req.Source.Pod, req.Source.Container,
			tarCommand(req.Source, from.offset), remote.Streams{Stdout: pw, Stderr: stderr})
		pw.CloseWithError(err)
		execErr <- err
	}()

	at, failure := readArchive(&countingReader{r: pr, n: from.offset, idle: idle, timeout: req.IdleTimeout}, x, from)
	if failure == nil {
		// The archive is complete; what follows is tar's padding.
		_, _ = io.Copy(io.Discard, pr)
	}
	pr.CloseWithError(errStopped)
	cancel()
	err := <-execErr
	if errors.Is(err, errStopped) || (failure != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil) {
		err = nil // this side stopped reading
	}
	err = attemptError(req, x, from, failure, err, stderr)
	if errors.Is(err, errArchiveChanged) {
		// The files changed since the stream broke: read them from the start.
		at = resumePoint{}
	}
	return at, err
}

// readArchive writes the archive's entries through x until its end or a
// failure. at is the last entry whose header arrived: a broken stream
// resumes there, so that the new stream's first header can be checked
// (when it is not the one it broke at, the failure is errArchiveChanged).
// A failure of the stream itself is a *streamError.
func readArchive(cr *countingReader, x *extractor, from resumePoint) (at resumePoint, failure error) {
	tr := tar.NewReader(cr)
	at = from
	for first := true; ; first = false {
		// Entries start on 512-byte blocks; the last one's content was read
		// to its end, its padding not yet.
		start := (cr.n + 511) &^ 511
		hdr, err := tr.Next()
		if first && from.offset > 0 && (err == io.EOF || err == nil && !sameEntry(hdr, from.header)) {
			return resumePoint{}, errArchiveChanged
		}
		if err == io.EOF && cr.n == start {
			// No end-of-archive blocks: the stream stopped between entries.
			err = errors.New("the archive ended without its end marker")
		}
		if err == io.EOF {
			return at, nil
		}
		if err != nil {
			return at, &streamError{err}
		}
		at = resumePoint{offset: start, header: hdr}
		if err := x.entry(hdr, tr); err != nil {
			return at, err
		}
		if isSparse(hdr) {
			// Refused; reading it would expand its holes. Next skips the
			// bytes it takes in the archive.
			continue
		}
		if _, err := io.Copy(io.Discard, tr); err != nil {
			return at, &streamError{err}
		}
	}
}

// attemptError is the error of an attempt that read the archive to its end
// (failure nil) or failed on this side (failure); execErr is tar's exec's
// (nil when this side stopped reading), stderr tar's. A stream to resume
// is a *brokenStream.
func attemptError(req Request, x *extractor, from resumePoint, failure, execErr error, stderr *tailBuffer) error {
	where := req.Source.Pod + ":" + req.Source.Path()
	if req.Source.Confined {
		if cerr := confinementError(execErr, stderr.String(), where); cerr != nil {
			return cerr
		}
	}
	if failure == nil {
		return tarEndError(where, x, execErr, stderr)
	}
	return readError(req.LocalDir, where, from, failure, execErr, stderr)
}

// tarEndError is the error of an archive read to its end: none when tar
// succeeded, or when the stream ended after every entry, or when tar only
// says files changed as it read them (a warning); tar's own otherwise.
func tarEndError(where string, x *extractor, execErr error, stderr *tailBuffer) error {
	switch {
	case execErr == nil:
		return nil
	case exitStatus(execErr) == 1:
		// GNU tar's "some files differ": a file changed while it was read
		// (usual for a job still writing). Every byte arrived.
		x.warn("Warning: %s", changedWhileRead(where, stderr.String()))
		return nil
	case remoteExited(execErr):
		return fmt.Errorf("tar in %s reported an error: %s", where, remoteMessage(execErr, stderr))
	}
	return nil // every entry arrived before the stream ended
}

// readError is the error of an attempt that failed on this side (failure)
// writing into localDir or reading the stream: a limit reached and a local
// write are final, as is tar's failure; a stream that broke, or whose
// archive changed since it broke, is resumed (*brokenStream).
func readError(localDir, where string, from resumePoint, failure, execErr error, stderr *tailBuffer) error {
	if errors.Is(failure, errArchiveChanged) {
		return &brokenStream{failure}
	}
	var limit *limitError
	if errors.As(failure, &limit) {
		return limit
	}
	var se *streamError
	if errors.As(failure, &se) && errors.Is(se.err, tar.ErrHeader) {
		if from.offset == 0 {
			return fmt.Errorf("tar in %s wrote no valid archive: %w", where, se.err)
		}
		// The archive is not the same where it broke: files changed.
		return &brokenStream{errArchiveChanged}
	}
	switch {
	case se == nil:
		return fmt.Errorf("writing to %s: %w", localDir, failure)
	case remoteExited(execErr):
		return fmt.Errorf("tar in %s failed: %s", where, remoteMessage(execErr, stderr))
	case execErr != nil:
		return &brokenStream{execErr}
	}
	return &brokenStream{se.err}
}

// sameEntry says two headers describe the same entry.
func sameEntry(a, b *tar.Header) bool {
	return a.Name == b.Name && a.Typeflag == b.Typeflag && a.Size == b.Size &&
		a.Linkname == b.Linkname && a.ModTime.Unix() == b.ModTime.Unix()
}

// kwok, and other servers that lose the typed status, report a command's
// non-zero exit only in the error's message.
var exitStatusMessage = regexp.MustCompile(`exit status (\d+)$`)

// exitStatus is the remote command's exit status; -1 when err is not one.
func exitStatus(err error) int {
	if err == nil {
		return -1
	}
	if code, ok := remote.ExitCode(err); ok {
		return code
	}
	if m := exitStatusMessage.FindStringSubmatch(err.Error()); m != nil {
		if code, err := strconv.Atoi(m[1]); err == nil {
			return code
		}
	}
	return -1
}

// changedFile is GNU tar's message for a file that changed as it read it.
var changedFile = regexp.MustCompile(`(?m)^tar: (.+): file changed as we read it$`)

// changedWhileRead is the warning for tar's exit status 1, naming the files
// it said changed.
func changedWhileRead(where, stderr string) string {
	var names []string
	for _, m := range changedFile.FindAllStringSubmatch(stderr, -1) {
		names = append(names, strconv.Quote(m[1]))
	}
	if len(names) == 0 {
		msg := strings.TrimSpace(stderr)
		if msg == "" {
			msg = "no message"
		}
		return fmt.Sprintf("tar in %s exited with status 1 after sending every file (%s); a file may have changed while it was read", where, msg)
	}
	return fmt.Sprintf("tar in %s says files changed while it read them; their copies may mix old and new content: %s", where, strings.Join(names, ", "))
}

// remoteExited says err is the remote command's non-zero exit, not a
// broken connection.
func remoteExited(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := remote.ExitCode(err); ok {
		return true
	}
	return exitStatusMessage.MatchString(err.Error())
}

func remoteMessage(err error, stderr *tailBuffer) string {
	msg := strings.TrimSpace(stderr.String())
	if msg == "" {
		return err.Error()
	}
	// The container wrote it: one line of at most 200 characters in the
	// error, the whole at -v 4.
	klog.V(4).InfoS("the remote command's stderr", "stderr", msg)
	return cutLine(lastLine(msg, msg))
}

// maxRemoteLine is how much of a remote command's stderr an error shows.
const maxRemoteLine = 200

// cutLine is s made one line (control characters as spaces) and cut at
// maxRemoteLine characters.
func cutLine(s string) string {
	s = jobmodel.OneLine(s)
	if r := []rune(s); len(r) > maxRemoteLine {
		s = string(r[:maxRemoteLine]) + "…"
	}
	return s
}

// remoteSize is the source's size in bytes as du counts it, -1 when du
// cannot tell; a source that does not exist is a not-found error.
func remoteSize(ctx context.Context, e remote.Executor, s Source, timeout time.Duration) (int64, error) {
	p := s.Path()
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for _, flag := range []string{"-sb", "-sk"} {
		var out bytes.Buffer
		stderr := &tailBuffer{max: 4 << 10}
		err := e.Exec(ctx, s.Namespace, s.Pod, s.Container, []string{"du", flag, "--", p}, remote.Streams{Stdout: &out, Stderr: stderr})
		if strings.Contains(stderr.String(), "No such file or directory") {
			return 0, exit.NotFoundErrorf("%s:%s: no such file or directory", s.Pod, p)
		}
		if parent.Err() != nil {
			return 0, parent.Err()
		}
		if ctx.Err() != nil {
			return -1, nil // du took too long: the size stays unknown
		}
		if err != nil {
			continue // busybox's du has no -b; a container may have no du at all
		}
		fields := strings.Fields(out.String())
		if len(fields) == 0 {
			return -1, nil
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return -1, nil
		}
		if flag == "-sk" {
			n *= 1024
		}
		return n, nil
	}
	return -1, nil
}

// countingReader counts the bytes of the archive read, from its start, and
// restarts the idle timer, when given, on every read.
type countingReader struct {
	r       io.Reader
	n       int64
	idle    *time.Timer
	timeout time.Duration
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.idle != nil {
		// Only the time spent waiting for the stream counts, not writing.
		if !c.idle.Reset(c.timeout) {
			// It fired already: the pipe is closed with the idle error.
			c.idle.Stop()
		}
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// idleError is a stream that sent nothing for a while.
type idleError struct{ d time.Duration }

func (e *idleError) Error() string {
	return fmt.Sprintf("no data arrived for %s (--idle-timeout)", e.d)
}

// tailBuffer keeps the last max bytes written to it (a remote stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
