package webopen

import (
	"bytes"
	"html/template"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// RedirectTTL is how long a redirect page stays on disk: long enough for a
// browser to start and load it; the page also goes when open exits.
const RedirectTTL = time.Minute

// redirectPage sends the browser on to the URL with the token. html/template
// escapes the URL for the attribute and for the script.
var redirectPage = template.Must(template.New("redirect").Parse(`<!DOCTYPE html>
<html><head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0; url={{.URL}}">
<title>easyai open</title>
<script>window.location.replace({{.URL}});</script>
</head><body><a href="{{.URL}}">Continue</a></body></html>
`))

// postPage logs the browser in by posting the password to the login form's
// URL (code-server's), as the user would by typing it.
var postPage = template.Must(template.New("post").Parse(`<!DOCTYPE html>
<html><head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>easyai open</title>
</head><body onload="document.forms[0].submit()">
<form method="POST" action="{{.URL}}"><input type="hidden" name="password" value="{{.Password}}"><button type="submit">Log in</button></form>
</body></html>
`))

// Login is how the browser is logged in to a tool: URL alone (the token in
// it, Jupyter's ?token=), or Password posted to URL, a login form.
type Login struct {
	URL      string
	Password string
}

// redirect is a page on disk that sends the browser to a URL holding a
// login token, so that the token is never in a command line (the browser's
// argv, which other users of the host see in ps): the page is 0600 in a new
// 0700 directory, and Remove deletes both.
type redirect struct {
	Path string
	dir  string
	once sync.Once
}

// writeRedirect writes the page for login in a new private directory under
// base ("": $XDG_RUNTIME_DIR, else the system's temporary directory).
func writeRedirect(base string, login Login) (*redirect, error) {
	if base == "" {
		base = os.Getenv("XDG_RUNTIME_DIR")
	}
	if base == "" {
		base = os.TempDir()
	}
	var page bytes.Buffer
	tmpl := redirectPage
	if login.Password != "" {
		tmpl = postPage
	}
	data := struct {
		URL      template.URL
		Password string
	}{template.URL(login.URL), login.Password}
	if err := tmpl.Execute(&page, data); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(base, "easyai-open-")
	if err != nil {
		return nil, err
	}
	r := &redirect{Path: filepath.Join(dir, "open.html"), dir: dir}
	f, err := os.OpenFile(r.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.Write(page.Bytes())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		r.Remove()
		return nil, err
	}
	return r, nil
}

// Remove deletes the page and its directory; it may be called many times.
func (r *redirect) Remove() {
	if r == nil {
		return
	}
	r.once.Do(func() { _ = os.RemoveAll(r.dir) })
}
