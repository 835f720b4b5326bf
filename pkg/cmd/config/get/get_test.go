package get

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
)

func factory(c *config.Config) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	io, _, out, errOut := iostreams.Test()
	return &cmdutil.Factory{IOStreams: io, Config: func() (*config.Config, error) { return c, nil }}, out, errOut
}

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdGet(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestCommandLine(t *testing.T) {
	f, _, _ := factory(nil)
	var got *Options
	if err := execute(f, func(o *Options) error { got = o; return nil }, "labels", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	if got.Key != "labels" || got.Print.Output != "json" {
		t.Errorf("options %+v", got)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"imgae"}, `unknown key "imgae": did you mean "image"?`},
		{[]string{"image", "-o", "wide"}, `-o "wide": must be one of json, yaml`},
		{[]string{}, `needs a KEY`},
		{[]string{"image", "queue"}, `needs a KEY`},
		{[]string{"clusters"}, `clusters is a map of clusters: easyai config set-cluster NAME changes one, config get-clusters lists them`},
	} {
		err := execute(f, func(*Options) error { t.Fatal("ran"); return nil }, tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("get %v: %v (exit %d), want exit 2 saying %q", tc.args, err, exit.Code(err), tc.want)
		}
	}
}

func TestPrintsTheValue(t *testing.T) {
	c := &config.Config{Image: "tf:1", GPUResource: config.DefaultGPUResource, Labels: map[string]string{"team": "vision", "cost": "42"}, Cluster: "prod"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"image"}, "tf:1\n"},
		{[]string{"image", "-o", "json"}, "\"tf:1\"\n"},
		{[]string{"gpu-resource"}, "nvidia.com/gpu\n"},
		{[]string{"labels"}, "cost=42,team=vision\n"},
		{[]string{"labels", "-o", "json"}, "{\n  \"cost\": \"42\",\n  \"team\": \"vision\"\n}\n"},
		{[]string{"queue"}, ""},
		{[]string{"queue", "-o", "json"}, "\"\"\n"},
		{[]string{"cluster"}, "prod\n"},
	} {
		f, out, errOut := factory(c)
		if err := execute(f, nil, tc.args...); err != nil {
			t.Fatalf("get %v: %v", tc.args, err)
		}
		if out.String() != tc.want || errOut.Len() != 0 {
			t.Errorf("get %v: stdout %q stderr %q, want stdout %q", tc.args, out, errOut, tc.want)
		}
	}
	f, out, _ := factory(&config.Config{})
	if err := execute(f, nil, "labels", "-o", "json"); err != nil || out.String() != "{}\n" {
		t.Errorf("no labels: %q %v", out, err)
	}
}

func TestConfigurationErrorsPassThrough(t *testing.T) {
	f, _, _ := factory(nil)
	f.Config = func() (*config.Config, error) { return nil, exit.UsageErrorf("EASYAI_LABELS %q: bad", "a") }
	if err := execute(f, nil, "image"); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "EASYAI_LABELS") {
		t.Errorf("error %v", err)
	}
}
