package transfer

import (
	"context"
	"errors"
	"time"
)

// resumer paces the attempts of a stream: a broken one (*brokenStream) is
// made again, at most max times, after a wait of backoff, doubling each
// time up to MaxBackoff.
type resumer struct {
	max     int
	backoff time.Duration
	// retries counts the attempts made again.
	retries int
}

// again says whether the attempt that failed with err is made again: nil
// once the wait before it is over, else why not (err, not a broken stream
// or with no retry left; or ctx's error). Each retry is said on warn,
// naming the stream ("from POD", "to POD:PATH").
func (r *resumer) again(ctx context.Context, err error, stream string, warn func(format string, args ...any)) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var broken *brokenStream
	if !errors.As(err, &broken) || r.retries >= r.max {
		return err
	}
	r.retries++
	warn("Warning: the stream %s broke (%v); resuming in %s (retry %d of %d)", stream, broken.err, r.backoff, r.retries, r.max)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(r.backoff):
	}
	r.backoff = min(2*r.backoff, MaxBackoff)
	return nil
}
