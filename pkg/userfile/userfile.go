// Package userfile reads the files a user names on the command line (job
// files, easyai's configuration, output templates) and checks the ones a
// library reads itself (kubeconfigs): each is bounded, so that a device or an
// endless pipe (-f /dev/zero, -f <(yes)) fails at once instead of filling
// memory, and a read that waits (-f /dev/stdin on a terminal) ends when the
// command is interrupted.
package userfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// Stdin is the path that names standard input ("-f -").
const Stdin = "-"

// The most easyai reads of each kind of file.
const (
	JobFileLimit    int64 = 4 << 20  // a values file (-f)
	ConfigLimit     int64 = 1 << 20  // easyai's own configuration (--config)
	TemplateLimit   int64 = 1 << 20  // -o jsonpath-file= / go-template-file=
	KubeconfigLimit int64 = 16 << 20 // a kubeconfig, certificates embedded
)

// Read returns the content of the file at path (stdin for "-"), read once.
// what names it in errors as the user gave it ("-f", "--config"). More than
// limit bytes is a usage error (exit 2) naming what, path and the limit;
// a done ctx (Ctrl-C) ends the read with ctx's error.
func Read(ctx context.Context, what, path string, limit int64, stdin io.Reader) ([]byte, error) {
	var r io.Reader
	if path == Stdin {
		if stdin == nil {
			stdin = os.Stdin
		}
		r = stdin
	} else {
		file, err := os.Open(path)
		if err != nil {
			return nil, exit.UsageErrorf("%s %s: %v", what, path, unwrapPathError(err))
		}
		defer file.Close()
		info, err := file.Stat()
		if err != nil {
			return nil, exit.UsageErrorf("%s %s: %v", what, path, unwrapPathError(err))
		}
		switch {
		case info.IsDir():
			return nil, exit.UsageErrorf("%s %s: is a directory, not a file", what, path)
		case info.Mode().IsRegular() && info.Size() > limit:
			return nil, tooLarge(what, path, limit)
		}
		r = file
	}
	data, err := readBounded(ctx, r, limit)
	switch {
	case errors.Is(err, errTooLarge):
		return nil, tooLarge(what, path, limit)
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil, fmt.Errorf("reading %s %s: %w", what, path, err)
	case err != nil:
		return nil, exit.UsageErrorf("%s %s: %v", what, path, unwrapPathError(err))
	}
	return data, nil
}

// CheckRegular fails when the file at path exists but is not a regular file
// (a device, a pipe, a directory) or holds more than limit bytes: for files
// another library reads without a bound, such as kubeconfigs. A missing file
// is left to that library.
func CheckRegular(what, path string, limit int64) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return exit.UsageErrorf("%s %s: %v", what, path, unwrapPathError(err))
	case !info.Mode().IsRegular():
		return exit.UsageErrorf("%s %s: not a regular file", what, path)
	case info.Size() > limit:
		return tooLarge(what, path, limit)
	}
	return nil
}

var errTooLarge = errors.New("too large")

// chunk is how much is read between two looks at the context.
const chunk = 64 << 10

// readBounded reads r to its end, at most limit bytes (errTooLarge beyond),
// giving up when ctx is done even while a read blocks (a pipe that never
// writes): the blocked read is left behind, the command ends anyway.
func readBounded(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		var data []byte
		buf := make([]byte, chunk)
		for {
			if ctx.Err() != nil {
				done <- result{nil, ctx.Err()}
				return
			}
			n, err := r.Read(buf)
			data = append(data, buf[:n]...)
			if int64(len(data)) > limit {
				done <- result{nil, errTooLarge}
				return
			}
			if errors.Is(err, io.EOF) {
				done <- result{data, nil}
				return
			}
			if err != nil {
				done <- result{nil, err}
				return
			}
		}
	}()
	select {
	case res := <-done:
		return res.data, res.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func tooLarge(what, path string, limit int64) error {
	return exit.UsageErrorf("%s %s: larger than %s, the most easyai reads of such a file", what, path, Size(limit))
}

// Size writes a byte count as people do: 4 MiB.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
