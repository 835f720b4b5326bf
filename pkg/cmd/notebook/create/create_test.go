package create

import (
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/notebook"
	"github.com/easyai-dev/easyai/pkg/submit"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestCreateFlags(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *Options
	cmd := NewCmdCreate(f, func(o *Options) error { got = o; return nil })
	if err := run(cmd, "explore", "--gpus", "2", "--memory", "32Gi", "--idle-timeout", "2h", "--max-duration", "0", "--storage", "pvc:team", "--dry-run"); err != nil {
		t.Fatal(err)
	}
	s := got.Spec
	if s.Name != "explore" || s.GPUs != 2 || s.Memory != "32Gi" || s.CPU != notebook.DefaultCPU || s.IdleTimeout != 2*time.Hour ||
		s.MaxDuration != 0 || s.Storage != "pvc:team" || s.Overcommit != notebook.DefaultOvercommit || got.dryRun != submit.DryRunClient {
		t.Errorf("options %+v", got)
	}
	for _, args := range [][]string{
		{}, {"a", "b"}, {"Bad_Name"}, {"nb", "--overcommit", "0"}, {"nb", "--cpu", "x"}, {"nb", "--wait", "--dry-run"}, {"nb", "--image", "bad image"},
	} {
		err := run(NewCmdCreate(f, func(*Options) error { return nil }), args...)
		if exit.Code(err) != exit.Usage {
			t.Errorf("create %q: %v, want a usage error", args, err)
		}
	}
}
