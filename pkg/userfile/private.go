package userfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// SecretsLimit is the most easyai reads of a file of secrets (credentials).
const SecretsLimit int64 = 64 << 10

// ReadPrivate reads a file that holds secrets, as ssh reads a private key:
// it must be a regular file, and on Unix neither the group nor others may
// read or write it (mode 0600 or tighter), else it is a usage error (exit 2)
// saying how to fix it. what names the file in errors ("credentials file").
// More than limit bytes is an error; exists is false for a missing file.
func ReadPrivate(what, path string, limit int64) (data []byte, exists bool, err error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, true, exit.UsageErrorf("%s %s: %v", what, path, unwrapPathError(err))
	}
	// Checked before opening: opening a pipe would wait for a writer.
	if err := checkPrivate(what, path, info); err != nil {
		return nil, true, err
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, true, exit.UsageErrorf("%s %s: %v", what, path, unwrapPathError(err))
	}
	defer file.Close()
	// And again on what was opened, which may have been replaced since.
	info, err = file.Stat()
	if err != nil {
		return nil, true, exit.UsageErrorf("%s %s: %v", what, path, unwrapPathError(err))
	}
	if err := checkPrivate(what, path, info); err != nil {
		return nil, true, err
	}
	if info.Size() > limit {
		return nil, true, tooLarge(what, path, limit)
	}
	data, err = io.ReadAll(io.LimitReader(file, limit+1))
	switch {
	case err != nil:
		return nil, true, exit.UsageErrorf("%s %s: %v", what, path, unwrapPathError(err))
	case int64(len(data)) > limit:
		return nil, true, tooLarge(what, path, limit)
	}
	return data, true, nil
}

// checkPrivate refuses what is not a regular file, and on Unix a file the
// group or others may read, write or run.
func checkPrivate(what, path string, info fs.FileInfo) error {
	if info.IsDir() {
		return exit.UsageErrorf("%s %s: is a directory, not a file", what, path)
	}
	if !info.Mode().IsRegular() {
		return exit.UsageErrorf("%s %s: not a regular file", what, path)
	}
	perm := info.Mode().Perm()
	if runtime.GOOS == "windows" || perm&0o077 == 0 {
		return nil
	}
	open := "open to others"
	switch {
	case perm&0o044 != 0:
		open = "readable by others"
	case perm&0o022 != 0:
		open = "writable by others"
	}
	return exit.UsageErrorf("%s %s is %s (mode %04o): chmod 600 %s", what, path, open, perm, path)
}
