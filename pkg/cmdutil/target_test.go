package cmdutil_test

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

// oneJob is a command's Options on one job, recording its steps.
type oneJob struct {
	cmdutil.JobOptions
	f     *cmdutil.Factory
	steps []string
}

func (o *oneJob) Validate() error {
	o.steps = append(o.steps, "validate")
	return o.ParseJob(o.f.Kinds)
}
func (o *oneJob) Complete() error               { o.steps = append(o.steps, "complete"); return nil }
func (o *oneJob) Run(ctx context.Context) error { o.steps = append(o.steps, "run"); return nil }

func TestTakeOneJob(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
	run := func(runF func(*oneJob) error, args ...string) (*oneJob, error) {
		o := &oneJob{f: f}
		cmd := &cobra.Command{Use: "suspend"}
		cmdutil.TakeOneJob(cmd, f, o, runF)
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		return o, cmd.Execute()
	}
	o, err := run(nil, "tf/mnist")
	if err != nil || o.JobArg != "tf/mnist" || o.Ref.String() != "tf/mnist" || strings.Join(o.steps, ",") != "validate,complete,run" {
		t.Errorf("tf/mnist: %v, JobArg %q, steps %v", err, o.JobArg, o.steps)
	}
	o, err = run(func(o *oneJob) error { o.steps = append(o.steps, "runF"); return nil }, "mnist")
	if err != nil || strings.Join(o.steps, ",") != "validate,runF" {
		t.Errorf("with runF: %v, steps %v", err, o.steps)
	}
	for _, args := range [][]string{{}, {"a", "b"}} {
		if _, err := run(nil, args...); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `"suspend" needs a job: NAME or KIND/NAME`) {
			t.Errorf("%q: %v, want exit 2", args, err)
		}
	}
	cmd := &cobra.Command{Use: "suspend"}
	cmdutil.TakeOneJob(cmd, f, &oneJob{f: f}, nil)
	if got, _ := cmd.ValidArgsFunction(cmd, nil, ""); len(got) != 3 || !strings.HasPrefix(got[0], "resnet\t") {
		t.Errorf("completions %q, want the namespace's jobs", got)
	}
}
