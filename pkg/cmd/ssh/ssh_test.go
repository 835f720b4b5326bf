package ssh

import (
	"strings"
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

func TestArgsAfterTheDashGoToSSH(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *Options
	if err := run(NewCmdSSH(f, func(o *Options) error { got = o; return nil }), "tf/mnist", "--task", "worker-1", "-l", "jovyan", "--", "-L", "6006:localhost:6006", "nvidia-smi"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "tf/mnist" || got.Task != "worker-1" || got.User != "jovyan" || strings.Join(got.Args, " ") != "-L 6006:localhost:6006 nvidia-smi" {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{{}, {"a", "b"}, {"mnist", "--user", "x y"}, {"--", "mnist"}} {
		if err := run(NewCmdSSH(f, func(*Options) error { return nil }), args...); exit.Code(err) != exit.Usage {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}
