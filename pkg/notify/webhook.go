// Package notify tells webhooks about a job that a wait watched (wait
// --notify, submit --wait --notify): when the wait ended, and when the job
// was first seen running. A plain URL gets a JSON document of easyai's own
// (a Notification, holding the job's get document); slack:URL and teams:URL
// get a one-line message in the payload of those services' incoming
// webhooks (docs/notifications.md).
//
// A webhook's URL is a secret (whoever holds it may post to the channel): it
// is never printed. Errors and warnings name a webhook by its number and
// host: "webhook 2 (slack, hooks.slack.com)".
package notify

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Format is the payload a webhook gets.
type Format string

const (
	// JSON is a Notification document, for a service of one's own.
	JSON Format = "json"
	// Slack is Slack's incoming webhook payload: {"text": "..."}.
	Slack Format = "slack"
	// Teams is a MessageCard, as the incoming webhooks of Microsoft Teams take it.
	Teams Format = "teams"
)

// None is the --notify value that sends nothing, not even to the
// configuration's webhooks.
const None = "none"

// Form is how a webhook is written, for messages and help.
const Form = "http(s)://HOST/PATH, slack:URL or teams:URL"

// Webhook is one URL notifications are POSTed to.
type Webhook struct {
	Format Format
	// Number is its place among the webhooks of a run, from 1: how
	// messages name it.
	Number int
	url    *url.URL
	// raw is the URL as given, only to scrub it out of messages.
	raw string
}

// ParseWebhook reads a webhook as --notify and the configuration give it:
// URL, slack:URL or teams:URL, the URL being http or https with a host.
// number is its place among the webhooks, for messages. The error never
// quotes raw: it says at most its scheme.
func ParseWebhook(raw string, number int) (Webhook, error) {
	w := Webhook{Format: JSON, Number: number}
	rest := raw
	for _, f := range []Format{Slack, Teams} {
		if after, ok := strings.CutPrefix(raw, string(f)+":"); ok {
			w.Format, rest = f, after
		}
	}
	if strings.TrimSpace(rest) == "" {
		return w, errors.New("empty: want " + Form)
	}
	// url.Parse's own errors quote the URL: they are not passed on.
	u, err := url.Parse(rest)
	if err != nil {
		return w, errors.New("not a URL: want " + Form)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		if u.Scheme == "" {
			return w, errors.New("not a URL (no scheme): want " + Form)
		}
		return w, fmt.Errorf("scheme %q is neither http nor https: want %s", safeScheme(u.Scheme), Form)
	case u.Host == "" || u.Hostname() == "":
		return w, fmt.Errorf("%s URL without a host: want %s", u.Scheme, Form)
	}
	w.url, w.raw = u, rest
	return w, nil
}

// safeScheme is a scheme fit for a message: a scheme is letters, digits,
// "+", "-" and "."; anything longer than a scheme is cut.
func safeScheme(s string) string {
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}

// Host is the webhook's host (and port), which messages may show.
func (w Webhook) Host() string {
	if w.url == nil {
		return ""
	}
	return w.url.Host
}

// String names the webhook in messages without its secret parts:
// "webhook 2 (slack, hooks.slack.com)".
func (w Webhook) String() string {
	what := w.Host()
	if w.Format != JSON {
		what = string(w.Format) + ", " + what
	}
	return fmt.Sprintf("webhook %d (%s)", w.Number, what)
}

// scrub removes the webhook's URL, and the parts of its path, query and
// user that could be a token, from text that may hold them (an error of the
// HTTP client, a body the service sent back).
func (w Webhook) scrub(text string) string {
	if w.url == nil {
		return text
	}
	secrets := []string{w.raw, w.url.String(), w.url.EscapedPath(), w.url.Path, w.url.RawQuery, w.url.User.String()}
	secrets = append(secrets, strings.Split(w.url.Path, "/")...)
	for _, values := range w.url.Query() {
		secrets = append(secrets, values...)
	}
	if p, ok := w.url.User.Password(); ok {
		secrets = append(secrets, p)
	}
	// Longest first: a part of a secret replaced first would leave the rest.
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	for _, secret := range secrets {
		// Short parts ("v1", "api") are no token, and are common words.
		if len(secret) >= minSecret {
			text = strings.ReplaceAll(text, secret, "…")
		}
	}
	return text
}

// minSecret is the length from which a part of a URL is scrubbed.
const minSecret = 8

// Redact is a webhook as the configuration shows it (config view, config
// get): its format, scheme and host, the rest replaced by "…":
// "slack:https://hooks.slack.com/…". A value that is not a webhook is "…".
func Redact(raw string) string {
	w, err := ParseWebhook(raw, 0)
	if err != nil {
		return "…"
	}
	prefix := ""
	if w.Format != JSON {
		prefix = string(w.Format) + ":"
	}
	shown := prefix + w.url.Scheme + "://" + w.url.Host
	if rest := strings.TrimPrefix(w.url.RequestURI(), "/"); rest != "" || w.url.User != nil || w.url.Fragment != "" {
		shown += "/…"
	}
	return shown
}

// SplitList splits the configuration's value of webhooks: one or more,
// separated by spaces (a URL holds none).
func SplitList(s string) []string {
	return strings.Fields(s)
}

// RedactList is Redact of each webhook of a list, separated by spaces.
func RedactList(s string) string {
	fields := SplitList(s)
	for i, f := range fields {
		fields[i] = Redact(f)
	}
	return strings.Join(fields, " ")
}

// CheckList checks the configuration's value: every webhook of it parses.
// The error names a bad one by its number.
func CheckList(s string) error {
	fields := SplitList(s)
	if len(fields) == 0 {
		return errors.New("no webhook: want one or more of " + Form + ", separated by spaces")
	}
	for i, f := range fields {
		if f == None {
			return fmt.Errorf("webhook %d: %q is --notify's, not the configuration's: unset the key to send none", i+1, None)
		}
		if _, err := ParseWebhook(f, i+1); err != nil {
			return fmt.Errorf("webhook %d: %v", i+1, err)
		}
	}
	return nil
}
