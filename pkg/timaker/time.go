package timaker

import (
	"fmt"
	"strings"
	"time"
)

// TimeLayout is how timaker writes times, in Asia/Shanghai.
const TimeLayout = "2006-01-02 15:04:05"

// shanghai is Asia/Shanghai, UTC+8 all year since 1991: a fixed zone
// needs no time zone database on the machine.
var shanghai = time.FixedZone("UTC+8", 8*60*60)

// ParseTime reads a time timaker wrote. An empty time, or one of zeros
// ("0000-00-00 00:00:00"), is nil: not yet.
func ParseTime(s string) (*time.Time, error) {
	s = strings.TrimSpace(s)
	if strings.Trim(s, "0-: ") == "" {
		return nil, nil
	}
	t, err := time.ParseInLocation(TimeLayout, s, shanghai)
	if err != nil {
		return nil, fmt.Errorf("timaker time %q is not of the form %s", OneLine(s, 64), TimeLayout)
	}
	return &t, nil
}

// FormatTime writes t as timaker does.
func FormatTime(t time.Time) string {
	return t.In(shanghai).Format(TimeLayout)
}
