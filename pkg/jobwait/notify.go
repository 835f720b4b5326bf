package jobwait

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/notify"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// NotifyFlags are --notify and --notify-on of wait and submit --wait.
type NotifyFlags struct {
	// URLs are --notify as given: webhooks, or "none".
	URLs []string
	// On is --notify-on as given.
	On []string

	// Set by Validate.
	webhooks []notify.Webhook
	none     bool
	when     notify.When
	onSet    bool
}

// NotifyOnWords complete --notify-on; NotifyWords begin a --notify.
var (
	NotifyOnWords = notify.OnValues
	NotifyWords   = []string{"slack:", "teams:", "https://", notify.None}
)

// Declare declares --notify and --notify-on on fs (cmdutil.AddNotifyFlags
// adds them to a command, with their completions).
func (n *NotifyFlags) Declare(fs *pflag.FlagSet) {
	// No default is shown: the configuration's webhooks are secrets.
	fs.StringArrayVar(&n.URLs, "notify", nil, "when the wait ends, POST to this webhook: "+notify.Form+
		" (repeatable; default: the configuration's notify; \"none\": no notification; docs/notifications.md)")
	fs.StringSliceVar(&n.On, "notify-on", nil, "what is notified: finished (success, failure, timeout, deletion), failed (those but success), running (the job was seen running), suspended (a wait for suspended reached); a comma list (default: every way the wait can end)")
}

// Validate checks the flags without the configuration or the cluster: c is
// what the wait waits for, onChanged whether --notify-on was given. A bad
// webhook is named by its number and at most its scheme, never quoted.
func (n *NotifyFlags) Validate(c waiter.Condition, onChanged bool) error {
	n.webhooks, n.none = nil, false
	for i, raw := range n.URLs {
		if raw == notify.None {
			n.none = true
			continue
		}
		w, err := notify.ParseWebhook(raw, i+1)
		if err != nil {
			return exit.UsageErrorf("--notify (webhook %d): %v", i+1, err)
		}
		n.webhooks = append(n.webhooks, w)
	}
	if n.none && len(n.webhooks) > 0 {
		return exit.UsageErrorf("--notify none sends no notification: not with a webhook")
	}
	n.onSet = onChanged
	if !onChanged {
		n.when = notify.When{Finished: true, Running: c == waiter.Running, Suspended: c == waiter.Suspended}
		return nil
	}
	when, err := notify.ParseWhen(n.On)
	if err != nil {
		return err
	}
	if when.Suspended && c != waiter.Suspended {
		return exit.UsageErrorf("--notify-on suspended: this wait (for %s) does not end at suspended; easyai wait --for suspended does", c)
	}
	if n.none {
		return exit.UsageErrorf("--notify-on: --notify none sends no notification")
	}
	n.when = when
	return nil
}

// Notifier is what notifies the wait's events: the --notify webhooks, else
// the configuration's (notify; settings, the factory's Config, is read
// only then); nil when there are none or --notify none. --notify-on
// without any webhook is a usage error. warnings (stderr) get a line for
// each webhook not reached; now is the clock of the notifications.
func (n *NotifyFlags) Notifier(settings func() (*config.Config, error), warnings io.Writer, now func() time.Time) (*notify.Notifier, error) {
	if n.none {
		return nil, nil
	}
	cfg, err := settings()
	if err != nil {
		return nil, err
	}
	webhooks := n.webhooks
	if len(webhooks) == 0 && cfg != nil {
		for i, raw := range notify.SplitList(string(cfg.Notify)) {
			w, err := notify.ParseWebhook(raw, i+1)
			if err != nil {
				// Load checked it: this is a configuration made in code.
				return nil, exit.UsageErrorf("%s (webhook %d): %v", config.KeyNotify, i+1, err)
			}
			webhooks = append(webhooks, w)
		}
	}
	if len(webhooks) == 0 {
		if n.onSet {
			return nil, exit.UsageErrorf("--notify-on: no webhook to notify: add --notify URL, or set %s in the configuration (docs/notifications.md)", config.KeyNotify)
		}
		return nil, nil
	}
	return &notify.Notifier{
		Webhooks: webhooks, When: n.when, Warnings: warnings,
		UserAgent: fmt.Sprintf("easyai/%s", build.Version), Now: now,
	}, nil
}
