package kube

import (
	"net/http"

	"k8s.io/client-go/rest"
)

// What a client of many long streams (logs -f of hundreds of replicas)
// lets its HTTP/2 connection take in ahead of the readers: Go's defaults
// are 4 MiB for each stream and 1 GiB for the connection, so a backlog of
// log lines the output has not caught up with sits in memory. Per stream,
// 256 KiB still fills a link of 5 MB/s at 50 ms of round trip.
const (
	StreamReceiveBuffer     = 256 << 10
	ConnectionReceiveBuffer = 8 << 20
)

// StreamingConfig is cfg for a client of its own, on a connection of its own,
// whose HTTP/2 receive buffers are bounded: at most perStream bytes of one
// stream and perConnection bytes of all its streams that no reader has taken
// yet. (client-go shares one transport between configs of the same TLS
// settings unless a proxy function is set; one is, the same as the default.)
func StreamingConfig(cfg *rest.Config, perStream, perConnection int) *rest.Config {
	c := rest.CopyConfig(cfg)
	if c.Proxy == nil {
		c.Proxy = http.ProxyFromEnvironment
	}
	wrap := c.WrapTransport
	c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if t, ok := rt.(*http.Transport); ok {
			h2 := &http.HTTP2Config{}
			if t.HTTP2 != nil {
				*h2 = *t.HTTP2
			}
			h2.MaxReceiveBufferPerStream = perStream
			h2.MaxReceiveBufferPerConnection = perConnection
			t.HTTP2 = h2
		}
		if wrap != nil {
			return wrap(rt)
		}
		return rt
	}
	return c
}
