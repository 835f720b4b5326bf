package view

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
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

// TestViewShowsClustersNotSecrets: the clusters are shown under the
// file's names; the secret key, from the environment or the credentials
// file, is in no output.
func TestViewShowsClustersNotSecrets(t *testing.T) {
	const secret = "sk-NEVER-SHOWN-0123"
	for _, key := range config.KeyNames() {
		t.Setenv(config.EnvName(key), "")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv(config.EnvTimakerSecretID, "AKID1")
	t.Setenv(config.EnvTimakerSecretKey, secret)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("cluster: prod\nclusters:\n  prod:\n    type: timaker\n    addr: https://ti.example.com\n    project-id: 3\n    uin: \"100012345\"\n    credentials-file: creds.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "creds.yaml"), []byte("secret-id: AKID2\nsecret-key: "+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"-o", "json"}, {"-o", "yaml"}, {"-o", "go-template={{.}}"}} {
		io, _, out, errOut := iostreams.Test()
		f := &cmdutil.Factory{IOStreams: io, Config: func() (*config.Config, error) { return config.Load(path) }}
		cmd := NewCmdView(f, nil)
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		var discard bytes.Buffer
		cmd.SetOut(&discard)
		cmd.SetErr(&discard)
		if err := cmd.ExecuteContext(context.Background()); err != nil {
			t.Fatalf("view %q: %v", args, err)
		}
		all := out.String() + errOut.String() + discard.String()
		if strings.Contains(all, "NEVER-SHOWN") || !strings.Contains(out.String(), "100012345") {
			t.Errorf("view %q:\n%s", args, all)
		}
	}
	io, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: io, Config: func() (*config.Config, error) { return config.Load(path) }}
	cmd := NewCmdView(f, nil)
	cmd.SetArgs([]string{})
	cmd.SetOut(&bytes.Buffer{})
	if err := cmd.ExecuteContext(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "cluster: prod\nclusters:\n  prod:\n    addr: https://ti.example.com\n    credentials-file: " + filepath.Join(dir, "creds.yaml") +
		"\n    name: prod\n    project-id: 3\n    type: timaker\n    uin: \"100012345\"\ngpu-resource: nvidia.com/gpu\n"
	if out.String() != want {
		t.Errorf("view:\n%s\nwant:\n%s", out, want)
	}
}
