package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/easyai-dev/easyai/pkg/timaker/tisign"
)

// The test vector of the notes: these credentials, host and time sign
// to a known Authorization header.
const (
	vectorID   = "test-secret-id"
	vectorKey  = "test-secret-key"
	vectorHost = "127.0.0.1"
	vectorTS   = 1700000000
	vectorAuth = "TC3-HMAC-SHA256 Credential=test-secret-id/2023-11-14/timaker/tc3_request, SignedHeaders=content-type;host;x-tc-timestamp;, Signature=aa95d457741752cab7b5dc4dff01e5f7833ef512c863d99e86842c6b4d97ab93"
)

func newTestServer(t *testing.T) (*Server, *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(time.Unix(vectorTS, 0))
	return New(Options{
		Host:        vectorHost,
		Credentials: map[string]string{vectorID: vectorKey},
		Now:         clk.Now,
	}), clk
}

// call is one request to the server, signed unless auth is set.
type call struct {
	action string
	body   any

	service, version string // default: the action's
	host             string // the Host header; default vectorHost
	signHost         string // the host signed; default host
	ts               int64  // default: the clock's time
	id, key          string // default: the vector's
	signedHeaders    string // default: tisign.SignedHeaders
	contentType      string // default: application/json
	auth             string // a literal Authorization header
	rawBody          []byte // sent instead of body
}

func (c call) do(t *testing.T, s *Server, clk *clocktesting.FakeClock) (int, map[string]any) {
	t.Helper()
	if spec, ok := actions[c.action]; ok {
		c.service = cmp(c.service, spec.service)
		c.version = cmp(c.version, spec.version)
	}
	c.host = cmp(c.host, vectorHost)
	c.signHost = cmp(c.signHost, c.host)
	c.id = cmp(c.id, vectorID)
	c.key = cmp(c.key, vectorKey)
	c.signedHeaders = cmp(c.signedHeaders, tisign.SignedHeaders)
	c.contentType = cmp(c.contentType, "application/json")
	if c.ts == 0 {
		c.ts = clk.Now().Unix()
	}
	body := c.rawBody
	if body == nil {
		var err error
		if body, err = json.Marshal(c.body); err != nil {
			t.Fatal(err)
		}
	}
	req := httptest.NewRequest(http.MethodPost, "http://"+c.host+"/gateway", bytes.NewReader(body))
	req.Header.Set("Content-Type", c.contentType)
	req.Header.Set("X-TC-Action", c.action)
	req.Header.Set("X-TC-Service", c.service)
	req.Header.Set("X-TC-Version", c.version)
	req.Header.Set("X-TC-Timestamp", strconv.FormatInt(c.ts, 10))
	auth := c.auth
	if auth == "" {
		in := tisign.Input{Method: http.MethodPost, ContentType: c.contentType, Host: c.signHost, Service: c.service, Timestamp: c.ts}
		auth = fmt.Sprintf("%s Credential=%s/%s, SignedHeaders=%s, Signature=%s",
			tisign.Algorithm, c.id, in.Scope(), c.signedHeaders, tisign.Signature(in, c.key))
	}
	req.Header.Set("Authorization", auth)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return rec.Code, nil
	}
	var answer struct{ Response map[string]any }
	if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil || answer.Response == nil {
		t.Errorf("%s: the answer is not {\"Response\": {...}}: %q", c.action, rec.Body.String())
		return rec.Code, map[string]any{"Error": map[string]any{"Code": "(not an answer)"}}
	}
	if id, _ := answer.Response["RequestId"].(string); id == "" {
		t.Errorf("%s: the answer has no RequestId: %v", c.action, answer.Response)
	}
	return rec.Code, answer.Response
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// errorCode is the Response.Error.Code of an answer, "" on success.
func errorCode(resp map[string]any) string {
	e, _ := resp["Error"].(map[string]any)
	code, _ := e["Code"].(string)
	return code
}

func errorMessage(resp map[string]any) string {
	e, _ := resp["Error"].(map[string]any)
	msg, _ := e["Message"].(string)
	return msg
}

func createBody(entryPoint string) map[string]any {
	return map[string]any{
		"Uin":             "100001",
		"RequestId":       "req-1",
		"TiProjectId":     1,
		"TrainingJobName": "mnist",
		"ResourceConfig": map[string]any{
			"Memory": 32768, "CpuNum": 8000, "GpuNum": 100, "GpuType": "V100", "InstanceCount": 2,
			"RDMAConfig": map[string]any{"Enable": false},
		},
		"EnvConfig":              []any{map[string]any{"Name": "EPOCHS", "Value": "3"}},
		"AlgorithmSpecification": map[string]any{"EntryPoint": entryPoint, "TrainingImageName": "mnist:1"},
		"RestartPolicy":          map[string]any{"PolicyName": "AutoRestart"},
	}
}

func jobBody(id string) map[string]any {
	return map[string]any{"Uin": "100001", "RequestId": "req-2", "TiProjectId": 1, "TrainingJobId": id}
}

func mustCreate(t *testing.T, s *Server, clk *clocktesting.FakeClock, entryPoint string) string {
	t.Helper()
	_, resp := call{action: "v1/CreateTrainingJob", body: createBody(entryPoint)}.do(t, s, clk)
	id, _ := resp["TrainingJobId"].(string)
	if code := errorCode(resp); code != "" || !strings.HasPrefix(id, "train-") {
		t.Fatalf("create: %s %s, TrainingJobId %q", code, errorMessage(resp), id)
	}
	return id
}

func describe(t *testing.T, s *Server, clk *clocktesting.FakeClock, id string) map[string]any {
	t.Helper()
	_, resp := call{action: "v1/DescribeTrainingJob", body: jobBody(id)}.do(t, s, clk)
	if code := errorCode(resp); code != "" {
		t.Fatalf("describe %s: %s %s", id, code, errorMessage(resp))
	}
	return resp
}

// The notes' test vector is a request the server accepts: the header
// signed with the reference signer, sent as is.
func TestTestVectorIsAccepted(t *testing.T) {
	s, clk := newTestServer(t)
	id := mustCreate(t, s, clk, "python train.py")
	_, resp := call{action: "v1/DescribeTrainingJob", body: jobBody(id), auth: vectorAuth, ts: vectorTS}.do(t, s, clk)
	if code := errorCode(resp); code != "" {
		t.Fatalf("the test vector was refused: %s: %s", code, errorMessage(resp))
	}
	if resp["TrainingJobStatus"] != StatusJobReceived {
		t.Errorf("status %v, want %s", resp["TrainingJobStatus"], StatusJobReceived)
	}
}

func TestRefusedSignatures(t *testing.T) {
	describeAny := map[string]any{"Uin": "100001", "TiProjectId": 1, "TrainingJobId": "train-404"}
	for _, tc := range []struct {
		name string
		call call
		code string
	}{
		{"a wrong key", call{key: "other-key"}, "AuthFailure.SignatureFailure"},
		{"an unknown secret id", call{id: "someone-else"}, "AuthFailure.SecretIdNotFound"},
		{"another set of signed headers", call{signedHeaders: "content-type;host;"}, "AuthFailure.InvalidAuthorization"},
		{"signed headers without the trailing ;", call{signedHeaders: "content-type;host;x-tc-timestamp"}, "AuthFailure.InvalidAuthorization"},
		{"a changed host", call{host: "127.0.0.2"}, "AuthFailure.SignatureFailure"},
		{"a signature for another host", call{signHost: "127.0.0.2"}, "AuthFailure.SignatureFailure"},
		{"a timestamp 61 minutes old", call{ts: vectorTS - 61*60}, "AuthFailure.SignatureExpire"},
		{"a timestamp 61 minutes ahead", call{ts: vectorTS + 61*60}, "AuthFailure.SignatureExpire"},
		{"another algorithm", call{auth: strings.Replace(vectorAuth, "TC3-HMAC-SHA256", "HMAC-SHA1", 1)}, "AuthFailure.InvalidAuthorization"},
		{"no signature", call{auth: "TC3-HMAC-SHA256 Credential=test-secret-id/2023-11-14/timaker/tc3_request, SignedHeaders=content-type;host;x-tc-timestamp;"}, "AuthFailure.InvalidAuthorization"},
		{"the vector's header a second later", call{auth: vectorAuth, ts: vectorTS + 1}, "AuthFailure.SignatureFailure"},
		{"the vector's header for another service", call{auth: vectorAuth, ts: vectorTS, action: "ResourceServer/Resources/GetTotalAppGroupResources"}, "AuthFailure.InvalidAuthorization"},
		{"another content type", call{contentType: "text/plain"}, "InvalidParameter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clk := newTestServer(t)
			c := tc.call
			c.action = cmp(c.action, "v1/DescribeTrainingJob")
			c.body = describeAny
			status, resp := c.do(t, s, clk)
			if status != http.StatusOK {
				t.Fatalf("HTTP %d; TC3 answers errors with 200", status)
			}
			if code := errorCode(resp); code != tc.code {
				t.Errorf("code %q (%s), want %s", code, errorMessage(resp), tc.code)
			}
		})
	}
}

func TestTimestampsWithinAnHourAreAccepted(t *testing.T) {
	s, clk := newTestServer(t)
	for _, ts := range []int64{vectorTS - 59*60, vectorTS + 59*60, vectorTS - 60*60} {
		_, resp := call{action: "v1/DescribeTrainingJob", body: jobBody("train-404"), ts: ts}.do(t, s, clk)
		if code := errorCode(resp); code != "ResourceNotFound.TrainingJob" {
			t.Errorf("signed at %+ds: %s (%s), want the signature accepted and ResourceNotFound.TrainingJob", ts-vectorTS, code, errorMessage(resp))
		}
	}
}

// walk describes the job at each step and returns the statuses seen.
func walk(t *testing.T, s *Server, clk *clocktesting.FakeClock, id string, steps int) ([]string, map[string]any) {
	t.Helper()
	var seen []string
	var last map[string]any
	for range steps {
		last = describe(t, s, clk, id)
		seen = append(seen, last["TrainingJobStatus"].(string))
		clk.Step(time.Second)
	}
	return seen, last
}

func TestAJobWalksToCompleted(t *testing.T) {
	s, clk := newTestServer(t)
	id := mustCreate(t, s, clk, "python train.py")
	seen, last := walk(t, s, clk, id, 8)
	want := "JobReceived PrepareInstance InstanceReady Training Training Training Completed Completed"
	if got := strings.Join(seen, " "); got != want {
		t.Errorf("statuses\n got %s\nwant %s", got, want)
	}
	// 1700000000 is 2023-11-14 22:13:20 UTC; timaker writes UTC+8.
	if last["TrainingCreateTime"] != "2023-11-15 06:13:20" || last["TrainingEndTime"] != "2023-11-15 06:13:26" {
		t.Errorf("times %v .. %v, want 2023-11-15 06:13:20 .. 06:13:26", last["TrainingCreateTime"], last["TrainingEndTime"])
	}
	if last["FailureCode"] != "" || last["InstanceId"] == "" || last["TrainingJobId"] != id {
		t.Errorf("answer %v", last)
	}
}

func TestAJobThatFailsEndsFailed(t *testing.T) {
	s, clk := newTestServer(t)
	id := mustCreate(t, s, clk, "python train.py --then fail")
	seen, last := walk(t, s, clk, id, 7)
	if got := seen[len(seen)-1]; got != StatusFailed {
		t.Fatalf("statuses %v, want the last Failed", seen)
	}
	if last["FailureCode"] != "ExitCode1" || last["FailureReason"] != "the training command exited with 1" {
		t.Errorf("failure %v: %v", last["FailureCode"], last["FailureReason"])
	}
	if last["TrainingEndTime"] == "" {
		t.Error("a failed job has no end time")
	}
}

func TestAStoppedJobEndsStopped(t *testing.T) {
	s, clk := newTestServer(t)
	id := mustCreate(t, s, clk, "python train.py")
	clk.Step(3 * time.Second)
	if st := describe(t, s, clk, id)["TrainingJobStatus"]; st != StatusTraining {
		t.Fatalf("status %v before the stop, want Training", st)
	}
	_, resp := call{action: "v1/StopTrainingJob", body: jobBody(id)}.do(t, s, clk)
	if code := errorCode(resp); code != "" {
		t.Fatalf("stop: %s %s", code, errorMessage(resp))
	}
	seen, last := walk(t, s, clk, id, 4)
	if got, want := strings.Join(seen, " "), "PreStopped Stopping Stopped Stopped"; got != want {
		t.Errorf("statuses\n got %s\nwant %s", got, want)
	}
	if last["TrainingEndTime"] != "2023-11-15 06:13:25" {
		t.Errorf("end time %v, want 2023-11-15 06:13:25", last["TrainingEndTime"])
	}
	// Stopping again is harmless; stopping a completed job is not.
	if _, resp := (call{action: "v1/StopTrainingJob", body: jobBody(id)}).do(t, s, clk); errorCode(resp) != "" {
		t.Errorf("a second stop: %s", errorCode(resp))
	}
	done := mustCreate(t, s, clk, "python train.py")
	clk.Step(time.Minute)
	if _, resp := (call{action: "v1/StopTrainingJob", body: jobBody(done)}).do(t, s, clk); errorCode(resp) != "FailedOperation" {
		t.Errorf("stopping a completed job: %q, want FailedOperation", errorCode(resp))
	}
}

func TestStartAfterCreateFails(t *testing.T) {
	s, clk := newTestServer(t)
	id := mustCreate(t, s, clk, "python train.py")
	_, resp := call{action: "v1/StartTrainingJob", body: jobBody(id)}.do(t, s, clk)
	if errorCode(resp) != "FailedOperation" || !strings.Contains(errorMessage(resp), "already started") {
		t.Errorf("start: %s %s, want FailedOperation: ... already started", errorCode(resp), errorMessage(resp))
	}
}

func TestBadRequests(t *testing.T) {
	without := func(path ...string) map[string]any {
		b := createBody("python train.py")
		m := b
		for _, p := range path[:len(path)-1] {
			m = m[p].(map[string]any)
		}
		delete(m, path[len(path)-1])
		return b
	}
	with := func(key string, v any) map[string]any {
		b := createBody("python train.py")
		b[key] = v
		return b
	}
	for _, tc := range []struct {
		name  string
		call  call
		code  string
		names string // in the message
	}{
		{"no Uin", call{body: without("Uin")}, "InvalidParameter", "Uin"},
		{"no TiProjectId", call{body: without("TiProjectId")}, "InvalidParameter", "TiProjectId"},
		{"no TrainingJobName", call{body: without("TrainingJobName")}, "InvalidParameter", "TrainingJobName"},
		{"no image", call{body: without("AlgorithmSpecification", "TrainingImageName")}, "InvalidParameter", "AlgorithmSpecification.TrainingImageName"},
		{"no EntryPoint", call{body: without("AlgorithmSpecification", "EntryPoint")}, "InvalidParameter", "AlgorithmSpecification.EntryPoint"},
		{"no instances", call{body: without("ResourceConfig", "InstanceCount")}, "InvalidParameter", "ResourceConfig.InstanceCount"},
		{"an unknown GPU type", call{body: with("ResourceConfig", map[string]any{"InstanceCount": 1, "GpuType": "H800"})}, "InvalidParameter", "GpuType"},
		{"a bad environment variable", call{body: with("EnvConfig", []any{map[string]any{"Name": "A-B", "Value": "1"}})}, "InvalidParameter", "EnvConfig[0].Name"},
		{"a key in another case", call{body: with("ResourceConfig", map[string]any{"InstanceCount": 1, "cpuNum": 1000})}, "UnknownParameter", "ResourceConfig.cpuNum"},
		{"an unknown key in a list", call{body: with("EnvConfig", []any{map[string]any{"Name": "A", "value": "1"}})}, "UnknownParameter", "EnvConfig[0].value"},
		{"a string for a number", call{body: with("TiProjectId", "1")}, "InvalidParameter", "TiProjectId"},
		{"not JSON", call{rawBody: []byte("{")}, "InvalidParameter", "JSON"},
		{"a body over 1 MiB", call{rawBody: bytes.Repeat([]byte(" "), MaxBodyBytes+1)}, "InvalidParameter", "1048576"},
		{"an unknown job", call{action: "v1/DescribeTrainingJob", body: jobBody("train-404")}, "ResourceNotFound.TrainingJob", "train-404"},
		{"another user's job", call{action: "v1/DescribeTrainingJob", body: map[string]any{"Uin": "2", "TiProjectId": 1, "TrainingJobId": "train-1"}}, "ResourceNotFound.TrainingJob", "train-1"},
		{"an unknown action", call{action: "v1/DeleteTrainingJob", service: ServiceTimaker, version: VersionTimaker, body: jobBody("train-1")}, "InvalidAction", "v1/DeleteTrainingJob"},
		{"an action of another service", call{action: "v1/DescribeTrainingJob", service: ServiceResource, body: jobBody("train-1")}, "InvalidAction", ServiceResource},
		{"another version", call{action: "v1/DescribeTrainingJob", version: "2021-01-01", body: jobBody("train-1")}, "NoSuchVersion", "2021-01-01"},
		{"resources without Uin", call{action: "ResourceServer/Resources/GetTotalAppGroupResources", body: map[string]any{"AppGroupId": 1}}, "InvalidParameter", "Uin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clk := newTestServer(t)
			mustCreate(t, s, clk, "python train.py") // train-1
			c := tc.call
			c.action = cmp(c.action, "v1/CreateTrainingJob")
			_, resp := c.do(t, s, clk)
			if code := errorCode(resp); code != tc.code || !strings.Contains(errorMessage(resp), tc.names) {
				t.Errorf("%s: %s, want %s naming %s", code, errorMessage(resp), tc.code, tc.names)
			}
		})
	}
}

func TestOnlyPostToGateway(t *testing.T) {
	s, _ := newTestServer(t)
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/gateway", http.StatusMethodNotAllowed},
		{http.MethodPost, "/", http.StatusNotFound},
		{http.MethodPost, "/gateway/x", http.StatusNotFound},
	} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(tc.method, "http://127.0.0.1"+tc.path, nil))
		if rec.Code != tc.status {
			t.Errorf("%s %s: HTTP %d, want %d", tc.method, tc.path, rec.Code, tc.status)
		}
	}
}

func TestResources(t *testing.T) {
	s, clk := newTestServer(t)
	resources := func(action string) (train, elastic Amounts) {
		t.Helper()
		_, resp := call{action: action, body: map[string]any{"Uin": "100001", "RequestId": "r", "AppGroupId": 7}}.do(t, s, clk)
		if code := errorCode(resp); code != "" {
			t.Fatalf("%s: %s %s", action, code, errorMessage(resp))
		}
		var out struct{ Train, Elastic Amounts }
		b, _ := json.Marshal(resp["Resources"])
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		return out.Train, out.Elastic
	}
	const total, available = "ResourceServer/Resources/GetTotalAppGroupResources", "ResourceServer/Resources/GetAvailableAppGroupResources"
	if train, _ := resources(total); train != DefaultTotal {
		t.Errorf("total %+v, want %+v", train, DefaultTotal)
	}
	mustCreate(t, s, clk, "python train.py") // 2 instances of 8 cores, 32 GiB, a V100
	vgpu := createBody("python train.py")
	vgpu["ResourceConfig"] = map[string]any{"CpuNum": 1000, "Memory": 1024, "GpuNum": 50, "InstanceCount": 1}
	vgpu["Elastic"] = true
	if _, resp := (call{action: "v1/CreateTrainingJob", body: vgpu}).do(t, s, clk); errorCode(resp) != "" {
		t.Fatal(errorCode(resp))
	}
	train, elastic := resources(available)
	want := Amounts{Cpu: 64000 - 16000, Memory: 262144 - 65536, V100: 800 - 200}
	if train != want {
		t.Errorf("available train pool %+v, want %+v", train, want)
	}
	if elastic != (Amounts{}) {
		t.Errorf("available elastic pool %+v: an empty pool stays at zero", elastic)
	}
	clk.Step(time.Minute) // both jobs completed
	if train, _ := resources(available); train != DefaultTotal {
		t.Errorf("available after the jobs ended %+v, want %+v", train, DefaultTotal)
	}
}

func TestInjectedFaultsHappenCountTimes(t *testing.T) {
	s, clk := newTestServer(t)
	id := mustCreate(t, s, clk, "python train.py")
	s.Inject("v1/DescribeTrainingJob", Fault{Count: 2, Status: http.StatusServiceUnavailable})
	s.Inject("v1/DescribeTrainingJob", Fault{Count: 1, Error: &APIErrorBody{Code: "InternalError", Message: "try again"}})
	s.Inject("v1/DescribeTrainingJob", Fault{Count: 1, Delay: 20 * time.Millisecond})
	var got []string
	for range 6 {
		start := time.Now()
		status, resp := call{action: "v1/DescribeTrainingJob", body: jobBody(id)}.do(t, s, clk)
		switch {
		case status != http.StatusOK:
			got = append(got, strconv.Itoa(status))
		case errorCode(resp) != "":
			got = append(got, errorCode(resp))
		case time.Since(start) >= 20*time.Millisecond:
			got = append(got, "slow")
		default:
			got = append(got, "ok")
		}
	}
	if want := "503 503 InternalError slow ok ok"; strings.Join(got, " ") != want {
		t.Errorf("answers %s, want %s", strings.Join(got, " "), want)
	}
	// Other actions are untouched.
	if _, resp := (call{action: "v1/StopTrainingJob", body: jobBody(id)}).do(t, s, clk); errorCode(resp) != "" {
		t.Errorf("stop: %s", errorCode(resp))
	}
}

func TestRequestsAreRecordedWithoutAuthorization(t *testing.T) {
	s, clk := newTestServer(t)
	mustCreate(t, s, clk, "python train.py")
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Action != "v1/CreateTrainingJob" || r.Service != ServiceTimaker || r.Version != VersionTimaker {
		t.Errorf("recorded %s %s %s", r.Action, r.Service, r.Version)
	}
	if r.Header.Get("Authorization") != "" || r.Header.Get("X-TC-Timestamp") == "" || r.Header.Get("Host") != vectorHost {
		t.Errorf("headers %v", r.Header)
	}
	rc, _ := r.Body["ResourceConfig"].(map[string]any)
	if rc["CpuNum"] != float64(8000) {
		t.Errorf("body %v", r.Body)
	}
}

// Many clients at once: the race detector checks the locking.
func TestConcurrentUse(t *testing.T) {
	s, clk := newTestServer(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			s.Inject("v1/DescribeTrainingJob", Fault{Count: 1, Status: http.StatusBadGateway})
			// No t.Fatal off the test's goroutine: errors only.
			_, resp := call{action: "v1/CreateTrainingJob", body: createBody("python train.py")}.do(t, s, clk)
			id, _ := resp["TrainingJobId"].(string)
			if id == "" {
				t.Errorf("create: %v", resp)
			}
			call{action: "v1/DescribeTrainingJob", body: jobBody(id)}.do(t, s, clk)
			clk.Step(time.Second)
			_ = s.Requests()
		})
	}
	wg.Wait()
	if n := len(s.Requests()); n != 16 {
		t.Errorf("%d requests recorded, want 16", n)
	}
}
