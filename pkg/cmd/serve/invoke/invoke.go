// Package invoke is "easyai serve invoke": one request to a serving,
// through the API server, and its answer.
package invoke

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/serving"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// Options of serve invoke.
type Options struct {
	serveargs.Named
	Data    string
	Path    string
	Headers []string
	Method  string
	Timeout time.Duration
	Include bool

	call serving.Call
}

// NewCmdInvoke returns "serve invoke"; runF replaces Complete and Run in tests.
func NewCmdInvoke(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: serveargs.NewNamed(f)}
	cmd := &cobra.Command{
		Use:   "invoke NAME [-d DATA | -d @FILE] [--path PATH] [-H 'KEY: VALUE']",
		Short: "Send one request to a serving and print the answer",
		Long: `Send one HTTP request to a ready pod of a serving, through the Kubernetes API
(a port-forward, as "easyai port-forward" makes: nothing needs to be exposed),
and print the answer's body on stdout. -d sends a body (JSON unless
-H 'Content-Type: ...' says otherwise) with POST; without it the request is a
GET; -X chooses another method. -d @FILE reads the body from a file, -d @-
from stdin.

Exit 0 when the server answered 2xx; otherwise 1, with the status line on
stderr (the body is printed all the same). On a terminal, what the server
sent keeps its colours but no other escape sequence reaches the terminal; to
a pipe or a file it is passed as it is.`,
		Example: `  easyai serve invoke bert --path /v1/completions -d '{"model": "/model", "prompt": "Hello", "max_tokens": 16}'
  easyai serve invoke bert --path /v1/completions -d @request.json | jq .choices
  easyai serve invoke bert --path /health`,
	}
	serveargs.TakeName(cmd, f, &o.Name, o, runF)
	fl := cmd.Flags()
	fl.StringVarP(&o.Data, "data", "d", "", "the request's body: text, @FILE or @- (stdin)")
	fl.StringVar(&o.Path, "path", "/", "the URL path (and query) of the request")
	fl.StringArrayVarP(&o.Headers, "header", "H", nil, "a header of the request, 'KEY: VALUE'; repeatable")
	fl.StringVarP(&o.Method, "request", "X", "", "the method (default: POST with -d, else GET)")
	fl.DurationVar(&o.Timeout, "timeout", 5*time.Minute, "how long the server may take to answer")
	fl.BoolVarP(&o.Include, "include", "i", false, "print the status line and the answer's headers before its body")
	return cmd
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if err := o.Named.Validate(); err != nil {
		return err
	}
	o.call = serving.Call{Method: strings.ToUpper(o.Method), Path: o.Path, Header: http.Header{}, Timeout: o.Timeout}
	if !strings.HasPrefix(o.Path, "/") || strings.ContainsAny(o.Path, " \t\r\n") {
		return exit.UsageErrorf("--path %q: a URL path, starting with /", o.Path)
	}
	for _, h := range o.Headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" || strings.ContainsAny(h, "\r\n") {
			return exit.UsageErrorf("-H %q: want 'KEY: VALUE'", h)
		}
		o.call.Header.Add(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	if o.Timeout <= 0 {
		return exit.UsageErrorf("--timeout %s: must be more than 0", o.Timeout)
	}
	return nil
}

// Complete reads the body.
func (o *Options) Complete() error {
	if o.Data == "" {
		return nil
	}
	if file, ok := strings.CutPrefix(o.Data, "@"); ok {
		data, err := userfile.Read(context.Background(), "-d", file, serving.MaxAnswer, o.Factory.IOStreams.In)
		if err != nil {
			return err
		}
		o.call.Body = data
		return nil
	}
	o.call.Body = []byte(o.Data)
	return nil
}

// Run sends the request and prints the answer.
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := serveargs.Client(o.Factory)
	if err != nil {
		return err
	}
	config, err := o.Factory.RESTConfig()
	if err != nil {
		return err
	}
	io := o.Factory.IOStreams
	a, err := c.Invoke(ctx, config, ns, o.Name, o.call, io.ErrOut)
	if err != nil {
		return err
	}
	var head bytes.Buffer
	if o.Include {
		fmt.Fprintf(&head, "HTTP %s\n", a.Status)
		_ = a.Header.Write(&head)
		head.WriteString("\n")
	}
	if err := write(io.Out, io.IsStdoutTTY(), append(head.Bytes(), a.Body...)); err != nil {
		return err
	}
	if a.Truncated {
		fmt.Fprintf(io.ErrOut, "Warning: the answer was cut at %s\n", printers.Bytes(serving.MaxAnswer))
	}
	if a.Code < 200 || a.Code > 299 {
		return fmt.Errorf("pod %s answered %s", a.Pod, jobmodel.OneLine(a.Status))
	}
	return nil
}

// write writes what the server sent: as it is to a pipe or a file; on a
// terminal line by line, made safe for it.
func write(w io.Writer, terminal bool, data []byte) error {
	if !terminal {
		_, err := w.Write(data)
		return err
	}
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(make([]byte, 0, 64<<10), len(data)+1)
	for s.Scan() {
		if _, err := fmt.Fprintln(w, printers.TerminalSafe(s.Text())); err != nil {
			return err
		}
	}
	return s.Err()
}
