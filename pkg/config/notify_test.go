package config

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const (
	slackHook = "slack:https://hooks.slack.com/services/T000/B000/s3cr3tT0k3n"
	ownHook   = "https://ci.example.com/hooks/easyai?token=s3cr3tT0k3n"
)

// TestNotifyIsASetting: the webhooks of wait and submit --wait come from
// the file or EASYAI_NOTIFY, each checked, and are shown redacted.
func TestNotifyIsASetting(t *testing.T) {
	clearEnv(t)
	path := filepath.Join(t.TempDir(), "config.yaml")
	if _, err := Set(path, KeyNotify, slackHook+" "+ownHook); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil || string(c.Notify) != slackHook+" "+ownHook {
		t.Fatalf("from the file: %q %v", c.Notify, err)
	}
	if got, _ := c.Get(KeyNotify); got != "slack:https://hooks.slack.com/… https://ci.example.com/…" {
		t.Errorf("Get = %q", got)
	}
	data, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(data), `"notify":"slack:https://hooks.slack.com/… https://ci.example.com/…"`) || strings.Contains(string(data), "s3cr3t") {
		t.Errorf("as config view prints it: %s %v", data, err)
	}
	if data, _ := json.Marshal(&Config{}); strings.Contains(string(data), "notify") {
		t.Errorf("an unset notify is shown: %s", data)
	}

	t.Setenv(EnvName(KeyNotify), "teams:https://example.webhook.office.com/x")
	if c, err := Load(path); err != nil || string(c.Notify) != "teams:https://example.webhook.office.com/x" {
		t.Errorf("from EASYAI_NOTIFY: %q %v", c.Notify, err)
	}
}

// TestABadWebhookIsNotQuoted: a bad notify value fails with exit 2 naming
// where it is and which webhook of it, never quoting it.
func TestABadWebhookIsNotQuoted(t *testing.T) {
	clearEnv(t)
	bad := "https://ok.example.com/x ftp://files.example.com/s3cr3tT0k3n"
	_, err := Set(filepath.Join(t.TempDir(), "config.yaml"), KeyNotify, bad)
	wantUsage(t, "Set", err, `notify: webhook 2: scheme "ftp" is neither http nor https`)
	if err != nil && strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("Set's error quotes the value: %v", err)
	}

	path := write(t, "queue: research\nnotify: hooks.slack.com/services/s3cr3tT0k3n\n")
	_, err = Load(path)
	wantUsage(t, "the file", err, path+": line 2: notify: webhook 1: not a URL (no scheme)")
	if err != nil && strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("the file's error quotes the value: %v", err)
	}

	t.Setenv(EnvName(KeyNotify), "slack:"+bad)
	_, err = Load(write(t, ""))
	wantUsage(t, "EASYAI_NOTIFY", err, "EASYAI_NOTIFY: webhook 2")
	if err != nil && strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("the variable's error quotes the value: %v", err)
	}
}
