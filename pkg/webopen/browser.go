package webopen

import (
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cli/browser"
	"github.com/google/shlex"
)

// Browser opens URLs.
type Browser interface {
	// Available says whether there is a browser to open, and if not why.
	Available() (bool, string)
	Open(url string) error
	// OpenFile opens a local file (an HTML page) by its path.
	OpenFile(path string) error
}

// SystemBrowser is $BROWSER when set (a command; the URL is its last
// argument), else the system's opener (xdg-open, open, start, ...).
type SystemBrowser struct {
	Getenv func(string) string
	// Out gets whatever the browser command prints.
	Out io.Writer
}

// Available implements Browser: on Linux and the BSDs a browser needs a
// display (DISPLAY or WAYLAND_DISPLAY) unless $BROWSER says which to run.
func (b SystemBrowser) Available() (bool, string) {
	if b.Getenv("BROWSER") != "" {
		return true, ""
	}
	switch runtime.GOOS {
	case "darwin", "windows":
		return true, ""
	}
	if b.Getenv("DISPLAY") == "" && b.Getenv("WAYLAND_DISPLAY") == "" {
		return false, "no display (DISPLAY and WAYLAND_DISPLAY are not set; $BROWSER names a browser to use)"
	}
	return true, ""
}

// Open implements Browser.
func (b SystemBrowser) Open(url string) error {
	if cmdline := b.Getenv("BROWSER"); cmdline != "" {
		args, err := shlex.Split(cmdline)
		if err != nil || len(args) == 0 {
			return err
		}
		cmd := exec.Command(args[0], append(args[1:], url)...)
		cmd.Stdout, cmd.Stderr = b.Out, b.Out
		return cmd.Run()
	}
	browser.Stdout, browser.Stderr = b.Out, b.Out
	return browser.OpenURL(url)
}

// OpenFile implements Browser: $BROWSER gets the file's file:// URL, the
// system's opener its path.
func (b SystemBrowser) OpenFile(path string) error {
	if b.Getenv("BROWSER") != "" {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
		if !strings.HasPrefix(u.Path, "/") {
			u.Path = "/" + u.Path // a Windows path, C:/...
		}
		return b.Open(u.String())
	}
	browser.Stdout, browser.Stderr = b.Out, b.Out
	return browser.OpenFile(path)
}

var _ Browser = SystemBrowser{Getenv: os.Getenv}
