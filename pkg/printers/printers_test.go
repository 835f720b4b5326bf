package printers_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/printers"
)

func TestTableOnATerminal(t *testing.T) {
	var b bytes.Buffer
	tb := printers.NewTable(&b, true, "NAME", "KIND", "STATUS", "USER")
	tb.AddRow("mnist", "tf", "Running", "alice@corp")
	tb.AddRow("resnet-long-name", "pytorch", "", "(external)")
	tb.AddRow("tabs", "tf", "a\tb", "two\nlines")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"NAME               KIND      STATUS    USER\n" +
		"mnist              tf        Running   alice@corp\n" +
		"resnet-long-name   pytorch   -         (external)\n" +
		"tabs               tf        a b       two lines\n"
	if b.String() != want {
		t.Errorf("table\n%q\nwant\n%q", b.String(), want)
	}
}

func TestTableWithoutATerminal(t *testing.T) {
	var b bytes.Buffer
	tb := printers.NewTable(&b, false, "NAME", "KIND", "STATUS", "USER")
	tb.AddRow("mnist", "tf", "Running", "alice@corp")
	tb.AddRow("resnet", "pytorch", "", "a\tb")
	if err := tb.Render(); err != nil {
		t.Fatal(err)
	}
	want := "mnist\ttf\tRunning\talice@corp\nresnet\tpytorch\t-\ta b\n"
	if b.String() != want {
		t.Errorf("lines %q, want %q", b.String(), want)
	}
	if tb.Len() != 2 {
		t.Errorf("Len %d", tb.Len())
	}
}

func TestEmptyTableOnATerminalIsItsHeader(t *testing.T) {
	var b bytes.Buffer
	if err := printers.NewTable(&b, true, "NAME", "AGE").Render(); err != nil {
		t.Fatal(err)
	}
	if b.String() != "NAME   AGE\n" {
		t.Errorf("%q", b.String())
	}
	b.Reset()
	if err := printers.NewTable(&b, false, "NAME", "AGE").Render(); err != nil || b.Len() != 0 {
		t.Errorf("%q %v", b.String(), err)
	}
}

func TestHumanDuration(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-2 * time.Second, "<invalid>"},
		{-500 * time.Millisecond, "0s"},
		{0, "0s"},
		{999 * time.Millisecond, "0s"},
		{45 * time.Second, "45s"},
		{119 * time.Second, "119s"},
		{2 * time.Minute, "2m"},
		{5*time.Minute + 3*time.Second, "5m3s"},
		{9*time.Minute + 59*time.Second, "9m59s"},
		{10*time.Minute + 30*time.Second, "10m"},
		{179 * time.Minute, "179m"},
		{3 * time.Hour, "3h"},
		{3*time.Hour + 5*time.Minute, "3h5m"},
		{7*time.Hour + 59*time.Minute, "7h59m"},
		{8*time.Hour + 30*time.Minute, "8h"},
		{47 * time.Hour, "47h"},
		{2*day + 4*time.Hour, "2d4h"},
		{2 * day, "2d"},
		{7*day + 23*time.Hour, "7d23h"},
		{35 * day, "35d"},
		{729 * day, "729d"},
		{2*365*day + 10*day, "2y10d"},
		{3 * 365 * day, "3y"},
		{9 * 365 * day, "9y"},
	}
	for _, tt := range tests {
		if got := printers.HumanDuration(tt.d); got != tt.want {
			t.Errorf("HumanDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestAge(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	if got := printers.Age(now, now.Add(-90*time.Minute)); got != "90m" {
		t.Errorf("Age = %q", got)
	}
	if got := printers.Age(now, time.Time{}); got != "-" {
		t.Errorf("Age of zero time = %q", got)
	}
}

func TestDocuments(t *testing.T) {
	v := map[string]any{"kind": "JobList", "items": []any{map[string]any{"name": "mnist", "gpus": 2}}}
	var b bytes.Buffer
	if err := printers.JSON(&b, v); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"items\": [\n    {\n      \"gpus\": 2,\n      \"name\": \"mnist\"\n    }\n  ],\n  \"kind\": \"JobList\"\n}\n"
	if b.String() != want {
		t.Errorf("JSON %q, want %q", b.String(), want)
	}
	b.Reset()
	if err := printers.YAML(&b, v); err != nil {
		t.Fatal(err)
	}
	if want := "items:\n- gpus: 2\n  name: mnist\nkind: JobList\n"; b.String() != want {
		t.Errorf("YAML %q, want %q", b.String(), want)
	}
}

func TestCountAndElapsed(t *testing.T) {
	for _, c := range []struct {
		n    int
		what string
		want string
	}{{1, "file", "1 file"}, {0, "file", "0 files"}, {3, "entry", "3 entries"}, {1, "entry", "1 entry"}, {2, "time", "2 times"}} {
		if got := printers.Count(c.n, c.what); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.what, got, c.want)
		}
	}
	if got := printers.Elapsed(1234567 * time.Microsecond); got != "1s" {
		t.Errorf("Elapsed = %q", got)
	}
	if got := printers.Elapsed(12345 * time.Microsecond); got != "12ms" {
		t.Errorf("Elapsed = %q", got)
	}
}
