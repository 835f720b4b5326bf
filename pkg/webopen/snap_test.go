package webopen

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestSnapName(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("snaps are Linux's")
	}
	links := map[string]string{
		"/usr/bin/firefox":       "/usr/bin/firefox",
		"/snap/bin/firefox":      "/usr/bin/snap",
		"/snap/bin/chromium":     "/usr/bin/snap",
		"/usr/bin/x-www-browser": "/etc/alternatives/x-www-browser",
	}
	paths := map[string]string{"firefox": "/usr/bin/firefox", "snapfox": "/snap/bin/firefox", "x-www-browser": "/usr/bin/x-www-browser"}
	for _, tc := range []struct {
		name, browserEnv, desktop, want string
		xwww                            string
	}{
		{"BROWSER a snap", "snapfox --new-window", "", "firefox", ""},
		{"BROWSER not a snap", "firefox", "firefox_firefox.desktop", "", ""},
		{"the default browser a snap's desktop file", "", "firefox_firefox.desktop", "firefox", ""},
		{"the default browser a Debian one", "", "firefox-esr.desktop", "", ""},
		{"x-www-browser a snap", "", "", "chromium", "/snap/bin/chromium"},
		{"nothing known", "", "", "", ""},
	} {
		l := snapLookups{
			getenv: func(k string) string {
				if k == "BROWSER" {
					return tc.browserEnv
				}
				return ""
			},
			lookPath: func(c string) (string, error) {
				if p, ok := paths[c]; ok {
					if c == "x-www-browser" && tc.xwww != "" {
						return tc.xwww, nil
					}
					return p, nil
				}
				return "", errors.New("not found")
			},
			evalSymlinks: func(p string) (string, error) {
				if r, ok := links[p]; ok {
					return r, nil
				}
				return p, nil
			},
			defaultBrowser: func() string { return tc.desktop },
		}
		if got := l.snapName(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestSnapPageDir(t *testing.T) {
	home := t.TempDir()
	if got := snapPageDir("firefox", home); got != "" {
		t.Errorf("no ~/snap/firefox/common: %q, want none", got)
	}
	common := filepath.Join(home, "snap", "firefox", "common")
	if err := os.MkdirAll(common, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := snapPageDir("firefox", home); got != common {
		t.Errorf("%q, want %q", got, common)
	}
}
