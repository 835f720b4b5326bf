package printers

import (
	"fmt"
	"strings"
	"time"
)

// HumanDuration prints d with two units at most, coarser as it grows, the
// way kubectl's AGE column does: "45s", "5m3s", "42m", "3h5m", "20h",
// "2d4h", "35d", "2y10d".
func HumanDuration(d time.Duration) string {
	const day, year = 24 * time.Hour, 365 * 24 * time.Hour
	switch {
	case d < -time.Second:
		// A clock skew this large is worth showing rather than hiding.
		return "<invalid>"
	case d < 0:
		return "0s"
	case d < 2*time.Minute:
		return fmt.Sprintf("%ds", int64(d/time.Second))
	case d < 10*time.Minute:
		return twoUnits(d, time.Minute, "m", time.Second, "s")
	case d < 3*time.Hour:
		return fmt.Sprintf("%dm", int64(d/time.Minute))
	case d < 8*time.Hour:
		return twoUnits(d, time.Hour, "h", time.Minute, "m")
	case d < 2*day:
		return fmt.Sprintf("%dh", int64(d/time.Hour))
	case d < 8*day:
		return twoUnits(d, day, "d", time.Hour, "h")
	case d < 2*year:
		return fmt.Sprintf("%dd", int64(d/day))
	case d < 8*year:
		return twoUnits(d, year, "y", day, "d")
	default:
		return fmt.Sprintf("%dy", int64(d/year))
	}
}

// twoUnits prints d in big units and the rest in small ones, leaving out a
// zero rest ("5m", not "5m0s").
func twoUnits(d, big time.Duration, bigUnit string, small time.Duration, smallUnit string) string {
	n := int64(d / big)
	rest := int64((d % big) / small)
	if rest == 0 {
		return fmt.Sprintf("%d%s", n, bigUnit)
	}
	return fmt.Sprintf("%d%s%d%s", n, bigUnit, rest, smallUnit)
}

// Age is how long ago t was, as HumanDuration prints it; "-" for a zero time.
func Age(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return HumanDuration(now.Sub(t))
}

// Bytes is a size in binary units: 512 B, 3.2 KiB, 12.0 MiB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n)/unit, 0
	for f >= unit && i < 4 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %s", f, []string{"KiB", "MiB", "GiB", "TiB", "PiB"}[i])
}

// Count is n of a thing, in the plural unless one: "1 file", "3 files",
// "2 entries".
func Count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(what, "y"))
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Elapsed is how long a transfer took: milliseconds under a second, else
// whole seconds.
func Elapsed(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// TransferNotes is what a download or upload adds to its summary line:
// the entries it skipped (said as skippedAs: "skipped", "left out") and
// the streams it resumed; "" when none.
func TransferNotes(skipped int, skippedAs string, resumed int) string {
	s := ""
	if skipped > 0 {
		s += fmt.Sprintf("; %s %s (see the warnings)", skippedAs, Count(skipped, "entry"))
	}
	if resumed > 0 {
		s += fmt.Sprintf("; resumed %s", Count(resumed, "time"))
	}
	return s
}
