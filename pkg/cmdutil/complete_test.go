package cmdutil_test

import (
	"reflect"
	"testing"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

func TestCompleteJobs(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), nil)
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

// --task is completed with the replicas of the job named, never file names.
func TestCompleteTasks(t *testing.T) {
	kube := kubefake.NewClientset(
		jobclienttest.Pod("team-a", "mnist", "ps", 0, corev1.PodRunning, jobclienttest.T0),
		jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, jobclienttest.T0),
	)
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(jobclienttest.Fixtures()...), kube)
	cmd := &cobra.Command{}
	cmd.Flags().String("kind", "", "")
	got, directive := cmdutil.CompleteTasks(f)(cmd, []string{"mnist"}, "")
	want := []string{"ps-0\tRunning", "worker-0\tRunning", "worker-1\tPending"}
	if !reflect.DeepEqual(got, want) || directive != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("completions %q (%d), want %q", got, directive, want)
	}
	if got, directive := cmdutil.CompleteTasks(f)(cmd, nil, ""); len(got) != 0 || directive != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("without a job: %q %d", got, directive)
	}
}
