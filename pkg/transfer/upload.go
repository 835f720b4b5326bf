package transfer

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// Volume is a storage volume (submit --storage) and where the helper pods
// that mount it run: an uploader pod mounts its root at VolumeRoot,
// writable, and every sub-path it is given is relative to that root.
type Volume struct {
	Kube kubernetes.Interface
	// Config builds the executor when Executor is nil (exec through the
	// API server).
	Config    *rest.Config
	Executor  remote.Executor
	Namespace string
	Storage   storage.Spec
	// JobName, when given, names the pod and labels it (the job need not
	// exist: the pod is owned by nothing).
	JobName   string
	Placement Placement
	// Image of the pod: it needs sh, sleep, mkdir, tar, find and stat
	// ("": DefaultFetcherImage).
	Image string
	// PodTimeout is how long to wait for the pod to run (0:
	// DefaultFetcherTimeout); Deadline bounds its life (0:
	// DefaultFetcherDeadline).
	PodTimeout time.Duration
	Deadline   time.Duration
	Now        func() time.Time
	// Started, when set, is told the pod's name once it runs.
	Started func(pod string)
}

// UploadRequest is one upload onto a storage volume.
type UploadRequest struct {
	Volume
	// SubPath is the directory written, relative to the volume's root
	// (storage.Values.OnVolume); it and its parents are made if missing.
	// None of its directories may be a symbolic link.
	SubPath string
	// Local is the file or directory uploaded.
	Local string
	// Into is Local's name below SubPath; "" puts a directory's content
	// into SubPath itself (a file keeps its base name).
	Into string
	// MaxBytes bounds the bytes of the files sent (<= 0: no bound);
	// MaxFiles the entries (0: DefaultMaxFiles; < 0: no bound). Both are
	// checked before the pod is made.
	MaxBytes int64
	MaxFiles int
	// Retries is how often a broken stream is resumed; Backoff the first
	// wait before that, doubling each time up to MaxBackoff.
	Retries int
	Backoff time.Duration
	// IdleTimeout is how long the stream may take no byte before it counts
	// as broken (0: DefaultIdleTimeout).
	IdleTimeout time.Duration
	// Warnings are written here, one line each (stderr).
	Warnings io.Writer
	// Progress is told the bytes of the files to send, then those sent.
	Progress Progress
}

// UploadResult is what an upload sent.
type UploadResult struct {
	// Pod is the uploader pod.
	Pod string
	// Files, Dirs and Links count what the target now holds of the upload;
	// Bytes is the size of its files; Refused the entries left out.
	Files, Dirs, Links, Refused int
	Bytes                       int64
	// Retries counts the resumed streams.
	Retries int
	Elapsed time.Duration
}

// statusNoTar: the image has no tar.
const statusNoTar = 127

// extractScript unpacks the archive on stdin, $2 bytes long, in the
// working directory (the sub-path enterScript entered): names are kept
// below it (GNU and busybox tar strip a leading "/" and refuse or strip
// ".."), owners are not restored (-o: the files belong to the pod's user),
// and no option keeps absolute names or follows links. head stops after
// the archive: nothing waits for the end of stdin, which a runtime may
// not pass on. The script's status is tar's.
//
// First, every symbolic link at or below the archive's top-level name ($3;
// "." for the whole sub-path, see topNames) is removed: the volume is shared, and a link someone else made
// there (data/alice/dataset -> ../bob) would take the files elsewhere, as
// busybox tar writes through an existing link. The upload's own links are
// in the archive and are made again.
const extractScript = `size=$2
shift 2
for t in "$@"; do
  if [ -L "./$t" ]; then rm -f -- "./$t" || exit; fi
  if [ -d "./$t" ]; then find "./$t" -type l -exec rm -f -- {} + || exit; fi
done
head -c "$size" | tar -x -o -f -`

// listScript lists the regular files below $2 as "SIZE ./NAME" lines.
const listScript = `[ -e "$2" ] || exit 0
exec find "$2" -type f -exec stat -c '%s %n' -- {} +`

// Upload copies a local file or directory into a sub-path of a storage
// volume through a short-lived uploader pod (FetcherSpec.Uploader), which
// it deletes at the end, also when ctx is cancelled (Ctrl-C). A tar stream
// goes over exec's stdin; when it breaks, the upload lists what arrived
// and sends the rest: files already there with their size are not sent
// again.
func Upload(ctx context.Context, req UploadRequest) (UploadResult, error) {
	start := time.Now()
	res := UploadResult{}
	if err := checkSubPath("the target", req.SubPath); err != nil {
		return res, err
	}
	if req.Into != "" && (strings.Contains(req.Into, "/") || req.Into == "." || req.Into == "..") {
		return res, exit.UsageErrorf("the name %q: not one file name", req.Into)
	}
	warnings := req.Warnings
	if warnings == nil {
		warnings = io.Discard
	}
	warn := func(format string, args ...any) { fmt.Fprintf(warnings, format+"\n", args...) }
	maxFiles := req.MaxFiles
	if maxFiles == 0 {
		maxFiles = DefaultMaxFiles
	}
	tree, err := scanLocal(req.Local, req.Into, maxFiles, warn)
	if err != nil {
		return res, exit.UsageErrorf("%v", err)
	}
	if req.MaxBytes > 0 && tree.bytes > req.MaxBytes {
		return res, exit.UsageErrorf("%s holds %d bytes of files, more than the %d bytes allowed", req.Local, tree.bytes, req.MaxBytes)
	}
	res.Files, res.Dirs, res.Links, res.Refused, res.Bytes = tree.files, tree.dirs, tree.links, tree.refused, tree.bytes

	u, err := startUploader(ctx, req.Volume)
	if err != nil {
		return res, err
	}
	defer u.Stop(ctx, warnings)
	res.Pod = u.Pod
	res.Retries, err = u.send(ctx, req, tree, warn)
	res.Elapsed = time.Since(start)
	return res, err
}

// uploader is a running uploader pod and how to exec in it.
type uploader struct {
	*Fetcher
	exec remote.Executor
}

func startUploader(ctx context.Context, v Volume) (*uploader, error) {
	if v.Storage.IsZero() {
		return nil, exit.UsageErrorf("no storage to upload to")
	}
	e := v.Executor
	if e == nil {
		e = &remote.APIExecutor{Config: v.Config, Kube: v.Kube}
	}
	image, timeout, deadline := v.Image, v.PodTimeout, v.Deadline
	if image == "" {
		image = DefaultFetcherImage
	}
	if timeout <= 0 {
		timeout = DefaultFetcherTimeout
	}
	if deadline <= 0 {
		deadline = DefaultFetcherDeadline
	}
	f, err := StartFetcher(ctx, v.Kube, FetcherSpec{
		Namespace: v.Namespace, JobName: v.JobName, Mount: StorageMount(v.Storage), Placement: v.Placement,
		Image: image, Deadline: deadline, Now: v.Now, Uploader: true,
	}, timeout)
	if err != nil {
		return nil, err
	}
	if v.Started != nil {
		v.Started(f.Pod)
	}
	return &uploader{Fetcher: f, exec: e}, nil
}

// send streams the tree until it all arrived, resuming broken streams.
func (u *uploader) send(ctx context.Context, req UploadRequest, tree *localTree, warn func(string, ...any)) (int, error) {
	progress := req.Progress
	if progress == nil {
		progress = noProgress{}
	}
	progress.Start(tree.bytes)
	idle := req.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	where := u.Pod + ":" + req.SubPath
	r := &resumer{max: req.Retries, backoff: req.Backoff}
	sendAll := func(localEntry) bool { return true }
	send := sendAll
	// before is the size of the files already there.
	var before int64
	for {
		err := u.attempt(ctx, req.SubPath, tree.entries, send, idle, func(n int64) { progress.Set(before + n) }, warn)
		if err == nil {
			progress.Finish()
			return r.retries, nil
		}
		if err := r.again(ctx, err, "to "+where, warn); err != nil {
			return r.retries, err
		}
		there, err := u.list(ctx, req.SubPath, listRoot(req.Into), idle)
		var b *brokenStream
		switch {
		case errors.As(err, &b):
			// The listing broke too: everything goes again.
			send, before = sendAll, 0
		case err != nil:
			return r.retries, err
		default:
			send, before = skipPresent(tree, there)
		}
	}
}

// listRoot is what the listing of an upload covers below the target.
func listRoot(into string) string {
	if into == "" {
		return "."
	}
	return into
}

// skipPresent keeps the entries a resumed stream sends: every directory
// and link, and the files not already there with their size; before is
// the size of those that are.
func skipPresent(tree *localTree, there map[string]int64) (keep func(localEntry) bool, before int64) {
	present := map[string]bool{}
	for _, e := range tree.entries {
		// A name with a newline may be misread in the listing: always sent.
		if e.typ != tar.TypeReg || strings.Contains(e.name, "\n") {
			continue
		}
		if size, ok := there[e.name]; ok && size == e.size {
			present[e.name] = true
			before += e.size
		}
	}
	return func(e localEntry) bool { return !present[e.name] }, before
}

// parseListing reads listScript's output: NAME (without "./") to size.
// Lines it cannot read are left out (their files are sent again).
func parseListing(out []byte) map[string]int64 {
	there := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		size, name, ok := strings.Cut(sc.Text(), " ")
		if !ok || !strings.HasPrefix(name, "./") {
			continue
		}
		n, err := strconv.ParseInt(size, 10, 64)
		if err != nil || n < 0 {
			continue
		}
		name = path.Clean(strings.TrimPrefix(name, "./"))
		if name == "." || strings.HasPrefix(name, "../") || name == ".." || path.IsAbs(name) {
			continue
		}
		there[name] = n
	}
	return there
}

// list lists the regular files of the target below root.
func (u *uploader) list(ctx context.Context, subPath, root string, timeout time.Duration) (map[string]int64, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var out bytes.Buffer
	stderr := &tailBuffer{max: 4 << 10}
	arg := "./" + root
	if root == "." {
		arg = "."
	}
	err := u.exec.Exec(ctx, u.Namespace, u.Pod, u.Container, confined(subPath, true, listScript, arg),
		remote.Streams{Stdout: &limitedBuffer{buf: &out, max: 64 << 20}, Stderr: stderr})
	if cerr := confinementError(err, stderr.String(), u.Pod+":"+subPath); cerr != nil {
		return nil, cerr
	}
	if apierrors.IsForbidden(err) {
		return nil, err
	}
	if err != nil && !remoteExited(err) {
		return nil, &brokenStream{err}
	}
	// A find that failed on some file still listed the others.
	return parseListing(out.Bytes()), nil
}

// attempt sends one archive of the entries send keeps.
func (u *uploader) attempt(ctx context.Context, subPath string, entries []localEntry, send func(localEntry) bool, idle time.Duration, sent func(int64), warn func(string, ...any)) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	watch := watchStream(idle, func(err error) {
		pr.CloseWithError(err)
		cancel()
	})
	defer watch.timer.Stop()
	size, err := archiveSize(entries, send)
	if err != nil {
		return err
	}
	a := &archiveWriter{sent: sent, warn: warn}
	written := make(chan error, 1)
	go func() {
		err := a.write(&idleWriter{w: pw, timer: watch.timer, timeout: idle}, entries, send)
		if err == nil {
			watch.allSent()
		}
		pw.CloseWithError(err)
		written <- err
	}()
	stderr := &tailBuffer{max: 64 << 10}
	err = u.exec.Exec(ctx, u.Namespace, u.Pod, u.Container, confined(subPath, true, extractScript, append([]string{strconv.FormatInt(size, 10)}, topNames(entries, send)...)...),
		remote.Streams{Stdin: pr, Stdout: io.Discard, Stderr: stderr})
	// The writer may be blocked on a stream that ended: unblock it.
	pr.CloseWithError(errStopped)
	werr := <-written
	var local *errLocal
	switch {
	case errors.As(werr, &local):
		return werr
	case err == nil && a.ended:
		return nil
	case err == nil:
		// tar ended before the archive did: nothing says it has all of it.
		return &brokenStream{errors.New("tar ended before the end of the archive")}
	case parent.Err() == nil && watch.stopped() != nil:
		// The watch ended the stream, not the user: broken, to be resumed
		// (never the context's own "canceled", which is an interruption).
		return &brokenStream{watch.stopped()}
	}
	return extractError(u.Pod+":"+subPath, err, werr, stderr)
}

// extractError is the error of the uploader's tar (execErr, its stderr)
// that failed to take the archive; werr is the archive writer's. A
// refusal, an image without tar or tar's own failure are final; a broken
// stream is resumed (*brokenStream).
func extractError(where string, execErr, werr error, stderr *tailBuffer) error {
	if cerr := confinementError(execErr, stderr.String(), where); cerr != nil {
		return cerr
	}
	if apierrors.IsForbidden(execErr) {
		return execErr
	}
	if exitStatus(execErr) == statusNoTar {
		return fmt.Errorf("the uploader's image has no tar (--fetcher-image): %s", remoteMessage(execErr, stderr))
	}
	if remoteExited(execErr) {
		return fmt.Errorf("tar in %s failed: %s", where, remoteMessage(execErr, stderr))
	}
	var idleErr *idleError
	if errors.As(werr, &idleErr) {
		return &brokenStream{idleErr}
	}
	return &brokenStream{execErr}
}

// streamWatch ends an upload's stream that takes nothing for idle, or whose
// tar does not finish within finishTimeout(idle) once the archive's last
// byte is sent (a slow flush to the volume): stop is told why.
type streamWatch struct {
	idle    time.Duration
	timer   *time.Timer
	sentAll atomic.Bool
	reason  atomic.Pointer[error]
}

// watchStream starts the watch; a write that goes through restarts its
// timer (idleWriter).
func watchStream(idle time.Duration, stop func(error)) *streamWatch {
	w := &streamWatch{idle: idle}
	w.timer = time.AfterFunc(idle, func() {
		var err error = &idleError{idle}
		if w.sentAll.Load() {
			err = fmt.Errorf("tar did not finish within %s of the archive's last byte", finishTimeout(idle))
		}
		w.reason.Store(&err)
		stop(err)
	})
	return w
}

// allSent gives tar finishTimeout(idle) from now to finish: the archive's
// last byte is sent.
func (w *streamWatch) allSent() {
	w.sentAll.Store(true)
	w.timer.Reset(finishTimeout(w.idle))
}

// stopped is why the watch ended the stream; nil when it did not.
func (w *streamWatch) stopped() error {
	if err := w.reason.Load(); err != nil {
		return *err
	}
	return nil
}

// topNames are the names whose links extractScript removes: the archive's
// one top-level name (a directory or file uploaded under its name), or "."
// when it has several: a directory's content put into the sub-path itself,
// which is then the upload's own target (and the list stays short).
func topNames(entries []localEntry, send func(localEntry) bool) []string {
	top := ""
	for _, e := range entries {
		if !send(e) {
			continue
		}
		first, _, _ := strings.Cut(e.name, "/")
		switch {
		case first == "" || first == ".":
			return []string{"."}
		case top == "":
			top = first
		case first != top:
			return []string{"."}
		}
	}
	if top == "" {
		return nil
	}
	return []string{top}
}

// finishTimeout is how long tar may take to finish once the archive's last
// byte is sent: four idle timeouts, at least two minutes.
func finishTimeout(idle time.Duration) time.Duration {
	return max(4*idle, 2*time.Minute)
}

// idleWriter restarts the idle timer whenever a write goes through.
type idleWriter struct {
	w       io.Writer
	timer   *time.Timer
	timeout time.Duration
}

func (i *idleWriter) Write(p []byte) (int, error) {
	n, err := i.w.Write(p)
	if n > 0 {
		i.timer.Reset(i.timeout)
	}
	return n, err
}

// limitedBuffer keeps at most max bytes.
type limitedBuffer struct {
	mu  sync.Mutex
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// Remove deletes the sub-path of the volume and everything below it,
// through an uploader pod (a submit whose job could not be created takes
// back the code it uploaded). A sub-path that does not exist is not an
// error; one below a symbolic link is.
func Remove(ctx context.Context, v Volume, subPath string) error {
	if err := checkSubPath("the path to remove", subPath); err != nil {
		return err
	}
	u, err := startUploader(ctx, v)
	if err != nil {
		return err
	}
	defer func() { _ = u.Delete(ctx) }()
	return u.remove(ctx, subPath)
}

// remove runs rm in the sub-path's parent.
func (u *uploader) remove(ctx context.Context, subPath string) error {
	parent, base := path.Split(subPath)
	parent = strings.TrimSuffix(parent, "/")
	script := `exec rm -rf -- "$2"`
	var command []string
	if parent == "" {
		// rm -rf removes a symlink, never what it points to.
		command = []string{"sh", "-c", `exec rm -rf -- "$1"`, "sh", base}
	} else {
		command = confined(parent, false, script, base)
	}
	stderr := &tailBuffer{max: 4 << 10}
	err := u.exec.Exec(ctx, u.Namespace, u.Pod, u.Container, command, remote.Streams{Stdout: io.Discard, Stderr: stderr})
	if err == nil {
		return nil
	}
	where := u.Pod + ":" + subPath
	if exitStatus(err) == statusMissing {
		return nil
	}
	if cerr := confinementError(err, stderr.String(), where); cerr != nil {
		return cerr
	}
	return fmt.Errorf("removing %s: %s", where, remoteMessage(err, stderr))
}
