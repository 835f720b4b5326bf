package timaker

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/test/timakerd/server"
)

// These tests run the client against the project's contract test server
// (test/timakerd), which checks signatures, headers and exact JSON keys as
// the public adapter code shows them: a check of the contract, not of
// timaker itself.

func newContractServer(t *testing.T) (*server.Server, *Client, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(vectorNow())
	srv := server.New(server.Options{
		Host:        "127.0.0.1",
		Credentials: map[string]string{vectorID: vectorKey},
		Now:         clk.Now,
	})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	c := testClient(ts.URL)
	c.Now = clk.Now
	return srv, c, clk
}

func mnistJob() *CreateTrainingJobRequest {
	return &CreateTrainingJobRequest{
		Uin:               "100001",
		TiProjectId:       1,
		TrainingJobName:   "mnist",
		TrainingJobSource: "easyai",
		ResourceConfig:    ResourceConfig{Memory: 32768, CpuNum: 8000, GpuNum: 100, GpuType: "V100", InstanceCount: 2},
		EnvConfig:         []Env{{Name: "EPOCHS", Value: "3"}},
		AlgorithmSpecification: AlgorithmSpecification{
			EntryPoint:        "python train.py",
			TrainingImageName: "registry.example.com/mnist:1",
			AlgorithmSource: &AlgorithmSource{FileSystemDataSource: &FileSystemDataSource{
				FileSystemType: "ceph", DirectoryPath: "/code", ReadOnly: true, FileSystemEndpoint: "10.0.0.1:6789", User: "u", SecretKey: "ceph-key",
			}},
		},
		RestartPolicy: RestartPolicy{PolicyName: "AutoRestart"},
	}
}

func TestAJobThroughTheContractServer(t *testing.T) {
	srv, c, clk := newContractServer(t)
	ctx := context.Background()
	id, _, err := c.CreateTrainingJob(ctx, mnistJob())
	if err != nil {
		t.Fatal(err)
	}

	// What the server received: the units and fields as sent.
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	got := reqs[0]
	if got.Action != ActionCreateTrainingJob || got.Service != ServiceTimaker || got.Version != VersionTimaker ||
		got.Header.Get("Host") != "127.0.0.1" || got.Header.Get("Authorization") != "" {
		t.Errorf("request %s %s %s, headers %v", got.Action, got.Service, got.Version, got.Header)
	}
	rc := got.Body["ResourceConfig"].(map[string]any)
	fs := got.Body["AlgorithmSpecification"].(map[string]any)["AlgorithmSource"].(map[string]any)["FileSystemDataSource"].(map[string]any)
	if got.Body["RequestId"] != "req-1" || got.Body["TiProjectId"] != 1.0 || rc["CpuNum"] != 8000.0 || rc["GpuType"] != "V100" ||
		rc["RDMAConfig"].(map[string]any)["Enable"] != false || fs["SecretKey"] != "ceph-key" || got.Body["Elastic"] != false {
		t.Errorf("body %v", got.Body)
	}

	job, err := c.DescribeTrainingJob(ctx, &JobRequest{Uin: "100001", TiProjectId: 1, TrainingJobId: id})
	if err != nil {
		t.Fatal(err)
	}
	created, err := ParseTime(job.TrainingCreateTime)
	if err != nil || created == nil || !created.Equal(vectorNow()) || job.TrainingJobStatus != "JobReceived" || job.TrainingEndTime != "" {
		t.Errorf("%+v (created %v, %v)", job, created, err)
	}

	total, available, err := c.DescribeResource(ctx, &ResourceRequest{Uin: "100001", AppGroupId: 3})
	if err != nil {
		t.Fatal(err)
	}
	if total.Train.Cpu != 64000 || available.Train.Cpu != 64000-16000 || available.Train.V100 != 800-200 || available.Train.Memory != 262144-65536 {
		t.Errorf("total %+v, available %+v", total, available)
	}

	clk.Step(3 * time.Second)
	if job, _ = c.DescribeTrainingJob(ctx, &JobRequest{Uin: "100001", TiProjectId: 1, TrainingJobId: id}); job.TrainingJobStatus != "Training" {
		t.Errorf("status %s, want Training", job.TrainingJobStatus)
	}
	if err := c.StopTrainingJob(ctx, &JobRequest{Uin: "100001", TiProjectId: 1, TrainingJobId: id}); err != nil {
		t.Fatal(err)
	}
	clk.Step(2 * time.Second)
	job, err = c.DescribeTrainingJob(ctx, &JobRequest{Uin: "100001", TiProjectId: 1, TrainingJobId: id})
	if err != nil || job.TrainingJobStatus != "Stopped" {
		t.Fatalf("%+v, %v", job, err)
	}
	if end, err := ParseTime(job.TrainingEndTime); err != nil || end == nil || !end.Equal(vectorNow().Add(5*time.Second)) {
		t.Errorf("end %v, %v", end, err)
	}
}

func TestContractServerErrors(t *testing.T) {
	ctx := context.Background()
	_, c, _ := newContractServer(t)

	_, err := c.DescribeTrainingJob(ctx, &JobRequest{Uin: "100001", TiProjectId: 1, TrainingJobId: "train-404"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "ResourceNotFound.TrainingJob" || exit.Code(err) != exit.NotFound {
		t.Errorf("an unknown job: %v (exit %d)", err, exit.Code(err))
	}

	noImage := mnistJob()
	noImage.AlgorithmSpecification.TrainingImageName = ""
	if _, _, err := c.CreateTrainingJob(ctx, noImage); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "AlgorithmSpecification.TrainingImageName") {
		t.Errorf("no image: %v (exit %d)", err, exit.Code(err))
	}

	wrongKey := *c
	wrongKey.Credentials.SecretKey = "other"
	_, err = wrongKey.DescribeTrainingJob(ctx, &JobRequest{Uin: "1", TiProjectId: 1, TrainingJobId: "x"})
	if !errors.As(err, &apiErr) || apiErr.Code != "AuthFailure.SignatureFailure" || exit.Code(err) != exit.Error ||
		!strings.Contains(exit.Hint(err), "clock reads 2023-11-14T22:13:20Z") {
		t.Errorf("a wrong key: %v (exit %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}

	late := *c
	late.Now = func() time.Time { return vectorNow().Add(-2 * time.Hour) }
	_, err = late.DescribeTrainingJob(ctx, &JobRequest{Uin: "1", TiProjectId: 1, TrainingJobId: "x"})
	if !errors.As(err, &apiErr) || apiErr.Code != "AuthFailure.SignatureExpire" || !strings.Contains(exit.Hint(err), "clock reads 2023-11-14T20:13:20Z") {
		t.Errorf("a clock two hours late: %v (hint %q)", err, exit.Hint(err))
	}

	stranger := *c
	stranger.Credentials.SecretID = "someone"
	_, err = stranger.DescribeTrainingJob(ctx, &JobRequest{Uin: "1", TiProjectId: 1, TrainingJobId: "x"})
	if !errors.As(err, &apiErr) || apiErr.Code != "AuthFailure.SecretIdNotFound" || !strings.Contains(exit.Hint(err), "EASYAI_TIMAKER_SECRET_ID") {
		t.Errorf("an unknown id: %v (hint %q)", err, exit.Hint(err))
	}
}

func TestContractServerFaults(t *testing.T) {
	ctx := context.Background()
	srv, c, _ := newContractServer(t)
	id, _, err := c.CreateTrainingJob(ctx, mnistJob())
	if err != nil {
		t.Fatal(err)
	}
	count := func(action string) int {
		n := 0
		for _, r := range srv.Requests() {
			if r.Action == action {
				n++
			}
		}
		return n
	}

	// A describe outlives two gateway failures and a service error.
	srv.Inject(ActionDescribeTrainingJob, server.Fault{Count: 2, Status: http.StatusServiceUnavailable})
	srv.Inject(ActionDescribeTrainingJob, server.Fault{Count: 1, Error: &server.APIErrorBody{Code: "InternalError", Message: "busy"}})
	if _, err := c.DescribeTrainingJob(ctx, &JobRequest{Uin: "100001", TiProjectId: 1, TrainingJobId: id}); err != nil {
		t.Fatal(err)
	}
	if n := count(ActionDescribeTrainingJob); n != 4 {
		t.Errorf("%d describes, want 4", n)
	}

	// A create that gets no answer in time is sent once and reported as
	// possibly done.
	srv.Inject(ActionCreateTrainingJob, server.Fault{Count: 1, Delay: time.Second})
	c.Timeout = 100 * time.Millisecond
	req := mnistJob()
	req.RequestId = "create-once"
	_, _, err = c.CreateTrainingJob(ctx, req)
	var maybe *MaybeCreatedError
	if !errors.As(err, &maybe) || maybe.RequestID != "create-once" || !strings.Contains(err.Error(), "no answer within 100ms") {
		t.Errorf("a create without an answer: %v", err)
	}
	srv.Inject(ActionCreateTrainingJob, server.Fault{Count: 1, Status: http.StatusGatewayTimeout})
	if _, _, err = c.CreateTrainingJob(ctx, req); !errors.As(err, &maybe) {
		t.Errorf("a create answered 504: %v", err)
	}
	if n := count(ActionCreateTrainingJob); n != 3 {
		t.Errorf("%d creates, want 3: a create is never retried", n)
	}

	// A stop answered 503 is not retried either.
	srv.Inject(ActionStopTrainingJob, server.Fault{Count: 1, Status: http.StatusServiceUnavailable})
	if err := c.StopTrainingJob(ctx, &JobRequest{Uin: "100001", TiProjectId: 1, TrainingJobId: id}); err == nil || count(ActionStopTrainingJob) != 1 {
		t.Errorf("stop: %v after %d attempts", err, count(ActionStopTrainingJob))
	}
}

// The client's resource amounts and the server's have the same keys.
func TestResourceAmountsMatchTheContract(t *testing.T) {
	names := func(t reflect.Type) []string {
		var out []string
		for f := range t.Fields() {
			out = append(out, f.Name)
		}
		return out
	}
	if got, want := names(reflect.TypeFor[ResourceAmounts]()), names(reflect.TypeFor[server.Amounts]()); !reflect.DeepEqual(got, want) {
		t.Errorf("ResourceAmounts %v, the server's %v", got, want)
	}
}
