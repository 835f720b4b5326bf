package logs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

// choppyWriter hands each write on in small pieces, yielding between them,
// so that unguarded concurrent writes would interleave.
type choppyWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *choppyWriter) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i += 7 {
		end := min(i+7, len(p))
		w.mu.Lock()
		w.buf.Write(p[i:end])
		w.mu.Unlock()
		time.Sleep(0)
	}
	return len(p), nil
}

// slowReader returns its text a few bytes at a time, splitting lines across reads.
type slowReader struct{ r io.Reader }

func (s slowReader) Read(p []byte) (int, error) { return s.r.Read(p[:min(len(p), 13)]) }

func TestMergedLinesAreNeverSplitOrInterleaved(t *testing.T) {
	const streams, lines = 16, 50
	w := &choppyWriter{}
	out := &lineWriter{w: w}
	var wg sync.WaitGroup
	for s := 0; s < streams; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var text strings.Builder
			for l := 0; l < lines; l++ {
				fmt.Fprintf(&text, "%s-%d-%d\n", strings.Repeat(string(rune('a'+s)), 2000+l), s, l)
			}
			if err := copyLines(slowReader{strings.NewReader(text.String())}, out, prefixOf(fmt.Sprintf("worker-%d", s), false), nil, false); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	_ = out.flush()
	got := strings.Split(strings.TrimSuffix(w.buf.String(), "\n"), "\n")
	if len(got) != streams*lines {
		t.Fatalf("%d lines, want %d", len(got), streams*lines)
	}
	next := make([]int, streams)
	for _, line := range got {
		var s, l int
		prefix, text, _ := strings.Cut(line, " ")
		if _, err := fmt.Sscanf(prefix, "[worker-%d]", &s); err != nil {
			t.Fatalf("line without its prefix: %.60q", line)
		}
		want := fmt.Sprintf("%s-%d-%d", strings.Repeat(string(rune('a'+s)), 2000+next[s]), s, next[s])
		if text != want {
			t.Fatalf("[worker-%d] line %d mangled: %.60q...", s, l, text)
		}
		next[s]++
	}
}

func TestPrefix(t *testing.T) {
	if got := prefixOf("worker-0", false); got != "[worker-0] " {
		t.Errorf("plain prefix %q", got)
	}
	coloured := prefixOf("worker-0", true)
	if !strings.HasPrefix(coloured, "\x1b[") || !strings.HasSuffix(coloured, "[worker-0]\x1b[0m ") {
		t.Errorf("coloured prefix %q", coloured)
	}
	if coloured != prefixOf("worker-0", true) {
		t.Error("a replica's colour changes between calls")
	}
	var b bytes.Buffer
	lw := &lineWriter{w: &b}
	err := copyLines(strings.NewReader("one\r\ntwo\n\nlast without newline"), lw, "[ps-0] ", nil, false)
	_ = lw.flush()
	if err != nil || b.String() != "[ps-0] one\n[ps-0] two\n[ps-0] \n[ps-0] last without newline\n" {
		t.Errorf("copyLines = %q, %v", b.String(), err)
	}
}

// fakeSource serves each pod's stamped log; a stream of a pod listed in
// breakAfter fails after that many lines, once.
type fakeSource struct {
	mu         sync.Mutex
	logs       map[string][]string
	breakAfter map[string]int
	requests   []corev1.PodLogOptions
}

func (f *fakeSource) Stream(_ context.Context, _, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, *opts)
	lines, ok := f.logs[pod]
	if !ok {
		return nil, errors.New("container is waiting to start")
	}
	var text strings.Builder
	for i, line := range lines {
		ts, msg, _ := splitTimestamp(line)
		// The API server's sinceTime is whole seconds.
		if opts.SinceTime != nil && ts.Before(opts.SinceTime.Time.Truncate(time.Second)) {
			continue
		}
		if n, breaks := f.breakAfter[pod]; breaks && i == n {
			delete(f.breakAfter, pod)
			return io.NopCloser(io.MultiReader(strings.NewReader(text.String()), errReader{})), nil
		}
		if opts.Timestamps {
			text.WriteString(line + "\n")
		} else {
			text.WriteString(msg + "\n")
		}
	}
	return io.NopCloser(strings.NewReader(text.String())), nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func stamp(sec, nsec int, text string) string {
	return time.Date(2025, 3, 1, 12, 0, sec, nsec, time.UTC).Format(time.RFC3339Nano) + " " + text
}

func TestABrokenStreamResumesWithoutRepeatingLines(t *testing.T) {
	src := &fakeSource{
		logs: map[string][]string{"mnist-worker-0": {
			stamp(1, 100, "step 1"), stamp(2, 100, "step 2"), stamp(2, 100, "step 2"), stamp(2, 500, "step 3"),
			stamp(2, 500, "step 4"), stamp(3, 0, "step 5"),
		}},
		breakAfter: map[string]int{"mnist-worker-0": 4},
	}
	c := &Request{Source: src, Tail: -1}
	var b bytes.Buffer
	out := &lineWriter{w: &b}
	s := &stream{pod: stateOf(tfPod("worker", 0, corev1.PodRunning)), task: "worker-0", container: "train"}
	if err := c.copyStream(context.Background(), s.target(c.streamOptions(s)), &s.resume, out); err == nil {
		t.Fatal("the first stream did not break")
	}
	if err := c.copyStream(context.Background(), s.target(c.streamOptions(s)), &s.resume, out); err != nil {
		t.Fatal(err)
	}
	_ = out.flush()
	want := "[worker-0] step 1\n[worker-0] step 2\n[worker-0] step 2\n[worker-0] step 3\n[worker-0] step 4\n[worker-0] step 5\n"
	if b.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", b.String(), want)
	}
	resumed := src.requests[1]
	if resumed.SinceTime == nil || !resumed.SinceTime.Time.Equal(time.Date(2025, 3, 1, 12, 0, 2, 500, time.UTC)) || !resumed.Timestamps || !resumed.Follow {
		t.Errorf("resumed with %+v, want sinceTime the last line's stamp, timestamps, follow", resumed)
	}
}

func TestTimestampsAreKeptWhenAsked(t *testing.T) {
	var b bytes.Buffer
	line := stamp(1, 0, "hello world")
	lw := &lineWriter{w: &b}
	if err := copyLines(strings.NewReader(line+"\n"), lw, "[w-0] ", &resumePoint{}, true); err != nil {
		t.Fatal(err)
	}
	_ = lw.flush()
	if b.String() != "[w-0] "+line+"\n" {
		t.Errorf("got %q", b.String())
	}
}

func tfPod(role string, index int, phase corev1.PodPhase) *corev1.Pod {
	p := jobclienttest.Pod("team-a", "mnist", role, index, phase, jobclienttest.T0)
	p.UID = types.UID(p.Name)
	p.Spec.Containers = []corev1.Container{{Name: "train"}}
	return p
}

func mnist(conditions ...kubeflowv1.JobConditionType) *unstructured.Unstructured {
	return jobclienttest.Job{Name: "mnist", Created: jobclienttest.T0, User: "alice",
		Roles: []jobclienttest.Role{
			{Type: kubeflowv1.TFJobReplicaTypePS, Replicas: 1, Active: 1},
			{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 2, Active: 2},
		},
		Conditions: conditions, Reason: "TFJobFailed", Message: "worker-1 exited with code 1"}.Object()
}

func replicasOf(names ...string) []jobmodel.Replica {
	var out []jobmodel.Replica
	for _, n := range names {
		role, _, _ := strings.Cut(n, "-")
		out = append(out, jobmodel.Replica{Task: n, Role: role})
	}
	return out
}

func TestSelect(t *testing.T) {
	all := replicasOf("ps-0", "worker-0", "worker-1")
	tests := []struct {
		tasks []string
		role  string
		want  string
		code  int
	}{
		{want: "ps-0 worker-0 worker-1"},
		{tasks: []string{"worker-1", "ps-0"}, want: "ps-0 worker-1"},
		{role: "worker", want: "worker-0 worker-1"},
		{tasks: []string{"worker-1"}, role: "worker", want: "worker-1"},
		{tasks: []string{"worker-1"}, role: "ps", want: ""},
		{tasks: []string{"worker-7"}, code: exit.NotFound, want: "the job has no task worker-7 (its tasks: ps-0, worker-0, worker-1)"},
		{role: "chief", code: exit.NotFound, want: "the job has no role chief (its roles: ps, worker)"},
	}
	for _, tt := range tests {
		got, err := Select(all, tt.tasks, tt.role)
		if tt.code != 0 {
			if exit.Code(err) != tt.code || err.Error() != tt.want {
				t.Errorf("Select(%v, %q) = %v (exit %d), want %q (exit %d)", tt.tasks, tt.role, err, exit.Code(err), tt.want, tt.code)
			}
			continue
		}
		var names []string
		for _, r := range got {
			names = append(names, r.Task)
		}
		if err != nil || strings.Join(names, " ") != tt.want {
			t.Errorf("Select(%v, %q) = %v, %v; want %s", tt.tasks, tt.role, names, err, tt.want)
		}
	}
}

func run(t *testing.T, c Request, pods ...runtime.Object) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	c.Kind, c.Kube, c.Out, c.ErrOut = tfjob.New(), kubefake.NewClientset(pods...), &out, &errOut
	if c.MaxLogRequests == 0 {
		c.MaxLogRequests = 64
	}
	if c.Tail == 0 {
		c.Tail = -1
	}
	err = Run(context.Background(), c)
	return out.String(), errOut.String(), err
}

func podsOfMnist() []runtime.Object {
	return []runtime.Object{tfPod("worker", 1, corev1.PodRunning), tfPod("ps", 0, corev1.PodRunning), tfPod("worker", 0, corev1.PodRunning)}
}

func TestLogsOfEveryReplicaInOrder(t *testing.T) {
	src := &fakeSource{logs: map[string][]string{
		"mnist-ps-0":     {stamp(1, 0, "ps up")},
		"mnist-worker-0": {stamp(2, 0, "w0 step 1"), stamp(3, 0, "w0 step 2")},
		"mnist-worker-1": {stamp(1, 5, "w1 step 1")},
	}}
	stdout, stderr, err := run(t, Request{Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning), Source: src}, podsOfMnist()...)
	want := "[ps-0] ps up\n[worker-0] w0 step 1\n[worker-0] w0 step 2\n[worker-1] w1 step 1\n"
	if err != nil || stdout != want || stderr != "" {
		t.Errorf("logs = %q, stderr %q, %v; want %q", stdout, stderr, err, want)
	}

	stdout, _, err = run(t, Request{Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning), Source: src, Role: "worker", Tail: 1, Previous: true}, podsOfMnist()...)
	if err != nil || stdout != "[worker-0] w0 step 1\n[worker-0] w0 step 2\n[worker-1] w1 step 1\n" {
		t.Errorf("--role worker: %q, %v", stdout, err)
	}
	last := src.requests[len(src.requests)-1]
	if !last.Previous || last.TailLines == nil || *last.TailLines != 1 || last.Follow || last.Timestamps || last.SinceSeconds != nil {
		t.Errorf("request %+v: want previous, tail 1, no follow", last)
	}

	stdout, _, err = run(t, Request{Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning), Source: src, Role: "worker", Prefix: "train/"}, podsOfMnist()...)
	if err != nil || stdout != "[train/worker-0] w0 step 1\n[train/worker-0] w0 step 2\n[train/worker-1] w1 step 1\n" {
		t.Errorf("a pipeline step's prefix: %q, %v", stdout, err)
	}

	if _, _, err = run(t, Request{Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning), Source: src, Tasks: []string{"ps-0"}, Since: 10 * time.Minute, Timestamps: true}, podsOfMnist()...); err != nil {
		t.Fatal(err)
	}
	last = src.requests[len(src.requests)-1]
	if last.SinceSeconds == nil || *last.SinceSeconds != 600 || !last.Timestamps || last.TailLines != nil {
		t.Errorf("request %+v: want sinceSeconds 600, timestamps, no tail", last)
	}
}

func TestAReplicaWithoutLogIsReportedOnStderr(t *testing.T) {
	src := &fakeSource{logs: map[string][]string{"mnist-ps-0": {stamp(1, 0, "ps up")}}}
	stdout, stderr, err := run(t, Request{Job: mnist(kubeflowv1.JobCreated), Source: src}, tfPod("ps", 0, corev1.PodRunning), tfPod("worker", 0, corev1.PodPending))
	if err != nil || stdout != "[ps-0] ps up\n" || stderr != "worker-0 is Pending: starting on node-0\nworker-1: no pod yet\n" {
		t.Errorf("stdout %q stderr %q err %v", stdout, stderr, err)
	}
}

// TestWhyAReplicaFailsIsOneLine: a replica that cannot run, or ran and
// failed, gets one line on stderr saying why, after its log when it has one.
func TestWhyAReplicaFailsIsOneLine(t *testing.T) {
	unscheduled := tfPod("ps", 0, corev1.PodPending)
	unscheduled.Spec.NodeName = ""
	unscheduled.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
		Reason: "Unschedulable", Message: "0/5 nodes are available:\n 1 Insufficient cpu."}}
	mounting := tfPod("worker", 0, corev1.PodPending)
	mounting.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "train", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}
	crashing := tfPod("worker", 1, corev1.PodRunning)
	crashing.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "train", RestartCount: 4,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3, Reason: "Error"}}}}
	mountFailed := jobclienttest.Warning("team-a", "e1", "Pod", "mnist-worker-0", "FailedMount", `MountVolume.SetUp failed for volume "code" : secret "git" not found`, 3, jobclienttest.T0)
	older := jobclienttest.Warning("team-a", "e0", "Pod", "mnist-worker-0", "FailedScheduling", "before", 1, jobclienttest.T0.Add(-time.Hour))
	other := jobclienttest.Warning("team-a", "e2", "Pod", "mnist-worker-1", "BackOff", "not worker-0's", 1, jobclienttest.T0.Add(time.Hour))
	src := &fakeSource{logs: map[string][]string{"mnist-worker-1": {stamp(1, 0, "Traceback"), stamp(1, 1, "ValueError")}}}
	stdout, stderr, err := run(t, Request{Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning), Source: src}, unscheduled, mounting, crashing, mountFailed, older, other)
	wantErr := "ps-0 is Pending: Unschedulable: 0/5 nodes are available:  1 Insufficient cpu.\n" +
		`worker-0 is Pending: FailedMount: MountVolume.SetUp failed for volume "code" : secret "git" not found` + "\n" +
		"worker-1: CrashLoopBackOff, 4 restarts, the last run ended with exit code 3; --previous shows that run's log\n"
	if err != nil || stdout != "[worker-1] Traceback\n[worker-1] ValueError\n" || stderr != wantErr {
		t.Errorf("stdout %q\nstderr %q\nerr %v\nwant stderr %q", stdout, stderr, err, wantErr)
	}

	ended := tfPod("worker", 1, corev1.PodFailed)
	ended.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "train",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}}}
	_, stderr, err = run(t, Request{Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobFailed), Source: src, Tasks: []string{"worker-1"}}, ended)
	if err != nil || stderr != "worker-1: ended with exit code 137 (OOMKilled)\n" {
		t.Errorf("an ended replica: stderr %q, %v", stderr, err)
	}
}

func TestFollowingMoreStreamsThanAllowedIsAUsageError(t *testing.T) {
	_, _, err := run(t, Request{Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning), Follow: true, MaxLogRequests: 2, Source: &fakeSource{}}, podsOfMnist()...)
	want := "following 3 log streams is more than --max-log-requests 2: raise --max-log-requests, or select replicas with --task or --role"
	if exit.Code(err) != exit.Usage || err.Error() != want {
		t.Errorf("err = %v (exit %d), want %q (exit 2)", err, exit.Code(err), want)
	}
}

func TestFollowingAnEndedJobExitsAsTheJobDid(t *testing.T) {
	src := &fakeSource{logs: map[string][]string{"mnist-ps-0": {stamp(1, 0, "ps up")}, "mnist-worker-0": {}, "mnist-worker-1": {stamp(2, 0, "boom")}}}
	stdout, _, err := run(t, Request{Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobFailed), Follow: true, Source: src}, podsOfMnist()...)
	if exit.Code(err) != exit.JobFailed || err.Error() != "tf/mnist failed: TFJobFailed: worker-1 exited with code 1" {
		t.Errorf("failed job: %v (exit %d)", err, exit.Code(err))
	}
	if stdout != "[ps-0] ps up\n[worker-1] boom\n" {
		t.Errorf("stdout %q", stdout)
	}
	_, _, err = run(t, Request{Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobSucceeded), Follow: true, Source: src}, podsOfMnist()...)
	if err != nil {
		t.Errorf("succeeded job: %v", err)
	}
}

func TestExitCodes(t *testing.T) {
	k := tfjob.New()
	for state, code := range map[jobmodel.State]int{jobmodel.Succeeded: exit.OK, jobmodel.Failed: exit.JobFailed} {
		if got := exit.Code(outcome(k, "mnist", jobmodel.Status{State: state})); got != code {
			t.Errorf("%s: exit %d, want %d", state, got, code)
		}
	}
	if got := exit.Code(TooManyStreamsError(70, 64)); got != exit.Usage {
		t.Errorf("too many streams: exit %d", got)
	}
}
