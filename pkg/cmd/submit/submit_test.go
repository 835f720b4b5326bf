package submit

import (
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
)

func testFactory() *cmdutil.Factory {
	io, _, _, _ := iostreams.Test()
	return &cmdutil.Factory{IOStreams: io, Kinds: registry.Default(), ExecutableName: "easyai"}
}

func parse(t *testing.T, args ...string) (*Options, error) {
	t.Helper()
	var got *Options
	cmd := NewCmdSubmit(testFactory(), func(o *Options) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	err := cmd.Execute()
	return got, err
}

func TestFlagsBecomeOptions(t *testing.T) {
	o, err := parse(t, "tf", "--name", "mnist", "--ps", "1", "--workers", "4", "--gpus", "1", "--image", "tf:1",
		"--env", "A=1", "--env", "B=2", "--dry-run", "-o", "yaml", "--", "python", "train.py", "--lr", "0.1")
	if err != nil {
		t.Fatal(err)
	}
	if o.Request.Kind.Name() != "tf" || o.Request.Flags.Name != "mnist" || o.Request.Flags.Workers != 4 || o.Request.Flags.GPUs != 1 {
		t.Errorf("options: %+v", o.Request.Flags)
	}
	if got := strings.Join(o.Request.Flags.Command, " "); got != "python train.py --lr 0.1" {
		t.Errorf("command %q", got)
	}
	if o.Request.DryRun != "client" || o.Print.Output != "yaml" {
		t.Errorf("--dry-run alone = %q, -o = %q", o.Request.DryRun, o.Print.Output)
	}
	if len(o.Request.Flags.Env) != 2 || !o.Request.Flags.Changed("gpus") || o.Request.Flags.Changed("cpu") {
		t.Errorf("env %v, changed gpus=%v cpu=%v", o.Request.Flags.Env, o.Request.Flags.Changed("gpus"), o.Request.Flags.Changed("cpu"))
	}
	kindValues, err := o.Request.KindValues(kindsCommon(o))
	if err != nil {
		t.Fatal(err)
	}
	roles := kindValues["roles"].(map[string]any)
	if roles["ps"].(map[string]any)["replicas"] != 1 || roles["worker"].(map[string]any)["replicas"] != 4 {
		t.Errorf("kind values %v", kindValues)
	}
}

func TestAliasesAndServerDryRun(t *testing.T) {
	o, err := parse(t, "pytorchjob", "--workers", "3", "--dry-run=server", "--", "torchrun", "x.py")
	if err != nil {
		t.Fatal(err)
	}
	if o.Request.Kind.Name() != "pytorch" || o.Request.DryRun != "server" {
		t.Errorf("kind %s dry-run %s", o.Request.Kind.Name(), o.Request.DryRun)
	}
	kindValues, err := o.Request.KindValues(kindsCommon(o))
	if err != nil {
		t.Fatal(err)
	}
	roles := kindValues["roles"].(map[string]any)
	if roles["master"].(map[string]any)["replicas"] != 1 || roles["worker"].(map[string]any)["replicas"] != 2 {
		t.Errorf("3 PyTorch nodes became %v", roles)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tf", "python", "train.py"}, `put the command after "--"`},
		{[]string{"tf", "--dry-run=later", "--", "x"}, "--dry-run"},
		{[]string{"tf", "-o", "table", "--", "x"}, `-o "table": must be one of name, json, yaml`},
		{[]string{"tf", "--dry-run", "server", "--", "x"}, `write --dry-run=server`},
		{[]string{"tf", "--timeout", "1h", "--", "x"}, "--timeout bounds --wait: add --wait"},
		{[]string{"--workers", "2"}, "name the kind"},
		{[]string{"tf", "--logs", "--", "x"}, "add --wait"},
		{[]string{"tf", "--wait", "--logs", "--dry-run", "--", "x"}, "not with --dry-run"},
		{[]string{}, "name the kind"},
		{[]string{"-f", "testdata/no-kind.yaml"}, "names no kind"},
		{[]string{"-f", "testdata/unknown-kind.yaml"}, `unknown kind "caffe"`},
		{[]string{"-f", "testdata/missing.yaml"}, "-f testdata/missing.yaml"},
	} {
		_, err := parse(t, tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v (exit %d), want a usage error with %q", tc.args, err, exit.Code(err), tc.want)
		}
	}
}

func TestJobFileNamesTheKind(t *testing.T) {
	o, err := parse(t, "-f", "testdata/job.yaml", "--workers", "3")
	if err != nil {
		t.Fatal(err)
	}
	if o.Request.Kind.Name() != "pytorch" || o.JobFilePaths[0] != "testdata/job.yaml" || !o.Request.Flags.Changed("workers") {
		t.Errorf("job file: kind %s files %v", o.Request.Kind.Name(), o.JobFilePaths)
	}
}

func kindsCommon(o *Options) kinds.SubmitCommon {
	return kinds.SubmitCommon{Workers: o.Request.Flags.Workers, Changed: o.Request.Flags.Changed}
}

func TestJobFileOfAnotherKind(t *testing.T) {
	_, err := parse(t, "tf", "-f", "testdata/job.yaml", "--", "x")
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "is a pytorch job file, not tf") {
		t.Errorf("error %v", err)
	}
	if _, err := parse(t, "pytorch", "-f", "testdata/job.yaml"); err != nil {
		t.Errorf("a pytorch job file with submit pytorch: %v", err)
	}
}

func TestElasticPyTorchIsWorkersOnly(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		workers int
	}{
		{[]string{"pytorch", "--workers", "3", "--elastic-min", "2", "--elastic-max", "4", "--", "x"}, 3},
		{[]string{"pytorch", "--elastic-min", "2", "--elastic-max", "4", "--", "x"}, 2},
	} {
		o, err := parse(t, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		v, err := o.Request.KindValues(kindsCommon(o))
		if err != nil {
			t.Fatal(err)
		}
		roles := v["roles"].(map[string]any)
		if roles["master"].(map[string]any)["replicas"] != 0 || roles["worker"].(map[string]any)["replicas"] != tc.workers {
			t.Errorf("%v: roles %v, want no master and %d workers", tc.args, roles, tc.workers)
		}
	}
	o, _ := parse(t, "pytorch", "--workers", "5", "--elastic-min", "2", "--elastic-max", "4", "--", "x")
	if _, err := o.Request.KindValues(kindsCommon(o)); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--workers 5") {
		t.Errorf("workers outside the elastic bounds: %v", err)
	}
}

// TestKindsExplainTheirSubmit: a kind that documents its submit command
// gets its own help, and --workers says what it counts for that kind.
func TestKindsExplainTheirSubmit(t *testing.T) {
	cmd := NewCmdSubmit(testFactory(), nil)
	for _, c := range cmd.Commands() {
		k, ok := testFactory().Kinds.Lookup(c.Name())
		if !ok {
			continue
		}
		doc, ok := k.(kinds.SubmitDoc)
		if !ok {
			continue
		}
		if c.Long != doc.SubmitLong() || c.Example != doc.SubmitExample() {
			t.Errorf("submit %s: help is not the kind's own", c.Name())
		}
	}
	mpi, _, err := cmd.Find([]string{"mpi"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(mpi.Long, "launcher") || !strings.Contains(mpi.Flags().Lookup("workers").Usage, "worker pods") {
		t.Errorf("submit mpi: long %q, --workers %q", mpi.Long, mpi.Flags().Lookup("workers").Usage)
	}
}

// TestNotifyNeedsWaitAndGoodWebhooks: --notify and --notify-on are checked
// before the cluster is asked anything, exit 2 naming the flag, never
// quoting the URL.
func TestNotifyNeedsWaitAndGoodWebhooks(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"tf", "--notify", "https://ci.example.com/s3cr3t", "--", "x"}, "--notify tells how the wait ends: add --wait"},
		{[]string{"tf", "--notify-on", "failed", "--", "x"}, "add --wait"},
		{[]string{"tf", "--wait", "--notify", "slack:hooks.slack.com/services/s3cr3t", "--", "x"}, "--notify (webhook 1): not a URL (no scheme)"},
		{[]string{"-f", "testdata/job.yaml", "--wait", "--notify", "gopher://x/s3cr3t"}, `--notify (webhook 1): scheme "gopher" is neither http nor https`},
		{[]string{"tf", "--wait", "--notify", "https://ci.example.com/x", "--notify-on", "suspended", "--", "x"}, "--notify-on suspended"},
		{[]string{"tf", "--wait", "--notify", "https://ci.example.com/x", "--notify-on", "never", "--", "x"}, `--notify-on "never"`},
	} {
		_, err := parse(t, tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%v: error %v (exit %d), want a usage error with %q", tc.args, err, exit.Code(err), tc.want)
		}
	}
	o, err := parse(t, "tf", "--wait", "--notify", "teams:https://example.webhook.office.com/x", "--notify-on", "running,finished", "--", "x")
	if err != nil || len(o.Notify.URLs) != 1 || len(o.Notify.On) != 2 {
		t.Errorf("options %+v, %v", o, err)
	}
}
