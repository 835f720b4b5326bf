package transfer

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// recordSize is tar's record: 20 blocks of 512 bytes. An upload's archive
// is padded to whole records after its end blocks, as tar writes them: a
// tar that reads stdin by records (GNU tar) then has all of its last one.
const recordSize = 20 * 512

// archiveSize is the length of the archive write writes of the entries
// send keeps (the files at the size the scan found), so that the remote
// side reads exactly that much and stops by itself: busybox's tar reads
// its stdin to the end, which a runtime may never pass on (kwok's exec).
func archiveSize(entries []localEntry, send func(localEntry) bool) (int64, error) {
	var n int64
	for _, e := range entries {
		if !send(e) {
			continue
		}
		cw := &countingWriter{w: io.Discard}
		if err := tar.NewWriter(cw).WriteHeader(e.header(e.size)); err != nil {
			return 0, err
		}
		n += cw.n + (e.size+511)&^511
	}
	n += 2 * 512 // the end blocks
	return n + (recordSize-n%recordSize)%recordSize, nil
}

// localEntry is one entry of an upload: what is read here and its name in
// the archive (and below the target directory).
type localEntry struct {
	// name is slash-separated and relative: Into and the path below Local.
	name  string
	path  string
	typ   byte
	size  int64
	mode  fs.FileMode
	mtime time.Time
	link  string
}

// localTree is what an upload sends.
type localTree struct {
	entries []localEntry
	// files, dirs and links count the entries by type; bytes is the size of
	// the files; refused the entries left out (with a warning).
	files, dirs, links, refused int
	bytes                       int64
}

// scanLocal lists what uploading local as into sends: local itself when it
// is a file (named into, else its base name); a directory's tree below
// into (into "": its content only). A symlink named on the command line
// is followed; below it, symlinks are sent as symlinks when they point
// inside the tree (relative, and not above its top) and refused
// otherwise; named pipes, devices and sockets are refused. Nothing is
// followed out of the tree. maxFiles bounds the entries (< 0: no bound).
func scanLocal(local, into string, maxFiles int, warn func(format string, args ...any)) (*localTree, error) {
	root, err := filepath.EvalSymlinks(local)
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	t := &localTree{}
	if info.Mode().IsRegular() {
		if into == "" {
			into = filepath.Base(root)
		}
		t.add(localEntry{name: into, path: root, typ: tar.TypeReg, size: info.Size(), mode: info.Mode(), mtime: info.ModTime()})
		return t, nil
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is neither a file nor a directory", local)
	}
	w := &treeWalk{tree: t, root: root, local: local, into: into, maxFiles: maxFiles, warn: warn}
	if err := filepath.WalkDir(root, w.visit); err != nil {
		return nil, err
	}
	return t, nil
}

// treeWalk is scanLocal's walk of a directory local (root, its symlinks
// resolved): what it finds goes into tree, named below into.
type treeWalk struct {
	tree              *localTree
	root, local, into string
	maxFiles          int
	warn              func(format string, args ...any)
}

// visit adds the entry at p, d, to the tree (a fs.WalkDirFunc): a
// directory, a file, or a symlink that stays in the tree; any other entry
// is refused with a warning.
func (w *treeWalk) visit(p string, d fs.DirEntry, err error) error {
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(w.root, p)
	if err != nil {
		return err
	}
	rel = filepath.ToSlash(rel)
	if rel == "." && w.into == "" {
		return nil // the content goes into the target itself
	}
	if w.maxFiles >= 0 && len(w.tree.entries) >= w.maxFiles {
		return fmt.Errorf("%s has more than %d entries (files, directories, links)", w.local, w.maxFiles)
	}
	info, err := d.Info()
	if err != nil {
		return err
	}
	e := localEntry{name: path.Join(w.into, rel), path: p, mode: info.Mode(), mtime: info.ModTime()}
	switch {
	case info.IsDir():
		e.typ = tar.TypeDir
	case info.Mode().IsRegular():
		e.typ, e.size = tar.TypeReg, info.Size()
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		if why := outsideTree(rel, target); why != "" {
			w.tree.refused++
			w.warn("Warning: %s: a symbolic link to %q, %s: not uploaded", p, target, why)
			return nil
		}
		e.typ, e.link = tar.TypeSymlink, filepath.ToSlash(target)
	default:
		w.tree.refused++
		w.warn("Warning: %s: %s: not uploaded", p, kindOf(info.Mode()))
		return nil
	}
	w.tree.add(e)
	return nil
}

func (t *localTree) add(e localEntry) {
	t.entries = append(t.entries, e)
	switch e.typ {
	case tar.TypeDir:
		t.dirs++
	case tar.TypeSymlink:
		t.links++
	default:
		t.files++
		t.bytes += e.size
	}
}

// outsideTree says why the symlink at rel (slash-separated, below the
// tree's top) pointing to target leaves the tree; "" when it stays in it.
// The check is by name: symlinks the target passes through are in the
// tree too, and were checked the same way.
func outsideTree(rel, target string) string {
	target = filepath.ToSlash(target)
	switch {
	case target == "":
		return "empty"
	case path.IsAbs(target) || filepath.IsAbs(target) || filepath.VolumeName(target) != "":
		return "an absolute path"
	}
	to := path.Clean(path.Join(path.Dir(rel), target))
	if to == ".." || strings.HasPrefix(to, "../") {
		return "outside the uploaded tree"
	}
	return ""
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a file, directory or symbolic link"
}

// header is the entry's tar header: no owner (the remote tar keeps none),
// permission bits only (no setuid, setgid or sticky bit), whole seconds.
func (e localEntry) header(size int64) *tar.Header {
	return &tar.Header{
		Typeflag: e.typ,
		Name:     e.name,
		Linkname: e.link,
		Size:     size,
		Mode:     int64(e.mode.Perm()),
		ModTime:  e.mtime.Truncate(time.Second),
	}
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// archiveWriter writes the archive of an upload's entries.
type archiveWriter struct {
	// sent is called with the bytes of file content written so far.
	sent func(n int64)
	warn func(format string, args ...any)
	// ended is set once the end blocks and the padding were written.
	ended bool
}

// write writes every entry that send keeps, the end blocks, and the
// padding to a whole record.
func (a *archiveWriter) write(w io.Writer, entries []localEntry, send func(localEntry) bool) error {
	cw := &countingWriter{w: w}
	tw := tar.NewWriter(cw)
	var content int64
	for _, e := range entries {
		if !send(e) {
			continue
		}
		if e.typ != tar.TypeReg {
			if err := tw.WriteHeader(e.header(0)); err != nil {
				return err
			}
			continue
		}
		n, err := a.writeFile(tw, e, func(n int64) { a.sent(content + n) })
		if err != nil {
			return err
		}
		content += n
		a.sent(content)
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if pad := (recordSize - cw.n%recordSize) % recordSize; pad > 0 {
		if _, err := cw.Write(make([]byte, pad)); err != nil {
			return err
		}
	}
	a.ended = true
	return nil
}

// errLocal is an error of reading the local files, not of the stream.
type errLocal struct{ err error }

func (e *errLocal) Error() string { return e.err.Error() }
func (e *errLocal) Unwrap() error { return e.err }

// writeFile writes one file with the size the scan found (the archive's
// length is fixed before it is written); a file that shrank since is
// padded with zeros, one that grew is cut at that size, each with a
// warning (the next upload sends it whole).
func (a *archiveWriter) writeFile(tw *tar.Writer, e localEntry, progress func(int64)) (int64, error) {
	f, err := os.Open(e.path)
	if err != nil {
		return 0, &errLocal{err}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, &errLocal{err}
	}
	if !info.Mode().IsRegular() {
		return 0, &errLocal{fmt.Errorf("%s is no longer a regular file", e.path)}
	}
	size := e.size
	if err := tw.WriteHeader(e.header(size)); err != nil {
		return 0, err
	}
	pr := &progressReader{r: io.LimitReader(f, size), progress: progress}
	n, err := io.Copy(tw, pr)
	if err != nil {
		if pr.err != nil {
			return n, &errLocal{fmt.Errorf("reading %s: %w", e.path, pr.err)}
		}
		return n, err
	}
	if n < size {
		a.warn("Warning: %s shrank while it was uploaded: its copy ends in zeros; upload it again", e.path)
		if _, err := io.CopyN(tw, zeros{}, size-n); err != nil {
			return n, err
		}
	} else if more, _ := f.Read(make([]byte, 1)); more > 0 {
		a.warn("Warning: %s grew while it was uploaded: its copy has its first %d bytes; upload it again", e.path, size)
	}
	return size, nil
}

// progressReader reports the bytes read, and keeps its reader's error
// apart from the writer's.
type progressReader struct {
	r        io.Reader
	n        int64
	progress func(int64)
	err      error
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.n += int64(n)
	if n > 0 {
		p.progress(p.n)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		p.err = err
	}
	return n, err
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}
