package attach_test

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/attach"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestAttachNeedsATerminalOrACommand(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	err := run(attach.NewCmdAttach(f, func(*attach.Options) error { return nil }), "mnist")
	if exit.Code(err) != exit.Usage {
		t.Errorf("without a terminal: %v, want a usage error", err)
	}
	var got *attach.Options
	if err := run(attach.NewCmdAttach(f, func(o *attach.Options) error { got = o; return nil }), "tf/mnist", "--task", "worker-1", "--command", "nvidia-smi"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "tf/mnist" || got.Task != "worker-1" || got.Command != "nvidia-smi" {
		t.Errorf("options %+v", got)
	}

	f, _, _ = cmdutiltest.Factory(t, true, jobclienttest.Dynamic(), nil)
	if err := run(attach.NewCmdAttach(f, func(o *attach.Options) error { got = o; return nil }), "mnist"); err != nil {
		t.Errorf("on a terminal: %v", err)
	}
}
