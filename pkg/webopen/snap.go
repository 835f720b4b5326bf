package webopen

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/google/shlex"
)

// A browser installed as a snap (Ubuntu's Firefox and Chromium) is
// confined: it cannot read files in /tmp or $XDG_RUNTIME_DIR, where the
// page that logs it in is written. It can read its own directory below
// the home, ~/snap/NAME/common, so the page goes there.

// snapDesktop is the desktop file name of a snap's application:
// NAME_APP.desktop (firefox_firefox.desktop).
var snapDesktop = regexp.MustCompile(`^([a-z0-9][a-z0-9-]*)_[A-Za-z0-9-]+\.desktop$`)

// snapLookups are how the default browser is found (tests replace them).
type snapLookups struct {
	getenv       func(string) string
	lookPath     func(string) (string, error)
	evalSymlinks func(string) (string, error)
	// defaultBrowser is the desktop file of the default browser
	// (xdg-settings get default-web-browser), "" when not known.
	defaultBrowser func() string
}

var systemLookups = snapLookups{
	getenv: os.Getenv, lookPath: exec.LookPath, evalSymlinks: filepath.EvalSymlinks,
	defaultBrowser: func() string {
		out, err := exec.Command("xdg-settings", "get", "default-web-browser").Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	},
}

// snapName is the snap the browser to open comes from ("" when it is not
// one): $BROWSER's command, else the default browser's desktop file, else
// x-www-browser, resolved; a path under /snap/ names its snap.
func (l snapLookups) snapName() string {
	if runtime.GOOS != "linux" {
		return ""
	}
	fromPath := func(command string) string {
		p, err := l.lookPath(command)
		if err != nil {
			return ""
		}
		if r, err := l.evalSymlinks(p); err == nil {
			// /snap/bin/firefox is a link to /usr/bin/snap: the name is the link's.
			if !strings.HasPrefix(p, "/snap/bin/") {
				p = r
			}
		}
		rest, ok := strings.CutPrefix(p, "/snap/")
		if !ok {
			return ""
		}
		rest = strings.TrimPrefix(rest, "bin/")
		name, _, _ := strings.Cut(rest, "/")
		name, _, _ = strings.Cut(name, ".")
		return name
	}
	if cmdline := l.getenv("BROWSER"); cmdline != "" {
		if args, err := shlex.Split(cmdline); err == nil && len(args) > 0 {
			return fromPath(args[0])
		}
		return ""
	}
	if m := snapDesktop.FindStringSubmatch(l.defaultBrowser()); m != nil {
		return m[1]
	}
	return fromPath("x-www-browser")
}

// snapPageDir is where a snap browser can read the page: its common
// directory below the home, when it exists; "" otherwise.
func snapPageDir(name, home string) string {
	if name == "" || home == "" {
		return ""
	}
	dir := filepath.Join(home, "snap", name, "common")
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return ""
	}
	return dir
}
