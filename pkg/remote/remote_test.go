package remote_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	utilexec "k8s.io/utils/exec"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
)

func replicas(tasks ...string) []jobmodel.Replica {
	var out []jobmodel.Replica
	for _, t := range tasks {
		out = append(out, jobmodel.Replica{Task: t, Pod: "mnist-" + t, Phase: "Running"})
	}
	return out
}

func TestDefaultReplica(t *testing.T) {
	tests := []struct {
		tasks []string
		want  string
	}{
		{[]string{"ps-0", "worker-0", "worker-1"}, "worker-0"},
		{[]string{"chief-0", "ps-0", "worker-0"}, "chief-0"},
		{[]string{"worker-0", "master-0"}, "master-0"},
		{[]string{"worker-0", "launcher"}, "launcher"},
		{[]string{"evaluator-0", "ps-0"}, "evaluator-0"},
	}
	for _, tt := range tests {
		r, err := remote.DefaultReplica(replicas(tt.tasks...))
		if err != nil || r.Task != tt.want {
			t.Errorf("DefaultReplica(%v) = %s, %v; want %s", tt.tasks, r.Task, err, tt.want)
		}
	}
	if _, err := remote.DefaultReplica(nil); exit.Code(err) != exit.NotFound {
		t.Errorf("no replicas: %v, want not found", err)
	}
}

func TestFindReplicaListsTheTasksThereAre(t *testing.T) {
	rs := replicas("ps-0", "worker-0", "worker-1")
	if r, err := remote.FindReplica(rs, "worker-1"); err != nil || r.Pod != "mnist-worker-1" {
		t.Errorf("worker-1: %+v, %v", r, err)
	}
	_, err := remote.FindReplica(rs, "worker-7")
	if exit.Code(err) != exit.NotFound || err.Error() != "no replica worker-7: the job has ps-0, worker-0, worker-1" {
		t.Errorf("worker-7: %v (code %d)", err, exit.Code(err))
	}
}

func TestOnlyRunningReplicasRun(t *testing.T) {
	rs := replicas("worker-0", "worker-1")
	rs[1].Phase = "Pending"
	if got := remote.Running(rs); len(got) != 1 || got[0].Task != "worker-0" {
		t.Errorf("Running = %+v", got)
	}
	if err := remote.Runnable(rs[1]); err == nil || !strings.Contains(err.Error(), "worker-1 is Pending") {
		t.Errorf("Runnable(pending) = %v", err)
	}
}

func TestExitCodes(t *testing.T) {
	exited := fmt.Errorf("streaming: %w", utilexec.CodeExitError{Err: errors.New("command terminated with non-zero exit code"), Code: 3})
	if code, ok := remote.ExitCode(exited); !ok || code != 3 {
		t.Errorf("ExitCode = %d, %v; want 3", code, ok)
	}
	err := remote.ExitError(exited)
	if exit.Code(err) != 3 || !errors.Is(err, exit.ErrSilent) {
		t.Errorf("ExitError: code %d, silent %v", exit.Code(err), errors.Is(err, exit.ErrSilent))
	}
	// kwok's form: no typed status, only a message.
	other := errors.New("Internal error occurred: error executing command in container: exit status 3")
	if _, ok := remote.ExitCode(other); ok {
		t.Error("an untyped error has no exit code")
	}
	if err := remote.ExitError(other); exit.Code(err) != exit.Error || err != other {
		t.Errorf("ExitError(untyped) = %v (code %d)", err, exit.Code(err))
	}
	if remote.ExitError(nil) != nil {
		t.Error("ExitError(nil) != nil")
	}
}

func TestPrefixWriterWritesWholeLines(t *testing.T) {
	var out bytes.Buffer
	w := remote.NewPrefixWriter(&out, "[worker-0] ")
	for _, chunk := range []string{"ep", "och 1\nepoch", " 2\n\nlos", "s 0.1"} {
		if _, err := io.WriteString(w, chunk); err != nil {
			t.Fatal(err)
		}
	}
	if got := out.String(); got != "[worker-0] epoch 1\n[worker-0] epoch 2\n[worker-0] \n" {
		t.Errorf("before Flush: %q", got)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.HasSuffix(got, "[worker-0] loss 0.1\n") {
		t.Errorf("after Flush: %q", got)
	}
}

// fakeExecutor prints lines in pieces and fails as told, per pod.
type fakeExecutor struct {
	fail map[string]error
}

func (f *fakeExecutor) Exec(_ context.Context, namespace, pod, container string, command []string, s remote.Streams) error {
	for i := 0; i < 50; i++ {
		fmt.Fprintf(s.Stdout, "%s line", pod)
		fmt.Fprintf(s.Stdout, " %d\n", i)
	}
	fmt.Fprintf(s.Stderr, "%s %s", pod, strings.Join(command, " "))
	return f.fail[pod]
}

func TestRunAllPrefixesEveryLineAndNamesFailures(t *testing.T) {
	var stdout, stderr bytes.Buffer
	e := &fakeExecutor{fail: map[string]error{"mnist-worker-1": utilexec.CodeExitError{Err: errors.New("exit"), Code: 2}}}
	failures := remote.RunAll(context.Background(), e, "team-a", "", replicas("worker-0", "worker-1", "worker-2"), []string{"df", "-h"}, 0, &stdout, &stderr)
	if len(failures) != 1 || failures[0].String() != "worker-1 (exit code 2)" {
		t.Errorf("failures %v", failures)
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != 150 {
		t.Fatalf("%d lines, want 150", len(lines))
	}
	perTask := map[string]int{}
	for _, l := range lines {
		task, rest, ok := strings.Cut(l, "] ")
		task = strings.TrimPrefix(task, "[")
		if !ok || !strings.HasPrefix(rest, "mnist-"+task+" line ") {
			t.Fatalf("mixed line %q", l)
		}
		perTask[task]++
	}
	if perTask["worker-0"] != 50 || perTask["worker-2"] != 50 {
		t.Errorf("lines per task %v", perTask)
	}
	errLines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	sort.Strings(errLines)
	want := "[worker-0] mnist-worker-0 df -h,[worker-1] mnist-worker-1 df -h,[worker-2] mnist-worker-2 df -h"
	if strings.Join(errLines, ",") != want {
		t.Errorf("stderr %q", stderr.String())
	}
}

// countingExecutor records how many commands run at once.
type countingExecutor struct {
	mu          sync.Mutex
	now, most   int
	ran         int
	holdEachFor time.Duration
}

func (c *countingExecutor) Exec(ctx context.Context, _, _, _ string, _ []string, _ remote.Streams) error {
	c.mu.Lock()
	c.now++
	c.ran++
	c.most = max(c.most, c.now)
	c.mu.Unlock()
	time.Sleep(c.holdEachFor)
	c.mu.Lock()
	c.now--
	c.mu.Unlock()
	return nil
}

func TestRunAllRunsAtMostParallelAtOnce(t *testing.T) {
	var tasks []string
	for i := range 10 {
		tasks = append(tasks, fmt.Sprintf("worker-%d", i))
	}
	for _, parallel := range []int{1, 3, 0} {
		e := &countingExecutor{holdEachFor: 20 * time.Millisecond}
		failures := remote.RunAll(context.Background(), e, "team-a", "", replicas(tasks...), []string{"true"}, parallel, io.Discard, io.Discard)
		want := parallel
		if parallel == 0 {
			want = 10
		}
		if len(failures) != 0 || e.ran != 10 || e.most > want || (parallel == 1 && e.most != 1) {
			t.Errorf("parallel %d: ran %d, at most %d at once (want <= %d), failures %v", parallel, e.ran, e.most, want, failures)
		}
	}
}

func TestRunAllStopsStartingCommandsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := &countingExecutor{}
	failures := remote.RunAll(ctx, e, "team-a", "", replicas("worker-0", "worker-1", "worker-2"), []string{"true"}, 1, io.Discard, io.Discard)
	if e.ran != 0 || len(failures) != 3 {
		t.Errorf("after a cancel: ran %d commands, failures %v", e.ran, failures)
	}
}
