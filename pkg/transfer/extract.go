package transfer

import (
	"archive/tar"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"
)

// partialSuffix, followed by a random part, names the file an entry is
// written to before it is complete; it is renamed over the entry's name once
// all its bytes have arrived. Archive entries carrying it are refused, and
// the random part keeps the archive from choosing the name anyway.
const partialSuffix = ".easyai-partial"

// limitError is a download stopped by --max-bytes or --max-files.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// written is a file this download wrote: an archive read again skips it
// when its entry has the same size and modification time.
type written struct {
	size  int64
	mtime time.Time
}

// streamError is a failure to read the archive (the exec stream broke), as
// opposed to a failure to write locally: only the first is retried.
type streamError struct{ err error }

func (e *streamError) Error() string { return e.err.Error() }
func (e *streamError) Unwrap() error { return e.err }

// extractor writes the entries of one or more tar streams of the same
// archive under a local directory, and never outside it: every write goes
// through an os.Root, and entries that would leave it (absolute paths, ".."
// components, symlinks pointing out, links through symlinks) are refused
// with a warning before anything is written.
type extractor struct {
	root *os.Root
	// strip is the archive's top entry (the remote path's last element);
	// into its local name under root, "" for root itself.
	strip, into string
	warn        func(format string, args ...any)
	progress    func(n int)

	// done are the local regular files complete in this download: a stream
	// that starts over skips them, and only they may be hard-link targets.
	done map[string]written
	// links are the symlinks this download made; refusedLinks those it
	// refused to make (nothing is written beneath either).
	links, refusedLinks map[string]bool

	// maxBytes bounds the bytes written (< 0: no bound), as limitName says
	// it came about; maxEntries the
	// different entry names the archive may hold (<= 0: no bound).
	maxBytes   int64
	limitName  string
	maxEntries int
	// seen are the entry names read, for maxEntries.
	seen map[string]struct{}

	files, refused int
	bytes          int64
}

func newExtractor(root *os.Root, strip, into string, warn func(string, ...any), progress func(int)) *extractor {
	if progress == nil {
		progress = func(int) {}
	}
	return &extractor{
		root: root, strip: strip, into: into, warn: warn, progress: progress,
		done: map[string]written{}, links: map[string]bool{}, refusedLinks: map[string]bool{},
		seen: map[string]struct{}{}, maxBytes: -1,
	}
}

// refuse warns about an entry that is not written.
func (x *extractor) refuse(name, why string) {
	x.refused++
	x.warn("Warning: skipped %q: %s", name, why)
}

// localName maps an archive entry's name to its path under root ("." for
// root itself), or says why the entry must not be written.
func (x *extractor) localName(name string) (string, error) {
	if name == "" {
		return "", errors.New("an empty name")
	}
	if path.IsAbs(name) || strings.HasPrefix(name, `\`) {
		return "", errors.New("an absolute path")
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", errors.New(`a ".." component leaves the destination`)
		}
		if strings.Contains(part, partialSuffix) {
			return "", fmt.Errorf("names with %q are easyai's own temporary files", partialSuffix)
		}
	}
	clean := path.Clean(name)
	var rel string
	switch {
	case x.strip == ".":
		rel = clean
	case clean == x.strip:
		rel = "."
	case strings.HasPrefix(clean, x.strip+"/"):
		rel = strings.TrimPrefix(clean, x.strip+"/")
	default:
		return "", fmt.Errorf("not under the requested path %q", x.strip)
	}
	return path.Join(x.into, rel), nil
}

// checkParents refuses a local path with a symlink among its parent
// directories: writing through a symlink could land anywhere it points.
func (x *extractor) checkParents(local string) error {
	dir := path.Dir(local)
	if dir == "." {
		return nil
	}
	parts := strings.Split(dir, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		if x.refusedLinks[p] {
			return fmt.Errorf("it lies beneath the refused symlink %q", p)
		}
		fi, err := x.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("it would be written through the symlink %q", p)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%q is not a directory", p)
		}
	}
	return nil
}

// entry writes one entry, reading its content from r. Refused entries are
// warned about and skipped (their content discarded); the error is a
// *streamError when the archive could not be read, else a local failure.
func (x *extractor) entry(hdr *tar.Header, r io.Reader) error {
	if _, ok := x.seen[hdr.Name]; !ok {
		if x.maxEntries > 0 && len(x.seen) >= x.maxEntries {
			return &limitError{fmt.Sprintf("the archive holds more than --max-files %d entries; the download stopped at %q", x.maxEntries, hdr.Name)}
		}
		x.seen[hdr.Name] = struct{}{}
	}
	local, err := x.localName(hdr.Name)
	if err != nil {
		x.refuse(hdr.Name, err.Error())
		return nil
	}
	if err := x.checkParents(local); err != nil {
		x.refuse(hdr.Name, err.Error())
		return nil
	}
	if isSparse(hdr) {
		// tar writes them only when asked (-S); expanded, a small archive
		// could fill the disk.
		x.refuse(hdr.Name, "sparse files are not copied")
		return nil
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		return x.dir(hdr, local)
	case tar.TypeReg, tar.TypeRegA:
		return x.file(hdr, local, r)
	case tar.TypeSymlink:
		return x.symlink(hdr, local)
	case tar.TypeLink:
		return x.hardlink(hdr, local)
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		x.refuse(hdr.Name, "devices and named pipes are not copied")
		return nil
	default:
		x.refuse(hdr.Name, fmt.Sprintf("entries of type %q are not copied", hdr.Typeflag))
		return nil
	}
}

// isSparse says the entry is a GNU sparse file, of the old format or PAX's.
func isSparse(hdr *tar.Header) bool {
	if hdr.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range hdr.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

func (x *extractor) dir(hdr *tar.Header, local string) error {
	if local == "." {
		return nil
	}
	fi, err := x.root.Lstat(local)
	switch {
	case err == nil && fi.IsDir():
		return nil
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		x.refuse(hdr.Name, fmt.Sprintf("it would be written through the symlink %q", local))
		return nil
	case err == nil:
		x.refuse(hdr.Name, "a file of that name is in the way")
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	// The owner keeps write access: later entries are written inside.
	return x.root.Mkdir(local, fs.FileMode(hdr.Mode)&0o777|0o700)
}

func (x *extractor) file(hdr *tar.Header, local string, r io.Reader) error {
	if local == "." {
		x.refuse(hdr.Name, "a file cannot replace the destination directory")
		return nil
	}
	if w, ok := x.done[local]; ok && w.size == hdr.Size && w.mtime.Equal(hdr.ModTime) {
		// Complete from an earlier attempt: its bytes are skipped, not rewritten.
		return nil
	}
	if fi, err := x.root.Lstat(local); err == nil && fi.IsDir() {
		x.refuse(hdr.Name, "a directory of that name is in the way")
		return nil
	}
	if x.maxBytes >= 0 && x.bytes+hdr.Size > x.maxBytes {
		return &limitError{fmt.Sprintf("%q (%d bytes) would take the download past %s %d (%d bytes written); it stopped there",
			hdr.Name, hdr.Size, x.limitName, x.maxBytes, x.bytes)}
	}
	partial, f, err := x.createPartial(local, fs.FileMode(hdr.Mode)&0o777|0o600)
	if err != nil {
		return err
	}
	n, err := x.copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != hdr.Size {
		err = &streamError{fmt.Errorf("%s: got %d of %d bytes", hdr.Name, n, hdr.Size)}
	}
	if err != nil {
		// The entry is written again from its start when the stream resumes.
		x.bytes -= n
		x.progress(0)
		_ = x.root.Remove(partial)
		return err
	}
	_ = x.root.Chtimes(partial, time.Now(), hdr.ModTime)
	// Renaming replaces a symlink of that name itself: nothing is written
	// through it.
	if err := x.root.Rename(partial, local); err != nil {
		_ = x.root.Remove(partial)
		return err
	}
	delete(x.links, local)
	if _, ok := x.done[local]; !ok {
		x.files++
	}
	x.done[local] = written{size: hdr.Size, mtime: hdr.ModTime}
	return nil
}

// createPartial creates the file local's content is written to before it
// is complete: a new file beside local (O_CREATE|O_EXCL: os.Root then never
// follows a symlink of that name, even a dangling one),
// under a name with a random part.
func (x *extractor) createPartial(local string, mode fs.FileMode) (string, *os.File, error) {
	for range 10 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		partial := local + partialSuffix + "-" + hex.EncodeToString(b[:])
		f, err := x.root.OpenFile(partial, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return partial, f, err
	}
	return "", nil, fmt.Errorf("creating a temporary file beside %s: every name tried exists", local)
}

// copy writes the entry's content, telling progress; a read error is a
// *streamError.
func (x *extractor) copy(w io.Writer, r io.Reader) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		m, rerr := r.Read(buf)
		if m > 0 {
			if _, err := w.Write(buf[:m]); err != nil {
				return n, err
			}
			n += int64(m)
			x.bytes += int64(m)
			x.progress(m)
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, &streamError{rerr}
		}
	}
}

// symlinkTarget checks that a symlink at local pointing to target stays
// under root: a relative target whose ".." components all come first (so
// they climb real directories, never through a symlink), that climbs no
// higher than root and then descends only through directories or symlinks
// this download made (each checked the same way).
func (x *extractor) symlinkTarget(local, target string) error {
	if target == "" {
		return errors.New("an empty symlink target")
	}
	if path.IsAbs(target) {
		return fmt.Errorf("its target %q is an absolute path", target)
	}
	dir := path.Dir(local)
	var at []string
	if dir != "." {
		at = strings.Split(dir, "/")
	}
	descending := false
	for _, part := range strings.Split(target, "/") {
		switch part {
		case "", ".":
			continue
		case "..":
			if descending {
				return fmt.Errorf(`its target %q has ".." after a name: it could leave the destination through another symlink`, target)
			}
			if len(at) == 0 {
				return fmt.Errorf("its target %q is outside the destination", target)
			}
			at = at[:len(at)-1]
			continue
		}
		descending = true
		at = append(at, part)
		p := strings.Join(at, "/")
		fi, err := x.root.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 && !x.links[p] {
			return fmt.Errorf("its target %q goes through the symlink %q, which this download did not make", target, p)
		}
	}
	return nil
}

func (x *extractor) symlink(hdr *tar.Header, local string) error {
	if local == "." {
		x.refuse(hdr.Name, "a symlink cannot replace the destination directory")
		return nil
	}
	if err := x.symlinkTarget(local, hdr.Linkname); err != nil {
		x.refusedLinks[local] = true
		x.refuse(hdr.Name, err.Error())
		return nil
	}
	if x.links[local] {
		return nil // made by an earlier attempt
	}
	if fi, err := x.root.Lstat(local); err == nil {
		if fi.IsDir() {
			x.refusedLinks[local] = true
			x.refuse(hdr.Name, "a directory of that name is in the way")
			return nil
		}
		if err := x.root.Remove(local); err != nil {
			return err
		}
	}
	// What was there is gone: a hard link must not reach it any more.
	delete(x.done, local)
	if err := x.root.Symlink(hdr.Linkname, local); err != nil {
		return err
	}
	delete(x.refusedLinks, local)
	x.links[local] = true
	return nil
}

func (x *extractor) hardlink(hdr *tar.Header, local string) error {
	target, err := x.localName(hdr.Linkname)
	if err != nil {
		x.refuse(hdr.Name, fmt.Sprintf("its link target %q: %v", hdr.Linkname, err))
		return nil
	}
	if err := x.checkParents(target); err != nil {
		x.refuse(hdr.Name, fmt.Sprintf("its link target %q: %v", hdr.Linkname, err))
		return nil
	}
	w, wrote := x.done[target]
	if fi, err := x.root.Lstat(target); !wrote || err != nil || !fi.Mode().IsRegular() {
		x.refuse(hdr.Name, fmt.Sprintf("its link target %q is not a file this download wrote", hdr.Linkname))
		return nil
	}
	if target == local {
		return nil
	}
	if fi, err := x.root.Lstat(local); err == nil {
		if fi.IsDir() {
			x.refuse(hdr.Name, "a directory of that name is in the way")
			return nil
		}
		if err := x.root.Remove(local); err != nil {
			return err
		}
	}
	if err := x.root.Link(target, local); err != nil {
		return err
	}
	delete(x.links, local)
	if _, ok := x.done[local]; !ok {
		x.files++
	}
	x.done[local] = w
	return nil
}
