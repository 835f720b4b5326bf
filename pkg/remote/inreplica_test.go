package remote_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	utilexec "k8s.io/utils/exec"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// ExecIn passes the command's exit code on, silently, and says where any
// other error happened.
func TestExecIn(t *testing.T) {
	r := jobmodel.Replica{Task: "worker-0", Pod: "mnist-worker-0", Phase: "Running"}
	var out bytes.Buffer
	s := remote.Streams{Stdout: &out, Stderr: &out}
	for _, tc := range []struct {
		fail     error
		code     int
		message  string
		isSilent bool
	}{
		{nil, exit.OK, "", false},
		{utilexec.CodeExitError{Err: errors.New("exit"), Code: 42}, 42, "", true},
		{errors.New("stream reset"), exit.Error, "run in worker-0 (pod mnist-worker-0): stream reset", false},
	} {
		e := &fakeExecutor{fail: map[string]error{"mnist-worker-0": tc.fail}}
		err := remote.ExecIn(context.Background(), e, "team-a", r, "", []string{"true"}, s, "run")
		if exit.Code(err) != tc.code || errors.Is(err, exit.ErrSilent) != tc.isSilent || (tc.message != "" && err.Error() != tc.message) {
			t.Errorf("%v: %v (exit %d), want exit %d %q", tc.fail, err, exit.Code(err), tc.code, tc.message)
		}
	}
}

func TestFailedIn(t *testing.T) {
	if err := remote.FailedIn(nil, 3); err != nil {
		t.Errorf("no failure: %v", err)
	}
	failures := []remote.Failure{{Task: "ps-0", Err: utilexec.CodeExitError{Err: errors.New("exit"), Code: 2}}, {Task: "worker-1", Err: errors.New("gone")}}
	if err := remote.FailedIn(failures, 3); err == nil || err.Error() != "the command failed in 2 of 3 replicas: ps-0 (exit code 2), worker-1 (gone)" {
		t.Errorf("FailedIn: %v", err)
	}
}
