package kube

import (
	"net/http"
	"net/http/httptrace"
	"sync"

	"k8s.io/client-go/rest"
)

// DialOnce makes the clients of cfg open one connection to the API server
// for a burst of requests that start before any connection is open, rather
// than one each. Go's HTTP transport dials (and makes a TLS handshake,
// client certificate included) for every request that finds no connection,
// and over HTTP/2 keeps only one of them afterwards: list's nine LISTs at
// once cost nine handshakes. With DialOnce, a request that finds no
// connection yet waits until the first one in flight has got its
// connection (not its answer), then shares it. Once a connection has been
// had, requests go on at once, as many at a time as before.
//
// A request whose wait is cancelled ends with its context's error; when
// the first request fails to get a connection, those waiting go on and
// dial each. A server of HTTP/1.1 only costs the burst one handshake of
// waiting, then as many connections as before. Connections upgraded for
// exec, attach or port-forward (SPDY, websockets) are made by transports
// of their own, which DialOnce leaves as they are, as it does plain HTTP.
func DialOnce(cfg *rest.Config) {
	gates := &connGates{byKey: map[gateKey]*connGate{}}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		t := httpTransportOf(rt)
		if t == nil {
			return rt
		}
		return &dialOnceRoundTripper{next: rt, transport: t, gates: gates}
	})
}

// httpTransportOf is the *http.Transport rt is or wraps, or nil.
func httpTransportOf(rt http.RoundTripper) *http.Transport {
	for {
		switch r := rt.(type) {
		case *http.Transport:
			return r
		case interface{ WrappedRoundTripper() http.RoundTripper }:
			rt = r.WrappedRoundTripper()
		default:
			return nil
		}
	}
}

// gateKey is one transport's connections to one host: client-go shares a
// transport between the clients of configs of the same TLS settings.
type gateKey struct {
	transport *http.Transport
	host      string
}

type connGates struct {
	mu    sync.Mutex
	byKey map[gateKey]*connGate
}

func (g *connGates) of(key gateKey) *connGate {
	g.mu.Lock()
	defer g.mu.Unlock()
	gate := g.byKey[key]
	if gate == nil {
		gate = &connGate{}
		g.byKey[key] = gate
	}
	return gate
}

// connGate holds back the requests to a host that start while the first
// one is getting a connection.
type connGate struct {
	mu sync.Mutex
	// connected: a request got a connection; no request waits any more.
	connected bool
	// dialing, while a request is getting the first connection, is closed
	// when it has got it or has failed.
	dialing chan struct{}
}

// enter says what a request does: go on (wait and lead nil and false),
// wait for wait to be closed, or lead (get the first connection).
func (g *connGate) enter() (wait chan struct{}, lead bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.connected:
		return nil, false
	case g.dialing != nil:
		return g.dialing, false
	default:
		g.dialing = make(chan struct{})
		return g.dialing, true
	}
}

// release lets go the requests waiting on dialing, once; connected says
// whether the leading request got a connection.
func (g *connGate) release(dialing chan struct{}, connected bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if connected {
		g.connected = true
	}
	if g.dialing == dialing {
		close(dialing)
		g.dialing = nil
	}
}

type dialOnceRoundTripper struct {
	next      http.RoundTripper
	transport *http.Transport
	gates     *connGates
}

func (d *dialOnceRoundTripper) WrappedRoundTripper() http.RoundTripper { return d.next }

func (d *dialOnceRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	// Only TLS connections can be HTTP/2 and shared; an upgrade takes its
	// connection for itself.
	if req.URL.Scheme != "https" || req.Header.Get("Upgrade") != "" {
		return d.next.RoundTrip(req)
	}
	gate := d.gates.of(gateKey{transport: d.transport, host: req.URL.Host})
	wait, lead := gate.enter()
	if lead {
		trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { gate.release(wait, true) }}
		resp, err := d.next.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
		gate.release(wait, err == nil)
		return resp, err
	}
	if wait != nil {
		select {
		case <-wait:
		case <-req.Context().Done():
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, req.Context().Err()
		}
	}
	return d.next.RoundTrip(req)
}
