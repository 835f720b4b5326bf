// Command apiproxy passes TCP connections from an address of the real node's
// bridge on to the API server on the loopback address: the real node has no
// kube-proxy, so a pod that talks to the API server (an MPIJob's launcher,
// whose kubectl execs into the workers) reaches it here. The bytes are passed
// as they are: TLS stays between the pod and the API server.
package main

import (
	"flag"
	"io"
	"log"
	"net"
	"time"
)

func main() {
	listen := flag.String("listen", "", "the address to listen on (HOST:PORT)")
	to := flag.String("to", "", "the address to pass connections to (HOST:PORT)")
	flag.Parse()
	if *listen == "" || *to == "" {
		log.Fatal("apiproxy: -listen and -to are needed")
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("passing %s on to %s", *listen, *to)
	for {
		c, err := l.Accept()
		if err != nil {
			log.Print(err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		go pass(c, *to)
	}
}

// pass copies both ways between c and a new connection to the address, and
// closes both once either side is done.
func pass(c net.Conn, to string) {
	defer c.Close()
	up, err := net.DialTimeout("tcp", to, 10*time.Second)
	if err != nil {
		log.Print(err)
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, up); done <- struct{}{} }()
	<-done
}
