package transfer

import (
	"fmt"
	"path"
	"strings"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// Exit statuses of enterScript, told apart from the command's own.
const (
	// statusSymlink: a directory of the sub-path is a symbolic link (or
	// leads elsewhere): nothing was read or written.
	statusSymlink = 90
	// statusMissing: a directory of the sub-path does not exist (only
	// when it is not made).
	statusMissing = 91
)

// enterScript is the start of a helper pod's shell script: it enters the
// sub-path $1, relative to the working directory (the volume's root), one
// directory at a time, refusing to pass through a symbolic link, and
// checks that the directory it ends in is that path below the root; then
// $1 becomes ".", so that the rest of the script works in it. With mkdir,
// missing directories are made (as the user the pod runs as). Whatever
// the script does after it stays below the sub-path as long as it follows
// no symlink itself (tar does not, for the names it is given).
func enterScript(mkdir bool) string {
	missing := `printf 'easyai: %s: no such directory\n' "${d#./}" >&2; exit ` + fmt.Sprint(statusMissing)
	if mkdir {
		missing = `mkdir -- "$d" || [ -d "$d" ] || exit`
	}
	return `set -f
root=$(pwd -P) || exit
d=.
IFS=/
for c in $1; do
  d="$d/$c"
  if [ -L "$d" ]; then printf 'easyai: %s is a symbolic link: not followed\n' "${d#./}" >&2; exit ` + fmt.Sprint(statusSymlink) + `; fi
  if [ ! -d "$d" ]; then ` + missing + `; fi
done
unset IFS
cd -- "$1" || exit
case $root in /) want="/$1" ;; *) want="$root/$1" ;; esac
if [ "$(pwd -P)" != "$want" ]; then printf 'easyai: %s is not below the volume root\n' "$1" >&2; exit ` + fmt.Sprint(statusSymlink) + `; fi
shift
set -- . "$@"
`
}

// confined is the command that runs script in the sub-path dir of the
// working directory (enterScript), with args as $2, $3...
func confined(dir string, mkdir bool, script string, args ...string) []string {
	if dir == "." {
		return append([]string{"sh", "-c", script, "sh", "."}, args...)
	}
	return append([]string{"sh", "-c", enterScript(mkdir) + script, "sh", dir}, args...)
}

// checkSubPath fails unless p is a clean relative path below the root,
// the only sub-paths a helper pod is given.
func checkSubPath(what, p string) error {
	if p == "" || p == "." || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return exit.UsageErrorf("%s %q: not a clean relative path below the volume's root", what, p)
	}
	return nil
}

// confinementError is what a refused sub-path's exit status means, or nil
// for any other error.
func confinementError(err error, stderr string, where string) error {
	switch exitStatus(err) {
	case statusSymlink:
		return fmt.Errorf("%s: %s", where, cutLine(lastLine(stderr, "a directory of the path is a symbolic link: not followed")))
	case statusMissing:
		return exit.NotFoundErrorf("%s: %s", where, cutLine(lastLine(stderr, "no such directory")))
	}
	return nil
}

// lastLine is the last non-empty line of s without easyai's "easyai: "
// (the remote script's prefix), else def.
func lastLine(s, def string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return def
	}
	return strings.TrimPrefix(last, "easyai: ")
}

// InDir is the command that runs script, with sh, in the sub-path dir of
// a helper pod's working directory (the volume's root), entered without
// following a symlink among its directories; args are $2, $3... (logs
// reads persisted logs so).
func InDir(dir, script string, args ...string) []string {
	return confined(dir, false, script, args...)
}

// DirMissing says err is an InDir command's that stopped because a
// directory of its sub-path does not exist.
func DirMissing(err error) bool { return exitStatus(err) == statusMissing }

// RemoteError is the error of a command run in a helper pod with its
// stderr: a refused sub-path (a symlink, a missing directory), or what
// the command said.
func RemoteError(err error, stderr, where string) error {
	if err == nil {
		return nil
	}
	if cerr := confinementError(err, stderr, where); cerr != nil {
		return cerr
	}
	if !remoteExited(err) {
		return fmt.Errorf("%s: %w", where, err)
	}
	return fmt.Errorf("%s: %s", where, lastLine(stderr, err.Error()))
}
