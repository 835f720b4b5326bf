package kube

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport/spdy"
)

// burstSize is list's LISTs at once: one per kind.
const burstSize = 9

// togetherServer is an HTTP/2 server over TLS whose handler answers
// "together" once n requests are in it at the same time, or "alone" after
// two seconds without them.
func togetherServer(t *testing.T, n int) *httptest.Server {
	var mu sync.Mutex
	in := 0
	all := make(chan struct{})
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if in++; in == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
			fmt.Fprint(w, "together")
		case <-time.After(2 * time.Second):
			fmt.Fprint(w, "alone")
		}
	}))
	s.EnableHTTP2 = true
	// The handshakes of the connections the client drops are cut short.
	s.Config.ErrorLog = log.New(io.Discard, "", 0)
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

// configOf is the REST config of server s, dialing through dial.
func configOf(s *httptest.Server, dial func(ctx context.Context, network, addr string) (net.Conn, error)) *rest.Config {
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
	return &rest.Config{Host: s.URL, TLSClientConfig: rest.TLSClientConfig{CAData: ca}, Dial: dial}
}

// countEntries wraps cfg's transport, outermost, to count the requests
// that have started; started is closed when n have.
func countEntries(cfg *rest.Config, n int) (started chan struct{}) {
	started = make(chan struct{})
	var entered atomic.Int32
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			if entered.Add(1) == int32(n) {
				close(started)
			}
			return rt.RoundTrip(req)
		})
	})
	return started
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// burst sends n GETs at once through client and returns each one's body,
// or its error.
func burst(client *http.Client, url string, n int, ctx func(i int) context.Context) []string {
	out := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c := context.Background()
			if ctx != nil {
				c = ctx(i)
			}
			req, _ := http.NewRequestWithContext(c, http.MethodGet, url, nil)
			resp, err := client.Do(req)
			if err != nil {
				out[i] = "error: " + err.Error()
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			out[i] = string(body)
		})
	}
	wg.Wait()
	return out
}

// dialer dials TCP after wait returns, counting the dials.
type dialer struct {
	dials atomic.Int32
	wait  func(dial int32) error
}

func (d *dialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	n := d.dials.Add(1)
	if d.wait != nil {
		if err := d.wait(n); err != nil {
			return nil, err
		}
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

func waitOrTimeout(ch <-chan struct{}) {
	select {
	case <-ch:
	case <-time.After(2 * time.Second):
	}
}

func TestDialOnceOpensOneConnectionForABurst(t *testing.T) {
	s := togetherServer(t, burstSize)
	d := &dialer{}
	cfg := configOf(s, d.dial)
	DialOnce(cfg)
	started := countEntries(cfg, burstSize)
	// No connection is made before every request has started.
	d.wait = func(int32) error { waitOrTimeout(started); return nil }
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range burst(client, s.URL, burstSize, nil) {
		// "together": the requests that waited went on when the first had
		// its connection, not when it had its answer.
		if body != "together" {
			t.Errorf("request %d: %s", i, body)
		}
	}
	if n := d.dials.Load(); n != 1 {
		t.Errorf("%d requests at once dialed %d connections, want 1", burstSize, n)
	}
	// With a connection, a burst goes on at once, on it.
	for i, body := range burst(client, s.URL, burstSize, nil) {
		if body != "together" {
			t.Errorf("second burst, request %d: %s", i, body)
		}
	}
	if n := d.dials.Load(); n != 1 {
		t.Errorf("a second burst dialed: %d connections in all, want 1", n)
	}
}

// TestPlainTransportDialsPerRequest is why DialOnce exists: Go's transport
// dials a connection for each request that starts before one is open, even
// to an HTTP/2 server. If this test fails, Go no longer does: DialOnce can
// go.
func TestPlainTransportDialsPerRequest(t *testing.T) {
	s := togetherServer(t, burstSize)
	all := make(chan struct{})
	d := &dialer{}
	// No dial goes on before all have started, or two seconds passed.
	d.wait = func(n int32) error {
		if n == burstSize {
			close(all)
		}
		waitOrTimeout(all)
		return nil
	}
	client, err := rest.HTTPClientFor(configOf(s, d.dial))
	if err != nil {
		t.Fatal(err)
	}
	for i, body := range burst(client, s.URL, burstSize, nil) {
		if body != "together" {
			t.Errorf("request %d: %s", i, body)
		}
	}
	if n := d.dials.Load(); n != burstSize {
		t.Errorf("%d requests at once dialed %d connections without DialOnce; Go's transport used to dial one each", burstSize, n)
	}
}

func TestDialOnceLetsTheOthersDialWhenTheFirstFails(t *testing.T) {
	s := togetherServer(t, burstSize-1)
	d := &dialer{}
	cfg := configOf(s, d.dial)
	DialOnce(cfg)
	started := countEntries(cfg, burstSize)
	d.wait = func(n int32) error {
		if n == 1 {
			waitOrTimeout(started)
			return errors.New("refused")
		}
		return nil
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	failed, together := 0, 0
	for _, body := range burst(client, s.URL, burstSize, nil) {
		switch body {
		case "together":
			together++
		default:
			failed++
		}
	}
	if failed != 1 || together != burstSize-1 {
		t.Errorf("got %d failed and %d answered together, want 1 and %d", failed, together, burstSize-1)
	}
}

func TestDialOnceWaitEndsWithItsContext(t *testing.T) {
	s := togetherServer(t, 1)
	release := make(chan struct{})
	d := &dialer{wait: func(int32) error { <-release; return nil }}
	cfg := configOf(s, d.dial)
	DialOnce(cfg)
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan string)
	go func() { first <- burst(client, s.URL, 1, nil)[0] }()
	for d.dials.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the waiting request ended with %v, want its context's error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting request did not end with its context")
	}
	if n := d.dials.Load(); n != 1 {
		t.Errorf("%d dials, want 1 (the first request's)", n)
	}
	close(release)
	if body := <-first; body != "together" {
		t.Errorf("first request: %s", body)
	}
}

// TestDialOnceLeavesUpgradesAlone: exec, attach and port-forward connect
// through transports of their own, which DialOnce does not wrap.
func TestDialOnceLeavesUpgradesAlone(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	DialOnce(cfg)
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if chain := chainOf(rt); hasDialOnce(chain) || chain[len(chain)-1] != upgrader.(http.RoundTripper) {
		t.Errorf("SPDY round trippers %T, want no DialOnce and the upgrader innermost", chain)
	}
	plain, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if chain := chainOf(plain); !hasDialOnce(chain) {
		t.Errorf("REST round trippers %T, want DialOnce's among them", chain)
	}
}

// chainOf is rt and the round trippers it wraps, outermost first.
func chainOf(rt http.RoundTripper) []http.RoundTripper {
	chain := []http.RoundTripper{rt}
	for {
		w, ok := rt.(interface{ WrappedRoundTripper() http.RoundTripper })
		if !ok {
			return chain
		}
		rt = w.WrappedRoundTripper()
		chain = append(chain, rt)
	}
}

func hasDialOnce(chain []http.RoundTripper) bool {
	for _, rt := range chain {
		if _, ok := rt.(*dialOnceRoundTripper); ok {
			return true
		}
	}
	return false
}
