// Command timakerd serves the contract test server of timaker's API
// (package server) on a local address, for demos and tests without a
// timaker service. It is not timaker: see the server package.
//
//	go run ./test/timakerd --listen 127.0.0.1:8080 --secret-id ID --secret-key KEY --host HOST
//
// Its first line on stdout is the URL it serves; it logs each request on
// stderr and stops on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/easyai-dev/easyai/test/timakerd/server"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "timakerd:", err)
		os.Exit(1)
	}
}

func run() error {
	listen := flag.String("listen", "127.0.0.1:8080", "the address to listen on (port 0: any free port)")
	secretID := flag.String("secret-id", "test-secret-id", "the secret id requests are signed with")
	secretKey := flag.String("secret-key", "test-secret-key", "its secret key")
	host := flag.String("host", "", "the gateway's host name, which signatures must cover (empty: each request's Host header)")
	step := flag.Duration("step", time.Second, "how long a job stays in each status")
	trainFor := flag.Int("train-for", 3, "how many steps a job trains")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if *secretID == "" || *secretKey == "" {
		return errors.New("--secret-id and --secret-key must not be empty")
	}

	logger := log.New(os.Stderr, "timakerd: ", log.LstdFlags)
	srv := server.New(server.Options{
		Host:        *host,
		Credentials: map[string]string{*secretID: *secretKey},
		Step:        *step,
		TrainFor:    *trainFor,
		Logf:        logger.Printf,
	})
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(shutdown)
}
