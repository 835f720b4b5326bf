package cmdutil

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/pflag"
)

// Days is a duration flag that also takes days: 7d, 1d12h, 36h, 90m.
type Days struct{ D time.Duration }

var _ pflag.Value = (*Days)(nil)

var daysForm = regexp.MustCompile(`^(\d+)d(.*)$`)

// ParseDays reads a duration of Go's form (36h, 90m) that may start with
// whole days (7d, 1d12h).
func ParseDays(s string) (time.Duration, error) {
	var days time.Duration
	rest := s
	if m := daysForm.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > 100000 {
			return 0, fmt.Errorf("%q: too many days", s)
		}
		days, rest = time.Duration(n)*24*time.Hour, m[2]
	}
	if rest == "" {
		if days == 0 && s != "0d" {
			return 0, fmt.Errorf("%q: not a duration such as 7d, 36h or 1d12h", s)
		}
		return days, nil
	}
	d, err := time.ParseDuration(rest)
	if err != nil {
		return 0, fmt.Errorf("%q: not a duration such as 7d, 36h or 1d12h", s)
	}
	return days + d, nil
}

// Set parses s.
func (d *Days) Set(s string) error {
	v, err := ParseDays(s)
	if err != nil {
		return err
	}
	d.D = v
	return nil
}

// String is the duration, in days when whole.
func (d *Days) String() string {
	if d.D > 0 && d.D%(24*time.Hour) == 0 {
		return strconv.Itoa(int(d.D/(24*time.Hour))) + "d"
	}
	if d.D == 0 {
		return "0"
	}
	return d.D.String()
}

// Type names the flag's value in help.
func (d *Days) Type() string { return "duration" }
