package notebook

import (
	"testing"

	"github.com/spf13/cobra"

	deletecmd "github.com/easyai-dev/easyai/pkg/cmd/notebook/delete"
	"github.com/easyai-dev/easyai/pkg/cmd/notebook/start"
	"github.com/easyai-dev/easyai/pkg/cmd/notebook/stop"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestStateCommandsTakeOneName(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	for _, mk := range []func() *cobra.Command{
		func() *cobra.Command { return stop.NewCmdStop(f, func(*stop.Options) error { return nil }) },
		func() *cobra.Command { return start.NewCmdStart(f, func(*start.Options) error { return nil }) },
		func() *cobra.Command { return deletecmd.NewCmdDelete(f, func(*deletecmd.Options) error { return nil }) },
	} {
		if err := run(mk(), "explore"); err != nil {
			t.Errorf("%s explore: %v", mk().Name(), err)
		}
		for _, args := range [][]string{{}, {"a", "b"}, {"tf/x"}} {
			if err := run(mk(), args...); exit.Code(err) != exit.Usage {
				t.Errorf("%s %q: %v, want a usage error", mk().Name(), args, err)
			}
		}
	}
}
