package view

import (
	"bytes"
	"context"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
)

func run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	c := &config.Config{Image: "tf:1", GPUResource: "nvidia.com/gpu", Labels: map[string]string{"team": "vision"}, Path: "/home/a/.config/easyai/config.yaml"}
	f := &cmdutil.Factory{IOStreams: io, Config: func() (*config.Config, error) { return c, nil }}
	cmd := NewCmdView(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	var discard bytes.Buffer
	cmd.SetOut(&discard)
	cmd.SetErr(&discard)
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// YAML by default, the file it comes from on stderr; JSON and templates
// through the same -o as every command.
func TestView(t *testing.T) {
	stdout, stderr, err := run(t)
	if err != nil || stdout != "gpu-resource: nvidia.com/gpu\nimage: tf:1\nlabels:\n  team: vision\n" || stderr != "# /home/a/.config/easyai/config.yaml\n" {
		t.Errorf("yaml: %q %q %v", stdout, stderr, err)
	}
	stdout, stderr, err = run(t, "-o", "json")
	if err != nil || stdout != "{\n  \"image\": \"tf:1\",\n  \"gpu-resource\": \"nvidia.com/gpu\",\n  \"labels\": {\n    \"team\": \"vision\"\n  }\n}\n" || stderr != "" {
		t.Errorf("json: %q %q %v", stdout, stderr, err)
	}
	if stdout, _, err = run(t, "-o", "jsonpath={.image}"); err != nil || stdout != "tf:1" {
		t.Errorf("jsonpath: %q %v", stdout, err)
	}
	if _, _, err = run(t, "-o", "name"); exit.Code(err) != exit.Usage {
		t.Errorf("-o name: %v", err)
	}
}
