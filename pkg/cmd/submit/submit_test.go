package submit

import (
	"reflect"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/submit"
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
	if o.Kind.Name() != "tf" || o.Flags.Name != "mnist" || o.Flags.Workers != 4 || o.Flags.GPUs != 1 {
		t.Errorf("options: %+v", o.Flags)
	}
	if got := strings.Join(o.Flags.Command, " "); got != "python train.py --lr 0.1" {
		t.Errorf("command %q", got)
	}
	if o.DryRun != "client" || o.Output != "yaml" {
		t.Errorf("--dry-run alone = %q, -o = %q", o.DryRun, o.Output)
	}
	if len(o.Flags.Env) != 2 || !o.Flags.Changed("gpus") || o.Flags.Changed("cpu") {
		t.Errorf("env %v, changed gpus=%v cpu=%v", o.Flags.Env, o.Flags.Changed("gpus"), o.Flags.Changed("cpu"))
	}
	kindValues, err := o.kindValues(kindsCommon(o))
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
	if o.Kind.Name() != "pytorch" || o.DryRun != "server" {
		t.Errorf("kind %s dry-run %s", o.Kind.Name(), o.DryRun)
	}
	kindValues, err := o.kindValues(kindsCommon(o))
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
		{[]string{"tf", "-o", "table", "--", "x"}, "--output"},
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
	if o.Kind.Name() != "pytorch" || o.ValueFiles[0] != "testdata/job.yaml" || !o.Flags.Changed("workers") {
		t.Errorf("job file: kind %s files %v", o.Kind.Name(), o.ValueFiles)
	}
}

func TestMissing(t *testing.T) {
	cases := []struct {
		values map[string]any
		want   bool
	}{
		{map[string]any{"image": "x"}, false},
		{map[string]any{"image": ""}, true},
		{map[string]any{"roles": map[string]any{"worker": map[string]any{"replicas": 2.0, "image": "a"}, "ps": map[string]any{"replicas": 0}}}, false},
		{map[string]any{"roles": map[string]any{"worker": map[string]any{"replicas": 2, "image": "a"}, "ps": map[string]any{"replicas": 1}}}, true},
		{map[string]any{"roles": map[string]any{"worker": map[string]any{"replicas": 0}}}, true},
	}
	for _, c := range cases {
		if got := missing(c.values, "image"); got != c.want {
			t.Errorf("missing(%v) = %v, want %v", c.values, got, c.want)
		}
	}
}

func kindsCommon(o *Options) kinds.SubmitCommon {
	return kinds.SubmitCommon{Workers: o.Flags.Workers, Changed: o.Flags.Changed}
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
		v, err := o.kindValues(kindsCommon(o))
		if err != nil {
			t.Fatal(err)
		}
		roles := v["roles"].(map[string]any)
		if roles["master"].(map[string]any)["replicas"] != 0 || roles["worker"].(map[string]any)["replicas"] != tc.workers {
			t.Errorf("%v: roles %v, want no master and %d workers", tc.args, roles, tc.workers)
		}
	}
	o, _ := parse(t, "pytorch", "--workers", "5", "--elastic-min", "2", "--elastic-max", "4", "--", "x")
	if _, err := o.kindValues(kindsCommon(o)); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--workers 5") {
		t.Errorf("workers outside the elastic bounds: %v", err)
	}
}

type answers struct {
	inputs map[string]string
	asked  []string
}

func (a *answers) Input(message, _, _ string) (string, error) {
	a.asked = append(a.asked, message)
	return a.inputs[message], nil
}

func (a *answers) Confirm(string, bool) (bool, error) { return true, nil }

func TestMissingImageAndCommandAreAskedOnATerminalOnly(t *testing.T) {
	for _, tty := range []bool{true, false} {
		f := testFactory()
		f.IOStreams.SetTTY(tty)
		prompts := &answers{inputs: map[string]string{"Image": "tf:2", "Command": `python train.py --note "two words"`}}
		f.Prompter = prompts
		var o *Options
		cmd := NewCmdSubmit(f, func(got *Options) error { o = got; return nil })
		cmd.SetArgs([]string{"tf", "--workers", "2"})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		values, err := o.Flags.Values()
		if err != nil {
			t.Fatal(err)
		}
		req := &submit.Request{Kind: o.Kind, Values: values}
		err = o.fillDefaults(req, "", "", "")
		if !tty {
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--image") || len(prompts.asked) > 0 {
				t.Errorf("without a terminal: error %v, asked %v; want exit 2 naming --image and no prompt", err, prompts.asked)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if req.Values["image"] != "tf:2" {
			t.Errorf("image %v", req.Values["image"])
		}
		if got := req.Values["command"]; !reflect.DeepEqual(got, []any{"python", "train.py", "--note", "two words"}) {
			t.Errorf("command %#v", got)
		}
		if name, _ := req.Values["name"].(string); !strings.HasPrefix(name, "tf-") {
			t.Errorf("no generated name: %v", req.Values["name"])
		}
	}
}

func TestConfiguredDefaultsFillTheGaps(t *testing.T) {
	f := testFactory()
	tf, _ := registry.Default().Lookup("tf")
	req := &submit.Request{Kind: tf, Values: map[string]any{"command": []any{"run"}}}
	o := &Options{Factory: f, Kind: req.Kind}
	if err := o.fillDefaults(req, "cfg:1", "research", "high"); err != nil {
		t.Fatal(err)
	}
	rp, _ := req.Values["runPolicy"].(map[string]any)
	if req.Values["image"] != "cfg:1" || rp["queue"] != "research" || req.Values["priorityClassName"] != "high" {
		t.Errorf("values %v", req.Values)
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
