//go:build unix

package timakerplatform

import (
	"os"

	"golang.org/x/sys/unix"
)

// lock holds an exclusive lock on path (created) until unlock is called:
// two easyai processes writing one index take turns.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
