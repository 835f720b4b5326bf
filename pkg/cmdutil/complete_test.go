package cmdutil_test

import (
	"reflect"
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

func TestCompleteJobs(t *testing.T) {
	f, _, _ := jobclienttest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
	got, directive := cmdutil.CompleteJobs(f)(nil, nil, "")
	want := []string{"resnet\tpytorch, Queued", "mnist\ttf, Running", "old\ttf, Succeeded"}
	if !reflect.DeepEqual(got, want) || directive != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("completions %q (%d), want %q", got, directive, want)
	}
	// The one job of a command is completed, nothing after it.
	if got, _ := cmdutil.CompleteJob(f)(nil, []string{"mnist"}, ""); len(got) != 0 {
		t.Errorf("after the job: %q", got)
	}
}

func TestCompleteWords(t *testing.T) {
	got, directive := cmdutil.CompleteWords("Always", "Never")(nil, nil, "")
	if !reflect.DeepEqual(got, []string{"Always", "Never"}) || directive != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("%q %d", got, directive)
	}
}
