package timakerplatform

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/timaker"
	"github.com/easyai-dev/easyai/pkg/waiter"
	"github.com/easyai-dev/easyai/test/timakerd/server"
)

// These tests run the platform against the project's contract test server
// of timaker (test/timakerd), in process.

const (
	testSecretID  = "test-secret-id"
	testSecretKey = "test-secret-key"
	testUin       = "100012345"
	testProject   = 3
)

// testEpoch is where the frozen clock starts: a whole second, so that
// times a few hundred milliseconds apart share timaker's second.
var testEpoch = time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)

// fixture is a contract test server and the platform of cluster "prod" on it.
type fixture struct {
	srv   *server.Server
	clock *clocktesting.FakeClock // nil when the server walks jobs on the real clock
	p     *Platform
	notes *bytes.Buffer
}

// newFixture serves a contract test server on a frozen clock: a job
// stays in each status for a second of it, and moves only when the test
// moves the clock.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	clk := clocktesting.NewFakeClock(testEpoch)
	return startFixture(t, clk, server.Options{Now: clk.Now})
}

// newLiveFixture serves a contract test server on the real clock whose jobs
// stay step in each status (trainFor steps in Training), and polls fast.
func newLiveFixture(t *testing.T, step time.Duration, trainFor int) *fixture {
	t.Helper()
	return startFixture(t, nil, server.Options{Step: step, TrainFor: trainFor})
}

func startFixture(t *testing.T, clk *clocktesting.FakeClock, opts server.Options) *fixture {
	t.Helper()
	opts.Credentials = map[string]string{testSecretID: testSecretKey}
	srv := server.New(opts)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	now := time.Now
	if clk != nil {
		now = clk.Now
	}
	notes := &bytes.Buffer{}
	p := &Platform{
		Cluster: config.Cluster{Name: "prod", Type: "timaker", Addr: ts.URL, ProjectID: testProject, Uin: testUin},
		Client: &timaker.Client{
			Addr:        ts.URL,
			Credentials: timaker.Credentials{SecretID: testSecretID, SecretKey: testSecretKey},
			Now:         now,
			Timeout:     5 * time.Second,
		},
		Index:           &Index{Path: filepath.Join(t.TempDir(), "state", "prod.json")},
		Kinds:           registry.Default(),
		Notes:           notes,
		Now:             now,
		PollInterval:    2 * time.Millisecond,
		MaxPollInterval: 8 * time.Millisecond,
	}
	return &fixture{srv: srv, clock: clk, p: p, notes: notes}
}

// create creates a job on the server directly (not through Submit) and
// returns its id; a command with the word "fail" ends Failed.
func (f *fixture) create(t *testing.T, name, command string) string {
	t.Helper()
	id, _, err := f.p.Client.CreateTrainingJob(context.Background(), &timaker.CreateTrainingJobRequest{
		Uin: testUin, TiProjectId: testProject, TrainingJobName: name, TrainingJobSource: JobSource,
		ResourceConfig:         timaker.ResourceConfig{Memory: 1024, CpuNum: 4000, GpuNum: 100, GpuType: "V100", InstanceCount: 2},
		AlgorithmSpecification: timaker.AlgorithmSpecification{EntryPoint: command, TrainingImageName: "registry.example.com/train:1"},
		RestartPolicy:          timaker.RestartPolicy{PolicyName: "AutoRestart"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// record creates a job on the server and records it in the index.
func (f *fixture) record(t *testing.T, r Record) Record {
	t.Helper()
	if r.ID == "" {
		r.ID = f.create(t, r.Name, "python train.py")
	}
	if r.Submitted.IsZero() {
		r.Submitted = f.p.now()
	}
	if err := f.p.Index.Add(r); err != nil {
		t.Fatal(err)
	}
	return r
}

// requests counts the requests of an action the server received.
func (f *fixture) requests(action string) int {
	n := 0
	for _, r := range f.srv.Requests() {
		if r.Action == action {
			n++
		}
	}
	return n
}

func names(jobs []*platform.Job) []string {
	out := make([]string, len(jobs))
	for i, j := range jobs {
		out[i] = j.Item.Name
	}
	return out
}

func TestStateOfEveryDocumentedStatus(t *testing.T) {
	// docs/output.md, "Jobs on a timaker cluster".
	tests := []struct {
		status string
		want   jobmodel.State
	}{
		{"Completed", jobmodel.Succeeded},
		{"Failed", jobmodel.Failed},
		{"Evicted", jobmodel.Failed},
		{"JobReceived", jobmodel.Pending},
		{"PrepareInstance", jobmodel.Pending},
		{"InstanceReady", jobmodel.Pending},
		{"PreResume", jobmodel.Pending},
		{"Resuming", jobmodel.Pending},
		{"Training", jobmodel.Running},
		{"Suspending", jobmodel.Running},
		{"PreStopped", jobmodel.Stopping},
		{"Stopping", jobmodel.Stopping},
		{"Suspended", jobmodel.Stopping},
		{"PreSuspend", jobmodel.Stopping},
		{"Stopped", jobmodel.Stopped},
		{"", jobmodel.Unknown},
		{"training", jobmodel.Unknown},
		{"Deleted", jobmodel.Unknown},
		{"NotFound", jobmodel.Unknown},
		{"Unreadable", jobmodel.Unknown},
	}
	for _, tt := range tests {
		if got := State(tt.status); got != tt.want {
			t.Errorf("State(%q) = %s, want %s", tt.status, got, tt.want)
		}
		st := Status(&timaker.TrainingJob{TrainingJobStatus: tt.status})
		if st.State != tt.want || st.Reason != tt.status || st.Message != "" {
			t.Errorf("Status of %q = %+v, want state %s, the status as reason, no message", tt.status, st, tt.want)
		}
	}
}

func TestStatusMessageIsFailureCodeAndReason(t *testing.T) {
	tests := []struct{ code, reason, want string }{
		{"ExitCode1", "the training command exited with 1", "ExitCode1: the training command exited with 1"},
		{"ExitCode1", "", "ExitCode1"},
		{"", "out of memory", "out of memory"},
		{"", "", ""},
	}
	for _, tt := range tests {
		st := Status(&timaker.TrainingJob{TrainingJobStatus: "Failed", FailureCode: tt.code, FailureReason: tt.reason})
		if st.Message != tt.want || st.State != jobmodel.Failed || st.Reason != "Failed" {
			t.Errorf("code %q reason %q: status %+v, want message %q", tt.code, tt.reason, st, tt.want)
		}
	}
}

func TestListFilters(t *testing.T) {
	f := newFixture(t)
	reg := registry.Default()
	tf, _ := reg.Lookup("tf")
	pytorch, _ := reg.Lookup("pytorch")
	f.record(t, Record{Name: "mine-tf", Kind: "tf", User: testUin, Experiment: "lr", Labels: map[string]string{"team": "vision"}})
	f.clock.Step(time.Second)
	f.record(t, Record{Name: "bob-pytorch", Kind: "pytorch", User: "200", Experiment: "lr", Labels: map[string]string{"team": "nlp"}})
	f.clock.Step(time.Second)
	f.record(t, Record{Name: "adopted", Adopted: true})
	// The first two train now (3 to 5 steps of a second after their
	// creation), the last has its instance ready (2 steps): Pending.
	f.clock.Step(2 * time.Second)

	tests := []struct {
		name string
		opts platform.ListOptions
		want string
	}{
		{"everything, newest first", platform.ListOptions{}, "adopted bob-pytorch mine-tf"},
		{"status", platform.ListOptions{States: []jobmodel.State{jobmodel.Running}}, "bob-pytorch mine-tf"},
		{"status pending", platform.ListOptions{States: []jobmodel.State{jobmodel.Pending, jobmodel.Failed}}, "adopted"},
		{"user", platform.ListOptions{User: "200"}, "bob-pytorch"},
		{"mine", platform.ListOptions{Mine: true}, "mine-tf"},
		{"mine wins over user", platform.ListOptions{Mine: true, User: "200"}, "mine-tf"},
		{"experiment", platform.ListOptions{Experiment: "lr"}, "bob-pytorch mine-tf"},
		{"another experiment", platform.ListOptions{Experiment: "other"}, ""},
		{"selector", platform.ListOptions{Selector: "team=vision"}, "mine-tf"},
		{"selector not", platform.ListOptions{Selector: "team!=vision"}, "adopted bob-pytorch"},
		{"selector exists", platform.ListOptions{Selector: "team"}, "bob-pytorch mine-tf"},
		{"kinds", platform.ListOptions{Kinds: []kinds.Kind{pytorch}}, "bob-pytorch"},
		{"two kinds", platform.ListOptions{Kinds: []kinds.Kind{tf, pytorch}}, "bob-pytorch mine-tf"},
		{"managed only skips adopted", platform.ListOptions{ManagedOnly: true}, "bob-pytorch mine-tf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jobs, err := f.p.List(context.Background(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(names(jobs), " "); got != tt.want {
				t.Errorf("listed %q, want %q", got, tt.want)
			}
		})
	}
	if f.notes.Len() != 0 {
		t.Errorf("notes: %q", f.notes)
	}
	if _, err := f.p.List(context.Background(), platform.ListOptions{Selector: "team in (vision"}); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), `-l "team in (vision"`) {
		t.Errorf("a bad selector: %v (exit %d), want exit 2 naming it", err, exit.Code(err))
	}
}

func TestListItems(t *testing.T) {
	f := newFixture(t)
	f.record(t, Record{Name: "mnist", Kind: "tf", User: testUin, Instances: 2, GPUs: 2, Labels: map[string]string{"team": "vision"}})
	f.clock.Step(4 * time.Second)
	jobs, err := f.p.List(context.Background(), platform.ListOptions{})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %v, error %v", jobs, err)
	}
	it := jobs[0].Item
	if it.KindName != "tf" || it.ObjectAPIVersion != "timaker/2020-10-12" || it.ObjectKind != "TrainingJob" || it.Namespace != "" {
		t.Errorf("item kinds %q %q %q, namespace %q", it.KindName, it.ObjectAPIVersion, it.ObjectKind, it.Namespace)
	}
	if it.Status.State != jobmodel.Running || it.Status.Reason != "Training" || it.Workers.Ready != 2 || it.Workers.Total != 2 || it.GPUs != 2 {
		t.Errorf("status %+v, workers %+v, gpus %v", it.Status, it.Workers, it.GPUs)
	}
	if !it.Created.Equal(testEpoch) || it.Started == nil || !it.Started.Equal(testEpoch) || it.DurationSeconds != 4 || it.ManagedBy != jobmodel.ManagedByValue {
		t.Errorf("created %v started %v duration %ds managed by %q", it.Created, it.Started, it.DurationSeconds, it.ManagedBy)
	}
	if it.User != testUin || it.Labels["team"] != "vision" {
		t.Errorf("user %q labels %v", it.User, it.Labels)
	}
	if got := f.p.JobArgs(jobs[0]); got != "mnist --cluster prod" {
		t.Errorf("JobArgs %q", got)
	}
}

func TestListJobTimakerNoLongerKnowsIsUnknownWithoutWarning(t *testing.T) {
	f := newFixture(t)
	f.record(t, Record{Name: "known"})
	f.record(t, Record{ID: "train-999", Name: "forgotten"})
	jobs, err := f.p.List(context.Background(), platform.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("jobs %v", names(jobs))
	}
	for _, j := range jobs {
		if j.Item.Name != "forgotten" {
			continue
		}
		if j.Item.Status.State != jobmodel.Unknown || j.Item.Status.Reason != "NotFound" {
			t.Errorf("a job timaker does not know: status %+v, want Unknown (NotFound)", j.Item.Status)
		}
	}
	if f.notes.Len() != 0 {
		t.Errorf("notes %q, want none", f.notes)
	}
}

func TestListUnreadableJobIsAWarning(t *testing.T) {
	f := newFixture(t)
	f.record(t, Record{Name: "one"})
	f.record(t, Record{Name: "two"})
	f.srv.Inject(timaker.ActionDescribeTrainingJob, server.Fault{Count: 1, Error: &server.APIErrorBody{Code: "FailedOperation", Message: "the database is away"}})
	jobs, err := f.p.List(context.Background(), platform.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var unreadable []string
	for _, j := range jobs {
		if j.Item.Status.Reason == "Unreadable" {
			if j.Item.Status.State != jobmodel.Unknown {
				t.Errorf("%s: %+v", j.Item.Name, j.Item.Status)
			}
			unreadable = append(unreadable, j.Item.Name)
		}
	}
	if len(jobs) != 2 || len(unreadable) != 1 {
		t.Fatalf("jobs %v, unreadable %v: want both listed, one Unknown (Unreadable)", names(jobs), unreadable)
	}
	want := fmt.Sprintf("Warning: cannot read job %s (train-", unreadable[0])
	if notes := f.notes.String(); !strings.HasPrefix(notes, want) || !strings.Contains(notes, "the database is away") || strings.Count(notes, "\n") != 1 {
		t.Errorf("notes %q, want one line %q...", notes, want)
	}

	// When no job can be read the list fails.
	f.notes.Reset()
	f.srv.Inject(timaker.ActionDescribeTrainingJob, server.Fault{Count: 2, Error: &server.APIErrorBody{Code: "FailedOperation", Message: "the database is away"}})
	if _, err := f.p.List(context.Background(), platform.ListOptions{}); err == nil || !strings.Contains(err.Error(), "cannot read any job of timaker cluster prod") {
		t.Errorf("every job unreadable: %v", err)
	}
}

// TestListNewestFirst: by timaker's creation time, and within one of its
// seconds by the index's submission time.
func TestListNewestFirst(t *testing.T) {
	f := newFixture(t)
	f.record(t, Record{Name: "first"})
	f.clock.Step(2 * time.Minute)
	f.record(t, Record{Name: "third"})
	f.clock.Step(100 * time.Millisecond)
	f.record(t, Record{Name: "fourth"}) // created in the same second as third
	// An index written out of order: the second job recorded last.
	f.record(t, Record{Name: "second", ID: f.create(t, "second", "python train.py"), Submitted: testEpoch.Add(time.Minute)})
	jobs, err := f.p.List(context.Background(), platform.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(jobs), " "); got != "fourth third second first" {
		t.Errorf("order %q", got)
	}
}

func TestListEmptyIndex(t *testing.T) {
	f := newFixture(t)
	jobs, err := f.p.List(context.Background(), platform.ListOptions{})
	if err != nil || len(jobs) != 0 {
		t.Errorf("jobs %v, error %v", names(jobs), err)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("%d requests for an empty index", n)
	}
}

func TestFind(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	mnist := f.record(t, Record{Name: "mnist", Kind: "tf"})
	resnet := f.record(t, Record{Name: "resnet", Kind: "pytorch"})
	tf, _ := f.p.Kinds.Lookup("tf")
	pytorch, _ := f.p.Kinds.Lookup("pytorch")

	for _, ref := range []kinds.Ref{{Name: "mnist"}, {Name: mnist.ID}, {Kind: tf, Name: "mnist"}} {
		job, err := f.p.Find(ctx, ref)
		if err != nil {
			t.Errorf("Find(%v): %v", ref, err)
			continue
		}
		if h := job.Handle.(*handle); job.Item.Name != "mnist" || h.record.ID != mnist.ID || job.Item.Status.Reason != "JobReceived" {
			t.Errorf("Find(%v): %s %s %+v", ref, job.Item.Name, h.record.ID, job.Item.Status)
		}
		if job.Raw["cluster"] != "prod" || job.Raw["kind"] != "TrainingJob" || job.Raw["description"] == nil {
			t.Errorf("Find(%v): raw %v", ref, job.Raw)
		}
	}
	if _, err := f.p.Find(ctx, kinds.Ref{Kind: pytorch, Name: "mnist"}); exit.Code(err) != exit.NotFound {
		t.Errorf("mnist as a pytorch job: %v (exit %d), want exit 3", err, exit.Code(err))
	}

	// Two jobs of one name: the error names both ids.
	again := f.record(t, Record{Name: "resnet", Kind: "pytorch"})
	_, err := f.p.Find(ctx, kinds.Ref{Name: "resnet"})
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "2 jobs are named resnet in timaker cluster prod") ||
		!strings.Contains(err.Error(), resnet.ID+", "+again.ID) {
		t.Errorf("an ambiguous name: %v (exit %d)", err, exit.Code(err))
	}
	if job, err := f.p.Find(ctx, kinds.Ref{Name: again.ID}); err != nil || job.Handle.(*handle).record.ID != again.ID {
		t.Errorf("the second resnet by its id: %v", err)
	}
	if f.notes.Len() != 0 {
		t.Errorf("notes %q", f.notes)
	}
}

func TestFindAdoptsAJobSubmittedElsewhere(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.create(t, "elsewhere", "python train.py")
	job, err := f.p.Find(ctx, kinds.Ref{Name: id})
	if err != nil {
		t.Fatal(err)
	}
	if job.Item.Name != id || job.Item.KindName != "" || job.Item.ManagedBy != "" {
		t.Errorf("adopted job: name %q kind %q managed by %q", job.Item.Name, job.Item.KindName, job.Item.ManagedBy)
	}
	want := "Adopted timaker job " + id + " into the local job list of timaker cluster prod.\n"
	if f.notes.String() != want {
		t.Errorf("notes %q, want %q", f.notes, want)
	}
	records, err := f.p.Index.Records()
	if err != nil || len(records) != 1 || records[0].ID != id || !records[0].Adopted || !records[0].Submitted.Equal(testEpoch) {
		t.Fatalf("index %+v, error %v", records, err)
	}
	// Found again by its id, now from the index: no second adoption.
	f.notes.Reset()
	if _, err := f.p.Find(ctx, kinds.Ref{Name: id}); err != nil || f.notes.Len() != 0 {
		t.Errorf("found again: %v, notes %q", err, f.notes)
	}
}

func TestFindUnknownJob(t *testing.T) {
	f := newFixture(t)
	f.record(t, Record{Name: "mnist"})
	_, err := f.p.Find(context.Background(), kinds.Ref{Name: "ghost"})
	if exit.Code(err) != exit.NotFound || err.Error() != "job ghost not found in timaker cluster prod" || !strings.Contains(exit.Hint(err), "timaker id") {
		t.Errorf("an unknown job: %v (exit %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}
	if records, _ := f.p.Index.Records(); len(records) != 1 {
		t.Errorf("index %+v", records)
	}
	// A recorded job timaker no longer knows: exit 3, and how to forget it.
	f.record(t, Record{ID: "train-404", Name: "gone"})
	_, err = f.p.Find(context.Background(), kinds.Ref{Name: "gone"})
	if exit.Code(err) != exit.NotFound || !strings.Contains(err.Error(), "job gone (train-404) not found") || !strings.Contains(exit.Hint(err), "easyai delete train-404 --cluster prod") {
		t.Errorf("a job timaker forgot: %v (exit %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}
}

func TestWait(t *testing.T) {
	tests := []struct {
		name    string
		command string
		stop    bool
		// trainFor is how many steps the job trains: long enough for a
		// wait for running to see it train, however slow the machine.
		trainFor int
		for_     waiter.Condition
		code     int
		state    jobmodel.State
		message  string
	}{
		{name: "succeeded", command: "python train.py", for_: waiter.Finished, code: exit.OK, state: jobmodel.Succeeded},
		{name: "succeeded for succeeded", command: "python train.py", for_: waiter.Succeeded, code: exit.OK, state: jobmodel.Succeeded},
		{name: "running", command: "python train.py", trainFor: 10000, for_: waiter.Running, code: exit.OK, state: jobmodel.Running},
		{name: "failed", command: "python train.py --fail", for_: waiter.Finished, code: exit.JobFailed, state: jobmodel.Failed,
			message: "failed (Failed: ExitCode1: the training command exited with 1)"},
		{name: "stopped", command: "python train.py", stop: true, for_: waiter.Finished, code: exit.JobFailed, state: jobmodel.Stopped,
			message: "was stopped (Stopped)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newLiveFixture(t, 5*time.Millisecond, tt.trainFor)
			ctx := context.Background()
			r := f.record(t, Record{Name: "mnist", Kind: "tf", ID: f.create(t, "mnist", tt.command)})
			if tt.stop {
				if err := f.p.Client.StopTrainingJob(ctx, f.p.jobRequest(r.ID)); err != nil {
					t.Fatal(err)
				}
			}
			job, err := f.p.Find(ctx, kinds.Ref{Name: "mnist"})
			if err != nil {
				t.Fatal(err)
			}
			waited, err := f.p.Wait(ctx, job, platform.WaitRequest{For: tt.for_, Timeout: 30 * time.Second, Document: true})
			if exit.Code(err) != tt.code {
				t.Fatalf("exit %d (%v), want %d", exit.Code(err), err, tt.code)
			}
			if tt.message != "" && (err == nil || !strings.Contains(err.Error(), "tf/mnist "+tt.message)) {
				t.Errorf("error %v, want %q", err, tt.message)
			}
			if waited == nil || !strings.HasPrefix(waited.Line, "tf/mnist "+string(tt.state)+" after ") {
				t.Fatalf("waited %+v", waited)
			}
			if waited.Document == nil || waited.Document.Status.State != tt.state || waited.Document.Image != "" || len(waited.Document.Replicas) != 0 {
				t.Errorf("document %+v", waited.Document)
			}
		})
	}
}

func TestWaitForSuspendedIsAUsageError(t *testing.T) {
	f := newFixture(t)
	f.record(t, Record{Name: "mnist"})
	job, err := f.p.Find(context.Background(), kinds.Ref{Name: "mnist"})
	if err != nil {
		t.Fatal(err)
	}
	before := len(f.srv.Requests())
	_, err = f.p.Wait(context.Background(), job, platform.WaitRequest{For: waiter.Suspended})
	if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--for suspended") {
		t.Errorf("--for suspended: %v (exit %d)", err, exit.Code(err))
	}
	if n := len(f.srv.Requests()); n != before {
		t.Errorf("%d requests made", n-before)
	}
}

func TestWaitTimesOut(t *testing.T) {
	f := newFixture(t) // the frozen clock: the job stays JobReceived
	f.record(t, Record{Name: "mnist", Kind: "tf"})
	job, err := f.p.Find(context.Background(), kinds.Ref{Name: "mnist"})
	if err != nil {
		t.Fatal(err)
	}
	waited, err := f.p.Wait(context.Background(), job, platform.WaitRequest{For: waiter.Finished, Timeout: 50 * time.Millisecond, Document: true})
	if exit.Code(err) != exit.Timeout || !strings.Contains(err.Error(), "tf/mnist: still Pending after 50ms (--timeout)") {
		t.Errorf("error %v (exit %d), want exit 5", err, exit.Code(err))
	}
	if waited == nil || waited.Line != "tf/mnist Pending after 0s" || waited.Document == nil || waited.Document.Status.State != jobmodel.Pending {
		t.Errorf("waited %+v", waited)
	}
	if n := f.requests(timaker.ActionDescribeTrainingJob); n < 2 {
		t.Errorf("%d describes: the wait did not poll", n)
	}
}

func TestWaitEndsWhenTheJobIsGone(t *testing.T) {
	f := newFixture(t)
	r := f.record(t, Record{Name: "mnist", Kind: "tf"})
	job, err := f.p.Find(context.Background(), kinds.Ref{Name: "mnist"})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Inject(timaker.ActionDescribeTrainingJob, server.Fault{Count: 1, Error: &server.APIErrorBody{Code: "ResourceNotFound.TrainingJob", Message: "gone"}})
	_, err = f.p.Wait(context.Background(), job, platform.WaitRequest{For: waiter.Finished, Timeout: 10 * time.Second})
	if exit.Code(err) != exit.NotFound || !strings.Contains(err.Error(), r.ID) {
		t.Errorf("error %v (exit %d), want exit 3", err, exit.Code(err))
	}
}

func TestDeleteStopsARunningJobAndForgetsIt(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	r := f.record(t, Record{Name: "mnist", Kind: "tf"})
	keep := f.record(t, Record{Name: "other", Kind: "tf"})
	f.clock.Step(4 * time.Second) // Training
	job, err := f.p.Find(ctx, kinds.Ref{Name: "mnist"})
	if err != nil || job.Item.Status.State != jobmodel.Running {
		t.Fatalf("job %+v, error %v", job, err)
	}
	if err := f.p.Delete(ctx, job); err != nil {
		t.Fatal(err)
	}
	var stops []string
	for _, req := range f.srv.Requests() {
		if req.Action == timaker.ActionStopTrainingJob {
			stops = append(stops, fmt.Sprint(req.Body["TrainingJobId"]))
		}
	}
	if len(stops) != 1 || stops[0] != r.ID {
		t.Errorf("stops sent: %v, want one of %s", stops, r.ID)
	}
	records, err := f.p.Index.Records()
	if err != nil || len(records) != 1 || records[0].ID != keep.ID {
		t.Errorf("index %+v, error %v: want only %s", records, err, keep.ID)
	}
	// timaker keeps its record: the job stops, found by its id.
	f.clock.Step(5 * time.Second)
	again, err := f.p.Find(ctx, kinds.Ref{Name: r.ID})
	if err != nil || again.Item.Status.State != jobmodel.Stopped {
		t.Errorf("found by id after delete: %+v, %v", again, err)
	}
}

func TestDeleteOfAFinishedJobOnlyForgetsIt(t *testing.T) {
	for _, command := range []string{"python train.py", "python train.py --fail"} {
		f := newFixture(t)
		ctx := context.Background()
		f.record(t, Record{Name: "mnist", Kind: "tf", ID: f.create(t, "mnist", command)})
		f.clock.Step(time.Minute)
		job, err := f.p.Find(ctx, kinds.Ref{Name: "mnist"})
		if err != nil || !job.Item.Status.State.Final() {
			t.Fatalf("%s: job %+v, error %v", command, job, err)
		}
		if err := f.p.Delete(ctx, job); err != nil {
			t.Fatalf("%s: %v", command, err)
		}
		if n := f.requests(timaker.ActionStopTrainingJob); n != 0 {
			t.Errorf("%s: %d stops sent to a finished job", command, n)
		}
		if records, err := f.p.Index.Records(); err != nil || len(records) != 0 {
			t.Errorf("%s: index %+v, error %v", command, records, err)
		}
	}
}

func TestDeleteOfAJobTimakerForgotForgetsIt(t *testing.T) {
	f := newFixture(t)
	f.record(t, Record{ID: "train-404", Name: "gone"})
	jobs, err := f.p.List(context.Background(), platform.ListOptions{})
	if err != nil || len(jobs) != 1 {
		t.Fatalf("jobs %v, error %v", jobs, err)
	}
	if err := f.p.Delete(context.Background(), jobs[0]); err != nil {
		t.Fatal(err)
	}
	if records, _ := f.p.Index.Records(); len(records) != 0 {
		t.Errorf("index %+v", records)
	}
}

func TestResources(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	const mib = 1 << 20
	res, err := f.p.Resources(ctx, platform.ResourceRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.What != "POOL" || len(res.Rows) != 2 || res.Rows[0].Name != "train" || res.Rows[1].Name != "elastic" {
		t.Fatalf("resources %+v", res)
	}
	train := res.Rows[0]
	want := platform.ResourceRow{Name: "train", GPUType: "V100", Pods: -1,
		GPUs:   platform.Amount{Capacity: 8},
		CPU:    platform.Amount{Capacity: 64},
		Memory: platform.Amount{Capacity: 262144 * mib},
	}
	if !reflect.DeepEqual(train, want) {
		t.Errorf("train pool %+v, want %+v", train, want)
	}
	if elastic := res.Rows[1]; !reflect.DeepEqual(elastic, platform.ResourceRow{Name: "elastic", Pods: -1}) {
		t.Errorf("elastic pool %+v, want empty", elastic)
	}
	want.Name, want.GPUType = "total", ""
	if !reflect.DeepEqual(res.Total, want) {
		t.Errorf("total %+v, want %+v", res.Total, want)
	}
	for _, req := range f.srv.Requests() {
		if req.Body["AppGroupId"] != float64(testProject) || req.Body["Uin"] != testUin {
			t.Errorf("%s: body %v, want the project as app group", req.Action, req.Body)
		}
	}

	// A job of 2 instances of 4 cores, 1024 MB and a V100 each.
	f.create(t, "mnist", "python train.py")
	res, err = f.p.Resources(ctx, platform.ResourceRequest{})
	if err != nil {
		t.Fatal(err)
	}
	train = res.Rows[0]
	if train.GPUs != (platform.Amount{Capacity: 8, Allocated: 2}) || train.CPU != (platform.Amount{Capacity: 64, Allocated: 8}) ||
		train.Memory != (platform.Amount{Capacity: 262144 * mib, Allocated: 2048 * mib}) || train.GPUs.Free() != 6 {
		t.Errorf("train pool with a job: %+v", train)
	}
	if res.Total.GPUs != train.GPUs || res.Total.CPU != train.CPU || res.Total.Memory != train.Memory {
		t.Errorf("total %+v, want the train pool's amounts", res.Total)
	}

	// An app group of its own.
	f.p.Cluster.AppGroupID = 7
	before := len(f.srv.Requests())
	if _, err := f.p.Resources(ctx, platform.ResourceRequest{}); err != nil {
		t.Fatal(err)
	}
	for _, req := range f.srv.Requests()[before:] {
		if req.Body["AppGroupId"] != float64(7) {
			t.Errorf("%s: body %v, want app group 7", req.Action, req.Body)
		}
	}
}

func TestResourcesOfSeveralGPUTypes(t *testing.T) {
	clk := clocktesting.NewFakeClock(testEpoch)
	f := startFixture(t, clk, server.Options{Now: clk.Now,
		Total:        server.Amounts{Cpu: 8000, Memory: 1024, T4: 400, A100: 150},
		ElasticTotal: server.Amounts{Cpu: 2500, Memory: 512, VGpu: 50},
	})
	res, err := f.p.Resources(context.Background(), platform.ResourceRequest{})
	if err != nil {
		t.Fatal(err)
	}
	train, elastic := res.Rows[0], res.Rows[1]
	if train.GPUType != "A100,T4" || train.GPUs.Capacity != 5.5 || train.CPU.Capacity != 8 {
		t.Errorf("train %+v", train)
	}
	if elastic.GPUType != "vGPU" || elastic.GPUs.Capacity != 0.5 || elastic.CPU.Capacity != 2.5 || elastic.Memory.Capacity != 512<<20 {
		t.Errorf("elastic %+v", elastic)
	}
	if res.Total.GPUs.Capacity != 6 || res.Total.CPU.Capacity != 10.5 || res.Total.Memory.Capacity != 1536<<20 || res.Total.Pods != -1 {
		t.Errorf("total %+v", res.Total)
	}
}

func TestLogsIsUnsupported(t *testing.T) {
	f := newFixture(t)
	err := f.p.Logs(context.Background(), &platform.Job{}, platform.LogRequest{})
	if err == nil || !strings.Contains(err.Error(), "timaker cluster prod has no logs API") || !strings.Contains(exit.Hint(err), "--fs") {
		t.Errorf("logs: %v (hint %q)", err, exit.Hint(err))
	}
}
