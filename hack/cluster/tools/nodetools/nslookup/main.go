// Command nslookup resolves one name through the resolver of
// /etc/resolv.conf (search domains included) and exits 0 when it has an
// address, 1 when it has none. The training-operator's PyTorch init
// container waits for the master with "until nslookup MASTER"; busybox's
// nslookup exits 1 when any search domain answers NXDOMAIN, even after
// another one answered, so the real node's init image carries this one.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: nslookup NAME")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, os.Args[1])
	if err != nil || len(addrs) == 0 {
		fmt.Fprintf(os.Stderr, "nslookup: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Printf("Name:\t%s\n", os.Args[1])
	for _, a := range addrs {
		fmt.Printf("Address: %s\n", a)
	}
}
