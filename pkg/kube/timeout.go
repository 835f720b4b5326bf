package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// DefaultRequestTimeout bounds each request that is not a stream when
// --request-timeout is not given: a server that accepts the connection and
// never answers must not hang easyai.
const DefaultRequestTimeout = 30 * time.Second

// LimitRequests moves cfg's Timeout (from --request-timeout) from the
// whole HTTP client, where it would also cut streams (logs -f, watches,
// exec, port-forward, downloads), to each request that is not a stream:
// such a request gets timeout from its start to the end of its answer's
// body, and its expiry is a RequestTimeoutError. A timeout of 0 bounds
// nothing.
func LimitRequests(cfg *rest.Config) {
	timeout := cfg.Timeout
	cfg.Timeout = 0
	if timeout <= 0 {
		return
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return &timeoutRoundTripper{next: rt, timeout: timeout}
	})
}

// RequestTimeoutError is a request the API server did not answer in time.
// It is not exit 5 (a wait that ran out of time): it is exit 1, with a hint.
type RequestTimeoutError struct {
	Method, Path string
	Timeout      time.Duration
}

func (e *RequestTimeoutError) Error() string {
	return fmt.Sprintf("the server did not answer %s %s within %s", e.Method, e.Path, e.Timeout)
}

// requestTimeout wraps a RequestTimeoutError with its exit code and hint.
func requestTimeout(req *http.Request, timeout time.Duration) error {
	return &exit.CodedError{
		Code: exit.Error,
		Err:  &RequestTimeoutError{Method: req.Method, Path: req.URL.Path, Timeout: timeout},
		Hint: "is the kubeconfig's server a Kubernetes API server, and reachable? --request-timeout sets the limit of one request (0: none)",
	}
}

type timeoutRoundTripper struct {
	next    http.RoundTripper
	timeout time.Duration
}

func (t *timeoutRoundTripper) WrappedRoundTripper() http.RoundTripper { return t.next }

func (t *timeoutRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if Streaming(req) {
		return t.next.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	expired := func() bool {
		return errors.Is(ctx.Err(), context.DeadlineExceeded) && req.Context().Err() == nil
	}
	resp, err := t.next.RoundTrip(req.WithContext(ctx))
	if err != nil {
		if expired() {
			err = requestTimeout(req, t.timeout)
		}
		cancel()
		return nil, err
	}
	resp.Body = &timeoutBody{ReadCloser: resp.Body, cancel: cancel, expired: func() error {
		if expired() {
			return requestTimeout(req, t.timeout)
		}
		return nil
	}}
	return resp, nil
}

// timeoutBody ends the request's timeout when its body is closed, and
// names the timeout when it is what cut the body short.
type timeoutBody struct {
	io.ReadCloser
	cancel  context.CancelFunc
	expired func() error
}

func (b *timeoutBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		if timeout := b.expired(); timeout != nil {
			err = timeout
		}
	}
	return n, err
}

func (b *timeoutBody) Close() error {
	defer b.cancel()
	return b.ReadCloser.Close()
}

// Streaming reports whether a request is a stream that may rightly last
// longer than any one answer: a watch, a followed log, a connection
// upgraded for exec, attach or port-forward, or a log (which may be long).
func Streaming(req *http.Request) bool {
	q := req.URL.Query()
	if v := q.Get("watch"); v == "true" || v == "1" {
		return true
	}
	if q.Get("follow") == "true" || req.Header.Get("Upgrade") != "" {
		return true
	}
	for _, sub := range []string{"/log", "/exec", "/attach", "/portforward", "/proxy"} {
		if strings.HasSuffix(req.URL.Path, sub) {
			return true
		}
	}
	return strings.Contains(req.URL.Path, "/watch/")
}
