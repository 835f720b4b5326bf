package printers

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// ExternalUser marks, in a USER column, a job made without easyai that names
// no user.
const ExternalUser = "(external)"

// JobUser is a job's USER column: its submitter, or ExternalUser.
func JobUser(s *jobmodel.Summary) string {
	if s.User == "" && !s.ByEasyAI() {
		return ExternalUser
	}
	return s.User
}

// JobDuration is a job's DURATION column: how long it has run, "-" before
// it started.
func JobDuration(s *jobmodel.Summary, now time.Time) string {
	if s.Started == nil {
		return "-"
	}
	return HumanDuration(s.Duration(now))
}

// Cores prints CPU cores to a thousandth: 4, 0.5, 0.333.
func Cores(n float64) string { return strconv.FormatFloat(math.Round(n*1000)/1000, 'f', -1, 64) }

// GPUs prints a number of GPUs: 2, or 0.5 on a platform that shares them.
func GPUs(n float64) string { return strconv.FormatFloat(math.Round(n*100)/100, 'f', -1, 64) }

// ShellJoin prints a command as sh would read it back: arguments with
// spaces or shell characters in single quotes.
func ShellJoin(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		quoted[i] = a
	}
	return strings.Join(quoted, " ")
}
