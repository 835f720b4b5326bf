// Command coredns is CoreDNS with the few plugins the local cluster uses:
// the kubernetes plugin answers the cluster domain (Services, headless ones
// with their pods' addresses), on the address that bind names. Nothing is
// forwarded: the real node's pods have no route out.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

func init() {
	// In CoreDNS's own order (core/dnsserver/zdirectives.go): a directive
	// not listed here is refused in the Corefile.
	dnsserver.Directives = []string{"bind", "ready", "errors", "log", "cache", "kubernetes"}
}

func main() { coremain.Run() }
