package open

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestFlagsMakeOptions(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *Options
	cmd := NewCmdOpen(f, func(o *Options) error { got = o; return nil })
	if err := run(cmd, "tf/mnist", "jupyter", "--task", "worker-1", "--port", "8888", "--no-browser", "--address", "0.0.0.0"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "tf/mnist" || got.Name != "jupyter" || got.Task != "worker-1" || got.LocalPort != 8888 || !got.NoBrowser || got.Address != "0.0.0.0" {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{
		{"mnist"}, {"mnist", "jupyter", "extra"}, {"mnist", "jupyter", "--port", "70000"}, {"mnist", "jupyter", "--address", "example.com"},
	} {
		err := run(NewCmdOpen(f, func(*Options) error { return nil }), args...)
		if exit.Code(err) != exit.Usage {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}
