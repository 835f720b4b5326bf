package transfer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestResumer: a broken stream is made again while retries remain, each
// said once and after a doubling wait; anything else, or an interruption,
// ends the attempts with its error.
func TestResumer(t *testing.T) {
	var said []string
	warn := func(format string, args ...any) { said = append(said, fmt.Sprintf(format, args...)) }
	broken := &brokenStream{errors.New("connection reset")}
	r := &resumer{max: 2, backoff: time.Millisecond}
	for i := 0; i < 2; i++ {
		if err := r.again(context.Background(), broken, "from mnist-worker-0", warn); err != nil {
			t.Fatalf("retry %d: %v", i+1, err)
		}
	}
	if err := r.again(context.Background(), broken, "from mnist-worker-0", warn); err != broken {
		t.Errorf("no retry left: %v, want the broken stream", err)
	}
	want := "Warning: the stream from mnist-worker-0 broke (connection reset); resuming in 1ms (retry 1 of 2)\n" +
		"Warning: the stream from mnist-worker-0 broke (connection reset); resuming in 2ms (retry 2 of 2)"
	if got := strings.Join(said, "\n"); got != want || r.retries != 2 || r.backoff != 4*time.Millisecond {
		t.Errorf("said\n%s\nretries %d, backoff %s", got, r.retries, r.backoff)
	}

	final := errors.New("tar in mnist-worker-0:/x failed")
	if err := (&resumer{max: 5}).again(context.Background(), final, "to x", warn); err != final {
		t.Errorf("a final error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := (&resumer{max: 5}).again(ctx, broken, "to x", warn); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted: %v", err)
	}
	r = &resumer{max: 5, backoff: MaxBackoff}
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := r.again(ctx, broken, "to x", warn); !errors.Is(err, context.DeadlineExceeded) || r.backoff != MaxBackoff {
		t.Errorf("interrupted while waiting: %v, backoff %s", err, r.backoff)
	}
}

// TestStreamWatchEndsAnIdleStream: nothing sent for idle ends the stream
// with an idle error, said to stop and kept as why.
func TestStreamWatchEndsAnIdleStream(t *testing.T) {
	stopped := make(chan error, 1)
	w := watchStream(5*time.Millisecond, func(err error) { stopped <- err })
	defer w.timer.Stop()
	var idle *idleError
	select {
	case err := <-stopped:
		if !errors.As(err, &idle) || !errors.As(w.stopped(), &idle) {
			t.Errorf("stopped with %v, reason %v", err, w.stopped())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not end the stream")
	}
}
