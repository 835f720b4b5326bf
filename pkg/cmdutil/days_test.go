package cmdutil

import (
	"testing"
	"time"
)

func TestParseDays(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"7d": 7 * 24 * time.Hour, "1d12h": 36 * time.Hour, "36h": 36 * time.Hour, "90m": 90 * time.Minute, "0d": 0, "0": 0,
	} {
		if got, err := ParseDays(in); err != nil || got != want {
			t.Errorf("ParseDays(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "7", "7days", "1w", "-1d", "1d-", "99999999999d"} {
		if _, err := ParseDays(in); err == nil {
			t.Errorf("ParseDays(%q): no error", in)
		}
	}
	d := &Days{}
	if err := d.Set("14d"); err != nil || d.String() != "14d" {
		t.Errorf("14d: %v %s", err, d)
	}
	if err := d.Set("90m"); err != nil || d.String() != "1h30m0s" {
		t.Errorf("90m: %v %s", err, d)
	}
}
