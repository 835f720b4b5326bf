package list

import (
	"time"

	"github.com/easyai-dev/easyai/pkg/printers"
)

func ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return printers.Age(now, t) + " ago"
}

func in(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return "in " + printers.Age(t, now)
}
