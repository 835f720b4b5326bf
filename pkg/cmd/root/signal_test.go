//go:build unix

package root

import (
	"context"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// A closed terminal (SIGHUP) stops a command as Ctrl-C does, so it cleans
// up, instead of killing easyai on the spot.
func TestSIGHUPCancelsTheContext(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT} {
		ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
		if err := syscall.Kill(syscall.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Errorf("%v did not cancel the context", sig)
		}
		stop()
	}
}
