package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

const (
	// DefaultTimeout bounds each POST.
	DefaultTimeout = 10 * time.Second
	// DefaultRetryPause is the pause before the one retry of a POST that
	// found no answer or a busy service (5xx, 429).
	DefaultRetryPause = time.Second
)

// Notifier sends the notifications of one wait to its webhooks.
type Notifier struct {
	Webhooks []Webhook
	When     When
	// Warnings gets one line per webhook a notification did not reach.
	Warnings io.Writer
	// UserAgent of the requests: "easyai/1.4.0".
	UserAgent string
	// Timeout bounds each POST (0: DefaultTimeout); RetryPause is the
	// pause before its one retry (0: DefaultRetryPause).
	Timeout    time.Duration
	RetryPause time.Duration
	// Client makes the requests (nil: one that follows no redirect, which
	// would turn the POST into a GET).
	Client *http.Client
	// Now is the clock of the notifications (nil: time.Now).
	Now func() time.Time
}

// Notify sends o to every webhook at once, when When wants o's event, and
// waits for them. A webhook it does not reach (no connection, an answer
// other than 2xx, or none within Timeout, twice) is one line on Warnings,
// naming the webhook but never its URL; Notify returns how many those are.
// Nothing it does is an error of the command.
func (n *Notifier) Notify(ctx context.Context, o Outcome) int {
	if n == nil || !n.When.Wants(o.Event) || len(n.Webhooks) == 0 {
		return 0
	}
	now := time.Now
	if n.Now != nil {
		now = n.Now
	}
	note := New(o, now())
	errs := make([]error, len(n.Webhooks))
	var wg sync.WaitGroup
	for i, w := range n.Webhooks {
		wg.Go(func() {
			body, err := payload(w.Format, note)
			if err == nil {
				err = n.post(ctx, w, body)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	failed := 0
	for i, err := range errs {
		if err == nil {
			continue
		}
		failed++
		if n.Warnings != nil {
			fmt.Fprintf(n.Warnings, "Warning: the %s notification did not reach %s: %v\n", o.Event, n.Webhooks[i], err)
		}
	}
	return failed
}

// post POSTs body to w, once more after a pause when the first attempt
// found no answer or a busy service.
func (n *Notifier) post(ctx context.Context, w Webhook, body []byte) error {
	pause := n.RetryPause
	if pause <= 0 {
		pause = DefaultRetryPause
	}
	retry, err := n.postOnce(ctx, w, body)
	if err == nil || !retry {
		return err
	}
	select {
	case <-ctx.Done():
		return err
	case <-time.After(pause):
	}
	if _, again := n.postOnce(ctx, w, body); again != nil {
		return fmt.Errorf("%v (tried twice)", again)
	}
	return nil
}

// postOnce makes one POST; retry says whether another may succeed. Its
// error is one line without the URL.
func (n *Notifier) postOnce(ctx context.Context, w Webhook, body []byte) (retry bool, err error) {
	timeout := n.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if w.url == nil {
		return false, errors.New("no URL")
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, w.url.String(), bytes.NewReader(body))
	if err != nil {
		return false, errors.New("the request cannot be made")
	}
	req.Header.Set("Content-Type", "application/json")
	if n.UserAgent != "" {
		req.Header.Set("User-Agent", n.UserAgent)
	}
	resp, err := n.client().Do(req)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return false, errors.New("interrupted")
		case errors.Is(rctx.Err(), context.DeadlineExceeded):
			return true, fmt.Errorf("no answer within %s", timeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			// Its own text starts with the method and the whole URL.
			err = ue.Err
		}
		return true, errors.New(oneLine(w.scrub(err.Error()), 200))
	}
	defer resp.Body.Close()
	said, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return false, nil
	}
	msg := "HTTP " + oneLine(w.scrub(resp.Status), 80)
	if text := oneLine(w.scrub(string(bytes.TrimSpace(said))), 120); text != "" {
		msg += ": " + text
	}
	return resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests, errors.New(msg)
}

func (n *Notifier) client() *http.Client {
	if n.Client != nil {
		return n.Client
	}
	return &http.Client{
		Transport:     http.DefaultTransport.(*http.Transport).Clone(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// oneLine is text made one line of at most most characters.
func oneLine(text string, most int) string {
	return cut(jobmodel.OneLine(text), most)
}

// cut is text cut to at most most characters, "…" marking a cut.
func cut(text string, most int) string {
	if r := []rune(text); len(r) > most {
		return string(r[:most]) + "…"
	}
	return text
}
