// Package kindstest helps the kinds' tests: parsing a kind's submit flags
// the way "easyai submit KIND" does.
package kindstest

import (
	"testing"

	"github.com/spf13/pflag"

	"github.com/easyai-dev/easyai/pkg/kinds"
)

// SubmitValues parses args with the kind's own submit flags and the common
// ones its values depend on (--workers, --retry), and returns the kind's
// values and the flag set (to check the kind's help of --workers).
func SubmitValues(t testing.TB, k kinds.Kind, args ...string) (map[string]any, *pflag.FlagSet, error) {
	t.Helper()
	fs := pflag.NewFlagSet(k.Name(), pflag.ContinueOnError)
	workers := fs.Int("workers", 1, "number of workers")
	fs.Int("retry", 0, "times the job is retried")
	values := k.SubmitFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	v, err := values(kinds.SubmitCommon{Workers: *workers, Changed: fs.Changed})
	return v, fs, err
}
