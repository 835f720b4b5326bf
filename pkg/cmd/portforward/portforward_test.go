package portforward_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/portforward"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// parse runs port-forward with args up to Validate and returns its options
// (nil when runF was not reached).
func parse(t *testing.T, args ...string) (*portforward.Options, error) {
	t.Helper()
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *portforward.Options
	cmd := portforward.NewCmdPortForward(f, func(o *portforward.Options) error { got = o; return nil })
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(&strings.Builder{})
	_, err := cmd.ExecuteC()
	return got, err
}

// TestCommandLineToOptions: the job, the replica, the ports and the
// addresses, as the command line gives them.
func TestCommandLineToOptions(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		ref, task string
		ports     []remote.PortSpec
		addresses []string
	}{
		{[]string{"mnist", ":6006"}, "mnist", "", []remote.PortSpec{{Local: 0, Remote: 6006}}, []string{"127.0.0.1"}},
		{[]string{"mnist", "6006"}, "mnist", "", []remote.PortSpec{{Local: 6006, Remote: 6006}}, []string{"127.0.0.1"}},
		{[]string{"tf/mnist", "--task", "worker-1", "8080:80", "9090", "0:22"}, "tf/mnist", "worker-1",
			[]remote.PortSpec{{Local: 8080, Remote: 80}, {Local: 9090, Remote: 9090}, {Local: 0, Remote: 22}}, []string{"127.0.0.1"}},
		{[]string{"mnist", "--kind", "pytorch", "--address", "0.0.0.0,localhost", "--address", "::1", "6006"}, "pytorch/mnist", "",
			[]remote.PortSpec{{Local: 6006, Remote: 6006}}, []string{"0.0.0.0", "localhost", "::1"}},
	} {
		o, err := parse(t, tc.args...)
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		if o.Ref.String() != tc.ref || o.Task != tc.task || !reflect.DeepEqual(o.Ports, tc.ports) || !reflect.DeepEqual(o.Addresses, tc.addresses) {
			t.Errorf("%v: job %s, task %q, ports %v, addresses %v; want %s, %q, %v, %v",
				tc.args, o.Ref, o.Task, o.Ports, o.Addresses, tc.ref, tc.task, tc.ports, tc.addresses)
		}
	}
}

// TestBadCommandLinesAreUsageErrors: each bad argument is exit 2 with a
// message naming it, before any cluster is asked.
func TestBadCommandLinesAreUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "needs a job"},
		{[]string{"mnist"}, "name at least one port"},
		{[]string{"mnist", "0"}, `bad port "0": the remote port cannot be 0`},
		{[]string{"mnist", "70000"}, `bad port "70000"`},
		{[]string{"mnist", "8080:"}, `bad port "8080:": the remote port`},
		{[]string{"mnist", "http:80"}, `bad port "http:80": the local port "http"`},
		{[]string{"mnist", "6006", "--address", "example.com"}, `bad --address "example.com"`},
		{[]string{"foo/mnist", "6006"}, `unknown kind "foo"`},
		{[]string{"tf/mnist", "--kind", "pytorch", "6006"}, "pytorch"},
	} {
		o, err := parse(t, tc.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v; want a usage error saying %s", tc.args, err, tc.want)
		}
		if o != nil {
			t.Errorf("%v: ran with options %+v", tc.args, o)
		}
	}
}

// TestCompletionOffersJobsThenNothing: the first argument completes job
// names; ports are not files.
func TestCompletionOffersJobsThenNothing(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	cmd := portforward.NewCmdPortForward(f, nil)
	if _, directive := cmd.ValidArgsFunction(cmd, []string{"mnist"}, ""); directive != cobra.ShellCompDirectiveNoFileComp {
		t.Errorf("after the job: directive %v, want no file completion", directive)
	}
}
