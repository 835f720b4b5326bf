// Package kindstest helps the kinds' tests: parsing a kind's submit flags
// the way "easyai submit KIND" does, checking that a kind decodes strictly,
// listing replicas.
package kindstest

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
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

// DecodeIsStrict checks that k decodes obj, and that once value is set at
// path (a misspelt field, its last element) in obj, k fails to decode it,
// naming the field.
func DecodeIsStrict(t testing.TB, k kinds.Kind, obj *unstructured.Unstructured, value any, path ...string) {
	t.Helper()
	if _, err := k.Decode(obj); err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(obj.Object, value, path...)
	if _, err := k.Decode(obj); err == nil || !strings.Contains(err.Error(), path[len(path)-1]) {
		t.Errorf("a misspelt field decoded: %v", err)
	}
}

// Tasks are the replicas' tasks (ROLE-INDEX), in order.
func Tasks(replicas []jobmodel.Replica) []string {
	var tasks []string
	for _, r := range replicas {
		tasks = append(tasks, r.Task)
	}
	return tasks
}
