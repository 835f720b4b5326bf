package remote

import (
	"context"
	"fmt"
	"strings"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// DefaultMaxParallel is how many replicas a command given to every replica
// (exec --all, run --all) runs in at once by default: enough for most jobs
// at once, few enough not to open hundreds of streams through the API
// server.
const DefaultMaxParallel = 32

// String is the job as KIND/NAME.
func (j *Job) String() string { return j.Kind.Name() + "/" + j.Object.GetName() }

// ExecIn runs command in the container of replica r's pod ("": the pod's
// default container) and returns ExitError's error: a non-zero exit is
// easyai's exit code. Any other error says where it happened, with verb
// naming what failed: "exec in worker-0 (pod mnist-worker-0): ...".
func ExecIn(ctx context.Context, e Executor, namespace string, r jobmodel.Replica, container string, command []string, s Streams, verb string) error {
	err := e.Exec(ctx, namespace, r.Pod, container, command, s)
	if _, exited := ExitCode(err); err != nil && !exited {
		return fmt.Errorf("%s in %s (pod %s): %w", verb, r.Task, r.Pod, err)
	}
	return ExitError(err)
}

// FailedIn is the error of a command RunAll ran in n replicas, naming
// those where it failed: "the command failed in 1 of 2 replicas: ps-0
// (exit code 2)"; nil when it failed in none.
func FailedIn(failures []Failure, n int) error {
	if len(failures) == 0 {
		return nil
	}
	names := make([]string, len(failures))
	for i, f := range failures {
		names[i] = f.String()
	}
	return fmt.Errorf("the command failed in %d of %d replicas: %s", len(failures), n, strings.Join(names, ", "))
}
