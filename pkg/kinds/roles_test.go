package kinds

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// common is the common flags as parsed from args (--workers, default 1).
func common(t *testing.T, args ...string) SubmitCommon {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	workers := fs.Int("workers", 1, "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return SubmitCommon{Workers: *workers, Changed: fs.Changed}
}

// TestRoles: roles are set key by key, only the roles a flag set are
// values, and none is no "roles" value at all.
func TestRoles(t *testing.T) {
	values := map[string]any{}
	Roles{}.AddTo(values)
	if len(values) != 0 {
		t.Errorf("no roles: %v", values)
	}
	r := Roles{}
	r.Set("ps", "replicas", 2)
	r.Merge("ps", map[string]any{"image": "ps:1"})
	r.Merge("launcher", nil)
	r.Merge("launcher", map[string]any{})
	r.AddTo(values)
	want := map[string]any{"roles": map[string]any{"ps": map[string]any{"replicas": 2, "image": "ps:1"}}}
	if !reflect.DeepEqual(values, want) {
		t.Errorf("values %v, want %v", values, want)
	}
	if got := Replicas(3); !reflect.DeepEqual(got, map[string]any{"replicas": 3}) {
		t.Errorf("Replicas(3) = %v", got)
	}
}

// TestRolesOfWorkers: --workers, when set, is the workers' replicas, or
// for a kind that counts nodes, a master and the others; below 1 it is a
// usage error saying why.
func TestRolesOfWorkers(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		workers      Roles
		nodes        Roles
		errorMessage string
	}{
		{nil, Roles{}, Roles{}, ""},
		{[]string{"--workers", "1"}, Roles{"worker": Replicas(1)}, Roles{"master": Replicas(1), "worker": Replicas(0)}, ""},
		{[]string{"--workers", "4"}, Roles{"worker": Replicas(4)}, Roles{"master": Replicas(1), "worker": Replicas(3)}, ""},
		{[]string{"--workers", "0"}, nil, nil, "--workers 0: it needs one"},
	} {
		workers, nodes := Roles{}, Roles{}
		errWorkers := workers.SetWorkers("worker", common(t, tc.args...), "it needs one")
		errNodes := nodes.SetNodes(common(t, tc.args...), "it needs one")
		if tc.errorMessage != "" {
			for _, err := range []error{errWorkers, errNodes} {
				if exit.Code(err) != exit.Usage || err.Error() != tc.errorMessage {
					t.Errorf("%v: %v, want the usage error %q", tc.args, err, tc.errorMessage)
				}
			}
			continue
		}
		if errWorkers != nil || errNodes != nil || !reflect.DeepEqual(workers, tc.workers) || !reflect.DeepEqual(nodes, tc.nodes) {
			t.Errorf("%v: workers %v (%v), nodes %v (%v); want %v, %v", tc.args, workers, errWorkers, nodes, errNodes, tc.workers, tc.nodes)
		}
	}
}

// TestRoleFlags: --ROLE-cpu, --ROLE-memory and, when asked for, --ROLE-image
// say whose they are and become the role's values.
func TestRoleFlags(t *testing.T) {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	ps := AddRoleFlags(fs, "ps", "each parameter server", "the parameter servers")
	launcher := AddRoleFlags(fs, "launcher", "the launcher", "")
	if fs.Lookup("launcher-image") != nil || fs.Lookup("ps-cpu").Usage != "CPU of each parameter server (default: --cpu)" ||
		fs.Lookup("ps-memory").Usage != "memory of each parameter server (default: --memory)" ||
		fs.Lookup("ps-image").Usage != "image of the parameter servers (default: --image)" {
		t.Errorf("flags: %s", fs.FlagUsages())
	}
	if err := fs.Parse([]string{"--ps-cpu", "2", "--ps-image", "ps:1", "--launcher-memory", "lots"}); err != nil {
		t.Fatal(err)
	}
	got, err := ps.Values()
	if want := map[string]any{"image": "ps:1", "resources": map[string]any{"cpu": "2"}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ps: %v, %v; want %v", got, err, want)
	}
	if _, err := launcher.Values(); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--launcher-memory") {
		t.Errorf("a bad memory: %v", err)
	}
	none := AddRoleFlags(pflag.NewFlagSet("none", pflag.ContinueOnError), "ps", "each", "all")
	if got, err := none.Values(); err != nil || len(got) != 0 {
		t.Errorf("no flag set: %v, %v", got, err)
	}
}
