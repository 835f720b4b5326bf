package submit

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/easyai-dev/easyai/pkg/render"
)

// TestAddFlagsBindsTheTable: every flag of the table (but --chart, the
// command's) is declared once, bound to its field with its default, and
// each platform honours some and refuses the others by name.
func TestAddFlagsBindsTheTable(t *testing.T) {
	var f Flags
	fs := pflag.NewFlagSet("submit", pflag.ContinueOnError)
	f.Declare(fs)
	names := map[string]bool{}
	for _, spec := range f.specs() {
		if names[spec.Name] {
			t.Errorf("--%s is in the table twice", spec.Name)
		}
		names[spec.Name] = true
		if spec.Platforms == 0 {
			t.Errorf("--%s: no platform honours it", spec.Name)
		}
		if declared := fs.Lookup(spec.Name) != nil; declared != (spec.declare != nil) {
			t.Errorf("--%s: declared %v", spec.Name, declared)
		}
	}
	if fs.NFlag() != 0 || len(names) != countFlags(fs)+1 {
		t.Errorf("%d flags declared for a table of %d", countFlags(fs), len(names))
	}
	if f.Workers != 1 || f.Oversell != 1 || f.ImagePullPolicy != "IfNotPresent" || f.Devtools.DebugTimeout != 8*time.Hour {
		t.Errorf("defaults %+v", f)
	}
	args := []string{"--gpus", "0.5", "--env", "A=1", "--env", "B=2", "--debug-task", "worker-0", "--ssh-key", "k.pub", "--max-duration", "1h", "--fs", "cfs:x:/y"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if f.GPUs != 0.5 || !reflect.DeepEqual(f.Env, []string{"A=1", "B=2"}) || f.Devtools.DebugTasks[0] != "worker-0" ||
		f.Devtools.SSHKey != "k.pub" || f.MaxDuration != time.Hour || f.FS != "cfs:x:/y" {
		t.Errorf("flags parsed into %+v", f)
	}
	if got := strings.Join(FlagsNotOn(Kubernetes), " "); got != "rdma gpu-type elastic fs" {
		t.Errorf("not on Kubernetes: %s", got)
	}
	for _, flag := range []string{"chart", "label", "oversell", "preemptible", "ssh", "storage"} {
		if f := (Flags{Changed: changedOnly("name", flag)}); f.ChangedNotOn(Timaker) != flag {
			t.Errorf("--%s on timaker: ChangedNotOn %q", flag, f.ChangedNotOn(Timaker))
		}
	}
	if f := (Flags{Changed: changedOnly("name", "gpus", "env", "experiment", "fs")}); f.ChangedNotOn(Timaker) != "" {
		t.Errorf("timaker refuses --%s", f.ChangedNotOn(Timaker))
	}
	if (&Flags{}).ChangedNotOn(Kubernetes) != "" {
		t.Error("no Changed: a flag refused")
	}
}

func countFlags(fs *pflag.FlagSet) int {
	n := 0
	fs.VisitAll(func(*pflag.Flag) { n++ })
	return n
}

// TestFlagOfValue: the checked values a message names by their flag.
func TestFlagOfValue(t *testing.T) {
	want := map[string]string{
		"name": "--name", "image": "--image", "workingDir": "--working-dir", "priorityClassName": "--priority",
		"imagePullSecrets": "--image-pull-secret", "env": "--env", "data": "--data", "kind": "the kind",
		"runPolicy.minAvailable": "--min-available", "runPolicy.backoffLimit": "--retry",
		"runPolicy.ttlSecondsAfterFinished": "--ttl-after-finished", "resources.gpus": "--gpus",
	}
	if !reflect.DeepEqual(flagOfValue, want) {
		t.Errorf("flagOfValue %v, want %v", flagOfValue, want)
	}
}

// TestGivenBy: --set wins, then the flag of a checked value, then the
// values file; a flag of no checked value, or nothing, names none.
func TestGivenBy(t *testing.T) {
	for _, tc := range []struct {
		o      render.Origin
		key    string
		by     string
		byFlag bool
	}{
		{render.Origin{Set: "name=x", Flags: true, File: "job.yaml"}, "name", "--set SHOWN", false},
		{render.Origin{Flags: true, File: "job.yaml"}, "name", "--name", true},
		{render.Origin{Flags: true, File: "job.yaml"}, "shmSize", "-f job.yaml", false},
		{render.Origin{Flags: true}, "shmSize", "", false},
		{render.Origin{}, "name", "", false},
	} {
		if by, byFlag := givenBy(tc.o, tc.key, "SHOWN"); by != tc.by || byFlag != tc.byFlag {
			t.Errorf("givenBy(%+v, %s) = %q, %v; want %q, %v", tc.o, tc.key, by, byFlag, tc.by, tc.byFlag)
		}
	}
}
