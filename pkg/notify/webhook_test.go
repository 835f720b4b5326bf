package notify

import (
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// secret is the part of every URL of these tests that must never be printed.
const secret = "T000/B000/s3cr3tT0k3n"

func TestParseWebhook(t *testing.T) {
	for _, tt := range []struct {
		raw    string
		format Format
		name   string
	}{
		{"https://ci.example.com/hooks/" + secret, JSON, "webhook 1 (ci.example.com)"},
		{"http://127.0.0.1:8080/" + secret + "?token=" + secret, JSON, "webhook 1 (127.0.0.1:8080)"},
		{"slack:https://hooks.slack.com/services/" + secret, Slack, "webhook 1 (slack, hooks.slack.com)"},
		{"teams:https://example.webhook.office.com/webhookb2/" + secret, Teams, "webhook 1 (teams, example.webhook.office.com)"},
		{"HTTPS://user:s3cr3t@ci.example.com/x", JSON, "webhook 1 (ci.example.com)"},
	} {
		w, err := ParseWebhook(tt.raw, 1)
		if err != nil {
			t.Errorf("%s: %v", tt.raw, err)
			continue
		}
		if w.Format != tt.format || w.String() != tt.name {
			t.Errorf("%s: format %s, named %q; want %s, %q", tt.raw, w.Format, w.String(), tt.format, tt.name)
		}
	}
}

// TestBadWebhooksAreNotQuoted: the error says what is wrong and the form
// expected, at most the scheme of what was given, never the rest.
func TestBadWebhooksAreNotQuoted(t *testing.T) {
	for raw, want := range map[string]string{
		"hooks.slack.com/services/" + secret:        "no scheme",
		"ftp://files.example.com/" + secret:         `scheme "ftp" is neither http nor https`,
		"discord:https://discord.com/api/" + secret: `scheme "discord" is neither http nor https`,
		"slack:hooks.slack.com/services/" + secret:  "no scheme",
		"slack:":                                      "empty",
		"teams:ftp://x/" + secret:                     `scheme "ftp"`,
		"https:///" + secret:                          "https URL without a host",
		"http://[::1/" + secret:                       "not a URL",
		"https://exa mple.com/" + secret:              "not a URL",
		"mailto:" + secret + "@example.com":           `scheme "mailto"`,
		"https://example.com/%zz" + secret:            "not a URL",
		"verylongschemeverylongscheme:" + secret + "": `scheme "verylongschemeve…"`,
	} {
		_, err := ParseWebhook(raw, 3)
		if err == nil {
			t.Errorf("%q: accepted", raw)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), Form) {
			t.Errorf("%q: %q does not say %q and the form", raw, err, want)
		}
		if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "hooks.slack.com") {
			t.Errorf("%q: the error quotes it: %q", raw, err)
		}
	}
}

func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"slack:https://hooks.slack.com/services/" + secret: "slack:https://hooks.slack.com/…",
		"https://ci.example.com":                           "https://ci.example.com",
		"https://ci.example.com/":                          "https://ci.example.com",
		"https://ci.example.com/?token=" + secret:          "https://ci.example.com/…",
		"https://user:s3cr3t@ci.example.com":               "https://ci.example.com/…",
		"teams:http://10.0.0.1:8080/x#" + secret:           "teams:http://10.0.0.1:8080/…",
		"not a webhook " + secret:                          "…",
	} {
		if got := Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
	list := "slack:https://hooks.slack.com/services/" + secret + "  https://ci.example.com/" + secret
	if got := RedactList(list); got != "slack:https://hooks.slack.com/… https://ci.example.com/…" {
		t.Errorf("RedactList = %q", got)
	}
}

func TestCheckList(t *testing.T) {
	if err := CheckList("slack:https://hooks.slack.com/services/" + secret + " https://ci.example.com/" + secret); err != nil {
		t.Errorf("two webhooks: %v", err)
	}
	for list, want := range map[string]string{
		"https://ci.example.com/x ftp://example.com/" + secret: "webhook 2: scheme \"ftp\"",
		"   ":                          "no webhook",
		"none":                         `"none" is --notify's`,
		"https://a.example.com/x none": "webhook 2:",
	} {
		err := CheckList(list)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("CheckList(%q) = %v, want an error saying %q", list, err, want)
		}
	}
}

func TestParseWhen(t *testing.T) {
	for _, tt := range []struct {
		values []string
		want   When
	}{
		{[]string{"finished"}, When{Finished: true}},
		{[]string{"failed"}, When{Failed: true}},
		{[]string{"running,finished"}, When{Running: true, Finished: true}},
		{[]string{"running", "Failed"}, When{Running: true, Failed: true}},
		{[]string{"suspended"}, When{Suspended: true}},
	} {
		got, err := ParseWhen(tt.values)
		if err != nil || got != tt.want {
			t.Errorf("ParseWhen(%q) = %+v, %v; want %+v", tt.values, got, err, tt.want)
		}
	}
	for _, values := range [][]string{{"done"}, {"failed,"}, nil, {"running,sometimes"}} {
		if _, err := ParseWhen(values); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--notify-on") {
			t.Errorf("ParseWhen(%q): %v, want a usage error naming --notify-on", values, err)
		}
	}
}

// TestWhenWants: finished is every end of the job or of the wait but
// running and suspended; failed is every end but success.
func TestWhenWants(t *testing.T) {
	events := []Event{Running, Succeeded, Suspended, Failed, TimedOut, Deleted}
	for _, tt := range []struct {
		when When
		want string
	}{
		{When{Finished: true}, "succeeded failed timedout deleted"},
		{When{Failed: true}, "failed timedout deleted"},
		{When{Running: true}, "running"},
		{When{Suspended: true}, "suspended"},
		{When{Running: true, Failed: true}, "running failed timedout deleted"},
	} {
		var got []string
		for _, e := range events {
			if tt.when.Wants(e) {
				got = append(got, string(e))
			}
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("%+v wants %q, want %q", tt.when, got, tt.want)
		}
	}
}
