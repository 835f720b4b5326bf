package kube

import (
	"net/http"
	"testing"

	"k8s.io/client-go/rest"
)

func TestStreamingConfigBoundsItsOwnTransport(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1", TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	var wrapped []*http.Transport
	var userWrapped int
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		userWrapped++
		if tr, ok := rt.(*http.Transport); ok {
			wrapped = append(wrapped, tr)
		}
		return rt
	}
	sc := StreamingConfig(cfg, 64<<10, 1<<20)
	if cfg.Proxy != nil {
		t.Error("the config given was changed")
	}
	for range 2 {
		if _, err := rest.TransportFor(sc); err != nil {
			t.Fatal(err)
		}
	}
	if userWrapped != 2 || len(wrapped) != 2 {
		t.Fatalf("the config's own WrapTransport ran %d times on %d transports, want 2 and 2", userWrapped, len(wrapped))
	}
	for i, tr := range wrapped {
		if tr.HTTP2 == nil || tr.HTTP2.MaxReceiveBufferPerStream != 64<<10 || tr.HTTP2.MaxReceiveBufferPerConnection != 1<<20 {
			t.Errorf("transport %d: HTTP2 %+v, want the bounds", i, tr.HTTP2)
		}
	}
	if wrapped[0] == wrapped[1] {
		t.Error("the streaming transport is shared (cached): bounding it would bound every client's")
	}
	// The ordinary client's transport is another one, unbounded.
	wrapped = nil
	if _, err := rest.TransportFor(cfg); err != nil {
		t.Fatal(err)
	}
	if len(wrapped) != 1 || wrapped[0].HTTP2 != nil {
		t.Errorf("the ordinary transport got HTTP2 %+v, want none", wrapped[0].HTTP2)
	}
}
