package kubeflow_test

import (
	"reflect"
	"testing"

	"github.com/spf13/pflag"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/kubeflow"
)

// TestElastic: the bounds are checked, --workers must lie between them,
// and the job starts with --workers, else the fewest it runs with.
func TestElastic(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		set   bool
		value map[string]any
		start int
		err   string
	}{
		{nil, false, nil, 0, "--elastic-min 0 --elastic-max 0: need 1 <= min <= max"},
		{[]string{"--elastic-min", "2", "--elastic-max", "4"}, true, map[string]any{"minReplicas": 2, "maxReplicas": 4}, 2, ""},
		{[]string{"--elastic-min", "2", "--elastic-max", "4", "--workers", "3"}, true, map[string]any{"minReplicas": 2, "maxReplicas": 4}, 3, ""},
		{[]string{"--elastic-max", "4"}, true, nil, 0, "--elastic-min 0 --elastic-max 4: need 1 <= min <= max"},
		{[]string{"--elastic-min", "3", "--elastic-max", "2"}, true, nil, 0, "--elastic-min 3 --elastic-max 2: need 1 <= min <= max"},
		{[]string{"--elastic-min", "2", "--elastic-max", "4", "--workers", "5"}, true, nil, 0, "--workers 5: must lie between --elastic-min 2 and --elastic-max 4"},
	} {
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		workers := fs.Int("workers", 1, "")
		e := kubeflow.AddElasticFlags(fs, "nodes")
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		common := kinds.SubmitCommon{Workers: *workers, Changed: fs.Changed}
		value, err := e.Value(common)
		if e.Set() != tc.set {
			t.Errorf("%v: set %v, want %v", tc.args, e.Set(), tc.set)
		}
		if tc.err != "" {
			if exit.Code(err) != exit.Usage || err.Error() != tc.err {
				t.Errorf("%v: %v, want the usage error %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(value, tc.value) || e.Start(common) != tc.start {
			t.Errorf("%v: value %v, start %d, %v; want %v, %d", tc.args, value, e.Start(common), err, tc.value, tc.start)
		}
	}
	fs := pflag.NewFlagSet("help", pflag.ContinueOnError)
	kubeflow.AddElasticFlags(fs, "workers")
	if u := fs.Lookup("elastic-min").Usage; u != "elastic training: fewest workers the job runs with (sets an elasticPolicy)" {
		t.Errorf("--elastic-min: %q", u)
	}
}
