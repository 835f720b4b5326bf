package open

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/notebook"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestOpenIsJupyterOfThePyTorchJob(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *Options
	if err := run(NewCmdOpen(f, func(o *Options) error { got = o; return nil }), "explore", "--no-browser"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "pytorch/explore" || got.Name != notebook.Endpoint || !got.NoBrowser || got.Check == nil {
		t.Errorf("options %+v", got)
	}
}
