package serving

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// MaxAnswer is the most of an answer invoke reads (64 MiB).
const MaxAnswer = 64 << 20

// Call is one request "serve invoke" sends to a serving.
type Call struct {
	// Method is GET without a body, POST with one, unless given.
	Method string
	// Path is the URL path and query ("/v1/completions").
	Path   string
	Body   []byte
	Header http.Header
	// Timeout bounds the request once the port is forwarded.
	Timeout time.Duration
}

// Answer is what the server answered.
type Answer struct {
	// Pod is the pod that answered.
	Pod string
	// Status is the status line ("200 OK"), Code its number.
	Status string
	Code   int
	Header http.Header
	Body   []byte
	// Truncated: the answer was longer than MaxAnswer.
	Truncated bool
}

// Invoke sends one request to a ready pod of the serving, through the API
// server (a port-forward, as "easyai port-forward" makes), and returns the
// answer, whatever its status. A serving without a ready pod is an error
// naming why (its state's reason).
func (c *Client) Invoke(ctx context.Context, config *rest.Config, namespace, name string, call Call, errOut io.Writer) (*Answer, error) {
	pod, port, err := c.ReadyPod(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	local, stop, err := c.forward(ctx, config, namespace, pod, port, errOut)
	if err != nil {
		return nil, err
	}
	defer stop()
	return send(ctx, fmt.Sprintf("http://127.0.0.1:%d", local), pod, call)
}

// ReadyPod is a ready pod of the serving and the port its server listens
// on; a serving without one is an error naming why (its state's reason).
func (c *Client) ReadyPod(ctx context.Context, namespace, name string) (pod string, port uint16, err error) {
	doc, err := c.state(ctx, namespace, name)
	if err != nil {
		return "", 0, err
	}
	if doc.Port < 1 || doc.Port > 65535 {
		return "", 0, exit.UsageErrorf("serving %s: its annotation %s names no port", name, PortAnnotation)
	}
	for _, p := range doc.Pods {
		if p.Ready && p.State == "Running" {
			return p.Name, uint16(doc.Port), nil
		}
	}
	why := doc.State
	if doc.Reason != "" {
		why += ": " + doc.Reason
	}
	return "", 0, fmt.Errorf("serving %s has no ready pod to answer (%s)", name, why)
}

// forward forwards a free local port to the pod's port until stop is
// called.
func (c *Client) forward(ctx context.Context, config *rest.Config, namespace, pod string, port uint16, errOut io.Writer) (uint16, func(), error) {
	fctx, cancel := context.WithCancel(ctx)
	ready := make(chan uint16, 1)
	f := &remote.Forwarder{
		Config: config, Kube: c.Kube, Namespace: namespace, Addresses: []string{"127.0.0.1"},
		Ports: []remote.PortSpec{{Remote: port}}, Out: io.Discard, ErrOut: errOut,
		Resolve: func(context.Context) (jobmodel.Replica, error) {
			return jobmodel.Replica{Task: "pod " + pod, Pod: pod, Phase: "Running"}, nil
		},
		Ready: func(_ jobmodel.Replica, ports []remote.PortSpec) { ready <- ports[0].Local },
	}
	done := make(chan error, 1)
	go func() { done <- f.Run(fctx) }()
	stop := func() {
		cancel()
		<-done
	}
	select {
	case local := <-ready:
		return local, stop, nil
	case err := <-done:
		cancel()
		return 0, nil, fmt.Errorf("forwarding to pod %s: %w", pod, err)
	case <-ctx.Done():
		stop()
		return 0, nil, ctx.Err()
	}
}

// send sends call to base and reads the answer.
func send(ctx context.Context, base, pod string, call Call) (*Answer, error) {
	method := call.Method
	if method == "" {
		method = http.MethodGet
		if call.Body != nil {
			method = http.MethodPost
		}
	}
	path := call.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	var body io.Reader
	if call.Body != nil {
		body = bytes.NewReader(call.Body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, body)
	if err != nil {
		return nil, exit.UsageErrorf("the request: %v", err)
	}
	for k, vs := range call.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if call.Body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{Timeout: call.Timeout}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s on pod %s: %w", method, path, pod, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer of pod %s: %w", pod, err)
	}
	a := &Answer{Pod: pod, Status: resp.Status, Code: resp.StatusCode, Header: resp.Header, Body: data}
	if len(data) > MaxAnswer {
		a.Body, a.Truncated = data[:MaxAnswer], true
	}
	return a, nil
}
