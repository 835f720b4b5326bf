package notebook

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
	var got *createOptions
	cmd := newCmdCreate(f, func(o *createOptions) error { got = o; return nil })
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
		err := run(newCmdCreate(f, func(*createOptions) error { return nil }), args...)
		if exit.Code(err) != exit.Usage {
			t.Errorf("create %q: %v, want a usage error", args, err)
		}
	}
}

func TestOpenIsJupyterOfThePyTorchJob(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *openOptions
	if err := run(newCmdOpen(f, func(o *openOptions) error { got = o; return nil }), "explore", "--no-browser"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "pytorch/explore" || got.Name != notebook.Endpoint || !got.NoBrowser || got.Check == nil {
		t.Errorf("options %+v", got)
	}
}

func TestStateCommandsTakeOneName(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	for _, mk := range []func() *cobra.Command{
		func() *cobra.Command { return newCmdStop(f, func(*stateOptions) error { return nil }) },
		func() *cobra.Command { return newCmdStart(f, func(*stateOptions) error { return nil }) },
		func() *cobra.Command { return newCmdDelete(f, func(*deleteOptions) error { return nil }) },
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
