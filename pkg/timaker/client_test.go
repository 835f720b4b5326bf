package timaker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/klog/v2"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// The signer's test vector (pkg/timaker/tisign).
const (
	vectorID        = "test-secret-id"
	vectorKey       = "test-secret-key"
	vectorTS        = 1700000000
	vectorSignature = "aa95d457741752cab7b5dc4dff01e5f7833ef512c863d99e86842c6b4d97ab93"
	vectorAuth      = "TC3-HMAC-SHA256 Credential=test-secret-id/2023-11-14/timaker/tc3_request, SignedHeaders=content-type;host;x-tc-timestamp;, Signature=" + vectorSignature
)

func vectorNow() time.Time { return time.Unix(vectorTS, 0) }

// testClient is a client of addr with the vector's credentials and
// clock, fast retries and numbered request ids.
func testClient(addr string) *Client {
	var n atomic.Int64
	return &Client{
		Addr:         addr,
		Host:         "127.0.0.1",
		Credentials:  Credentials{SecretID: vectorID, SecretKey: vectorKey},
		Now:          vectorNow,
		NewRequestID: func() string { return fmt.Sprintf("req-%d", n.Add(1)) },
		Timeout:      2 * time.Second,
		minBackoff:   time.Millisecond,
		maxBackoff:   4 * time.Millisecond,
	}
}

func TestNewRequestIsSignedAsTheVector(t *testing.T) {
	c := testClient("http://127.0.0.1:9/")
	req, body, err := c.NewRequest(context.Background(), ServiceTimaker, VersionTimaker, ActionDescribeTrainingJob,
		&JobRequest{Uin: "100001", TiProjectId: 1, TrainingJobId: "train-1"})
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != http.MethodPost || req.URL.String() != "http://127.0.0.1:9/gateway" || req.Host != "127.0.0.1" {
		t.Errorf("request %s %s, Host %s", req.Method, req.URL, req.Host)
	}
	for name, want := range map[string]string{
		"Content-Type":   "application/json",
		"X-TC-Service":   "timaker",
		"X-TC-Version":   "2020-10-12",
		"X-TC-Action":    "v1/DescribeTrainingJob",
		"X-TC-Timestamp": "1700000000",
		"Authorization":  vectorAuth,
	} {
		if got := req.Header.Get(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if want := `{"Uin":"100001","RequestId":"req-1","TiProjectId":1,"TrainingJobId":"train-1"}`; string(body) != want {
		t.Errorf("body\n got %s\nwant %s", body, want)
	}
	sent, _ := io.ReadAll(req.Body)
	if !bytes.Equal(sent, body) {
		t.Errorf("the request sends %s, not its body %s", sent, body)
	}
	if got := RedactedHeader(req.Header).Get("Authorization"); strings.Contains(got, vectorSignature) || !strings.Contains(got, "Credential=test-secret-id/") {
		t.Errorf("redacted Authorization %q", got)
	}
}

func TestHostDefaultsToTheAddressHost(t *testing.T) {
	c := testClient("https://ti.example.com:8443/base")
	c.Host = ""
	req, _, err := c.NewRequest(context.Background(), ServiceResource, VersionResource, ActionGetTotalResources, &ResourceRequest{Uin: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if req.Host != "ti.example.com:8443" || req.URL.String() != "https://ti.example.com:8443/base/gateway" {
		t.Errorf("Host %q, URL %s", req.Host, req.URL)
	}
	if !strings.Contains(req.Header.Get("Authorization"), "/ti-resource-server/tc3_request") {
		t.Errorf("Authorization %q does not name the resource server", req.Header.Get("Authorization"))
	}
}

func TestBadConfigurationIsAUsageError(t *testing.T) {
	for _, c := range []*Client{
		{Addr: "ti.example.com", Credentials: Credentials{"id", "key"}},
		{Addr: "ftp://ti.example.com", Credentials: Credentials{"id", "key"}},
		{Addr: "http://", Credentials: Credentials{"id", "key"}},
		{Addr: "http://ti.example.com"},
		{Addr: "http://ti.example.com", Credentials: Credentials{SecretID: "id"}},
	} {
		_, err := c.DescribeTrainingJob(context.Background(), &JobRequest{})
		if exit.Code(err) != exit.Usage {
			t.Errorf("%q %v: %v (exit %d), want a usage error", c.Addr, c.Credentials, err, exit.Code(err))
		}
	}
}

func TestCredentialsNeverShowTheKey(t *testing.T) {
	creds := Credentials{SecretID: "AKID-visible", SecretKey: "the-secret-key"}
	c := &Client{Addr: "http://x", Credentials: creds}
	fs := FileSystemDataSource{FileSystemType: "ceph", User: "u", SecretKey: "the-ceph-key"}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("creds", "c", creds)
	js, err := json.Marshal(creds)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		fmt.Sprintf("%v %+v %#v %s %q %x %d", creds, creds, creds, creds, creds, creds, creds),
		fmt.Sprintf("%v %+v %#v", &creds, &creds, &creds),
		fmt.Sprintf("%v %+v %#v", c, c, *c),
		fmt.Sprintf("%v %+v %#v %s", fs, fs, fs, fs),
		fmt.Sprintf("%+v", AlgorithmSource{FileSystemDataSource: &fs}),
		creds.String() + creds.GoString(),
		string(js),
		logged.String(),
	} {
		if strings.Contains(s, "the-secret-key") || strings.Contains(s, "the-ceph-key") {
			t.Errorf("a secret is shown: %s", s)
		}
		if !strings.Contains(s, redacted) {
			t.Errorf("no %s in %s", redacted, s)
		}
	}
	if got, want := fmt.Sprintf("%#v", creds), `timaker.Credentials{SecretID:"AKID-visible", SecretKey:"[redacted]"}`; got != want {
		t.Errorf("%%#v: %s, want %s", got, want)
	}
	if got, want := fmt.Sprintf("%#v", fs), `timaker.FileSystemDataSource{FileSystemType:"ceph", DirectoryPath:"", ReadOnly:false, FileSystemEndpoint:"", User:"u", SecretKey:"[redacted]"}`; got != want {
		t.Errorf("%%#v: %s, want %s", got, want)
	}
	// Sent as is, though.
	if b, _ := json.Marshal(fs); !strings.Contains(string(b), `"SecretKey":"the-ceph-key"`) {
		t.Errorf("the data source's key is not sent: %s", b)
	}
}

// answer serves one timaker answer.
func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func TestAPIErrors(t *testing.T) {
	for _, tc := range []struct {
		code     string
		exitCode int
		hint     string
	}{
		{"ResourceNotFound.TrainingJob", exit.NotFound, ""},
		{"ResourceNotFound", exit.NotFound, ""},
		{"InvalidParameter", exit.Usage, ""},
		{"InvalidParameter.BadName", exit.Usage, ""},
		{"MissingParameter", exit.Usage, ""},
		{"UnknownParameter", exit.Usage, ""},
		{"InvalidParameterValue", exit.Error, ""},
		{"AuthFailure.SignatureExpire", exit.Error, "signatures are valid for 60 minutes: this machine's clock reads 2023-11-14T22:13:20Z; check it, and EASYAI_TIMAKER_SECRET_ID/EASYAI_TIMAKER_SECRET_KEY"},
		{"AuthFailure.SignatureFailure", exit.Error, "this machine's clock reads 2023-11-14T22:13:20Z"},
		{"AuthFailure.SecretIdNotFound", exit.Error, "check EASYAI_TIMAKER_SECRET_ID and EASYAI_TIMAKER_SECRET_KEY"},
		{"FailedOperation", exit.Error, ""},
	} {
		t.Run(tc.code, func(t *testing.T) {
			var calls atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				fmt.Fprintf(w, `{"Response":{"Error":{"Code":%q,"Message":"no such job\n\u001b[31mred"},"RequestId":"abc-123"}}`, tc.code)
			}))
			defer ts.Close()
			_, err := testClient(ts.URL).DescribeTrainingJob(context.Background(), &JobRequest{TrainingJobId: "train-9"})
			var apiErr *APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("%v is no *APIError", err)
			}
			if want := "timaker v1/DescribeTrainingJob: " + tc.code + ": no such job  [31mred (request id abc-123)"; err.Error() != want {
				t.Errorf("error\n got %q\nwant %q", err, want)
			}
			if got := exit.Code(err); got != tc.exitCode {
				t.Errorf("exit %d, want %d", got, tc.exitCode)
			}
			if hint := exit.Hint(err); !strings.Contains(hint, tc.hint) || (tc.hint == "") != (hint == "") {
				t.Errorf("hint %q, want %q", hint, tc.hint)
			}
			if calls.Load() != 1 {
				t.Errorf("%d calls: an answered error is not retried", calls.Load())
			}
		})
	}
}

func TestAnswersThatAreNotTimakers(t *testing.T) {
	long := strings.Repeat("x", 1000)
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"HTML", answer(200, "<html>hello</html>"), `timaker v1/DescribeTrainingJob: HTTP 200: the answer is not timaker's JSON: "<html>hello</html>"`},
		{"no Response", answer(200, `{"response2":{}}`), `HTTP 200: the answer has no "Response" object: "{\"response2\":{}}"`},
		{"a Response that is not an object", answer(200, `{"Response":[1]}`), `the answer has no "Response" object`},
		{"a 404 page", answer(404, "404 page not found\n"), `HTTP 404: the answer is not timaker's JSON: "404 page not found\n"`},
		{"a long body", answer(200, long), `"` + strings.Repeat("x", 200) + `"...`},
		{"a redirect", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://example.com/", http.StatusTemporaryRedirect)
		}, "HTTP 307"},
		{"a wrong type", answer(200, `{"Response":{"TrainingJobStatus":7}}`), "HTTP 200: the answer's Response does not parse (json: cannot unmarshal number"},
		{"too large", answer(200, `{"Response":{"X":"`+strings.Repeat("y", MaxResponseBytes)+`"}}`), "larger than 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := httptest.NewServer(tc.handler)
			defer ts.Close()
			_, err := testClient(ts.URL).DescribeTrainingJob(context.Background(), &JobRequest{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to hold %s", err, tc.want)
			}
			if err != nil && len(err.Error()) > 400 {
				t.Errorf("an error of %d bytes", len(err.Error()))
			}
		})
	}
}

func TestDescribeIsRetried(t *testing.T) {
	var calls atomic.Int32
	failures := int32(2)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n := calls.Add(1); {
		case n == 1:
			w.WriteHeader(http.StatusServiceUnavailable)
		case n <= failures:
			fmt.Fprint(w, `{"Response":{"Error":{"Code":"RequestLimitExceeded","Message":"slow down"},"RequestId":"r"}}`)
		default:
			fmt.Fprint(w, `{"Response":{"TrainingJobStatus":"Training","RequestId":"r3"}}`)
		}
	}))
	defer ts.Close()
	job, err := testClient(ts.URL).DescribeTrainingJob(context.Background(), &JobRequest{TrainingJobId: "train-1"})
	if err != nil || job.TrainingJobStatus != "Training" || job.TrainingJobId != "train-1" || job.RequestId != "r3" {
		t.Fatalf("%+v, %v", job, err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d attempts, want 3", calls.Load())
	}

	// Failing every time: 1 + Retries attempts, then an error naming them.
	calls.Store(0)
	failures = 100
	c := testClient(ts.URL)
	c.Retries = 2
	_, err = c.DescribeTrainingJob(context.Background(), &JobRequest{})
	var retries *RetriesError
	if !errors.As(err, &retries) || retries.Attempts != 3 || calls.Load() != 3 {
		t.Fatalf("%v after %d calls, want a *RetriesError of 3 attempts", err, calls.Load())
	}
	if want := "timaker v1/DescribeTrainingJob failed 3 times; the last time: timaker v1/DescribeTrainingJob: RequestLimitExceeded: slow down (request id r)"; err.Error() != want {
		t.Errorf("error\n got %s\nwant %s", err, want)
	}
	if exit.Code(err) != exit.Error {
		t.Errorf("exit %d", exit.Code(err))
	}

	// Negative Retries: one attempt.
	calls.Store(0)
	c.Retries = -1
	if _, err := c.DescribeTrainingJob(context.Background(), &JobRequest{}); err == nil || calls.Load() != 1 {
		t.Errorf("%v after %d calls, want 1", err, calls.Load())
	}
}

func TestDefaultRetries(t *testing.T) {
	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprint(w, "upstream down")
	}))
	defer ts.Close()
	_, _, err := testClient(ts.URL).DescribeResource(context.Background(), &ResourceRequest{Uin: "1"})
	if calls.Load() != 1+DefaultRetries {
		t.Errorf("%d attempts, want %d", calls.Load(), 1+DefaultRetries)
	}
	want := `timaker ResourceServer/Resources/GetTotalAppGroupResources failed 5 times; the last time: HTTP 502: "upstream down"`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

func TestRetriesStopWithTheContext(t *testing.T) {
	ts := httptest.NewServer(answer(http.StatusServiceUnavailable, ""))
	defer ts.Close()
	c := testClient(ts.URL)
	c.minBackoff, c.maxBackoff = time.Hour, time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.DescribeTrainingJob(ctx, &JobRequest{})
	if !errors.Is(err, context.DeadlineExceeded) || exit.Code(err) != exit.Timeout || time.Since(start) > 10*time.Second {
		t.Errorf("%v (exit %d) after %s", err, exit.Code(err), time.Since(start))
	}
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := c.DescribeTrainingJob(cctx, &JobRequest{}); exit.Code(err) != exit.Interrupted {
		t.Errorf("a cancelled context: %v (exit %d), want exit 130", err, exit.Code(err))
	}
}

func TestBackoffGrowsToItsCap(t *testing.T) {
	c := &Client{}
	for attempt, want := range map[int]time.Duration{1: 500 * time.Millisecond, 2: time.Second, 4: 4 * time.Second, 5: 8 * time.Second, 30: 8 * time.Second} {
		for range 20 {
			if d := c.backoff(attempt); d < want/2 || d > want {
				t.Errorf("backoff after attempt %d: %s, want within [%s, %s]", attempt, d, want/2, want)
			}
		}
	}
}

// hangUp closes the connection after reading the request.
func hangUp(t *testing.T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}
}

func TestCreateIsNeverRetried(t *testing.T) {
	for _, tc := range []struct {
		name      string
		handler   func(t *testing.T) http.HandlerFunc
		uncertain bool
		want      string
	}{
		{"a gateway failure", func(*testing.T) http.HandlerFunc { return answer(http.StatusBadGateway, "bad gateway") }, true, "HTTP 502"},
		{"a broken connection", hangUp, true, "EOF"},
		{"no answer in time", func(*testing.T) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body) // then the server sees the client go
				<-r.Context().Done()
			}
		}, true, "no answer within 100ms"},
		{"throttled", func(*testing.T) http.HandlerFunc { return answer(http.StatusTooManyRequests, "") }, false, "HTTP 429"},
		{"an answered error", func(*testing.T) http.HandlerFunc {
			return answer(200, `{"Response":{"Error":{"Code":"InternalError","Message":"oops"},"RequestId":"r"}}`)
		}, false, "InternalError: oops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			h := tc.handler(t)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				h(w, r)
			}))
			defer ts.Close()
			c := testClient(ts.URL)
			c.Timeout = 100 * time.Millisecond
			_, _, err := c.CreateTrainingJob(context.Background(), &CreateTrainingJobRequest{RequestId: "my-request-id"})
			if calls.Load() != 1 {
				t.Errorf("%d attempts of a create", calls.Load())
			}
			var maybe *MaybeCreatedError
			if errors.As(err, &maybe) != tc.uncertain {
				t.Errorf("%v: uncertain %v, want %v", err, !tc.uncertain, tc.uncertain)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to hold %s", err, tc.want)
			}
			if tc.uncertain {
				if maybe.RequestID != "my-request-id" || !strings.Contains(err.Error(), "the job may have been created (request id my-request-id)") {
					t.Errorf("error %v", err)
				}
				if exit.Code(err) != exit.Error || !strings.Contains(exit.Hint(err), "before submitting again") {
					t.Errorf("exit %d, hint %q", exit.Code(err), exit.Hint(err))
				}
			}
		})
	}
}

func TestNothingSentIsNotUncertain(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	_, _, err = testClient(addr).CreateTrainingJob(context.Background(), &CreateTrainingJobRequest{})
	var maybe *MaybeCreatedError
	if err == nil || errors.As(err, &maybe) || !strings.Contains(err.Error(), "timaker v1/CreateTrainingJob: ") {
		t.Errorf("error %v, want a plain failure to connect", err)
	}
}

func TestStopIsNeverRetried(t *testing.T) {
	var calls atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer ts.Close()
	err := testClient(ts.URL).StopTrainingJob(context.Background(), &JobRequest{TrainingJobId: "train-1"})
	if calls.Load() != 1 || err == nil || !strings.Contains(err.Error(), "timaker v1/StopTrainingJob: HTTP 503") {
		t.Errorf("%v after %d attempts", err, calls.Load())
	}
}

func TestCreateReturnsTheJobID(t *testing.T) {
	var got map[string]any
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewDecoder(r.Body).Decode(&got)
		fmt.Fprint(w, `{"Response":{"TrainingJobId":"train-7","RequestId":"answer-1"}}`)
	}))
	defer ts.Close()
	req := &CreateTrainingJobRequest{Uin: "1", TiProjectId: 1}
	id, requestID, err := testClient(ts.URL).CreateTrainingJob(context.Background(), req)
	if err != nil || id != "train-7" || requestID != "answer-1" {
		t.Fatalf("%q %q %v", id, requestID, err)
	}
	if got["RequestId"] != "req-1" || req.RequestId != "" {
		t.Errorf("sent RequestId %v; the caller's request became %+v", got["RequestId"], req)
	}
	ts.Config.Handler = answer(200, `{"Response":{"RequestId":"answer-2"}}`)
	if _, _, err := testClient(ts.URL).CreateTrainingJob(context.Background(), req); err == nil || !strings.Contains(err.Error(), "no TrainingJobId") {
		t.Errorf("an answer without an id: %v", err)
	}
}

// setKlogVerbosity sets klog's -v and output for a test, as easyai's -v does.
func setKlogVerbosity(t *testing.T, v string, out io.Writer) {
	t.Helper()
	set := func(v string, out io.Writer) {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		for name, value := range map[string]string{"v": v, "logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
			if err := fs.Set(name, value); err != nil {
				t.Fatal(err)
			}
		}
		klog.SetOutput(out)
	}
	set(v, out)
	t.Cleanup(func() {
		klog.Flush()
		set("0", io.Discard)
	})
}

func TestLogsNeverShowSecrets(t *testing.T) {
	var logs bytes.Buffer
	setKlogVerbosity(t, "9", &logs)
	ts := httptest.NewServer(answer(200, `{"Response":{"TrainingJobId":"train-1","RequestId":"answer-1","SecretKey":"echoed-ceph-key"}}`))
	defer ts.Close()
	c := testClient(ts.URL)
	req := &CreateTrainingJobRequest{
		Uin: "1", TiProjectId: 1, TrainingJobName: "mnist",
		EnvConfig: []Env{{Name: "EPOCHS", Value: "3"}, {Name: "HF_TOKEN", Value: "hf-token-value"}},
		AlgorithmSpecification: AlgorithmSpecification{EntryPoint: "python train.py", TrainingImageName: "mnist:1",
			AlgorithmSource: &AlgorithmSource{FileSystemDataSource: &FileSystemDataSource{FileSystemType: "ceph", User: "u", SecretKey: "ceph-key-value"}}},
	}
	if _, _, err := c.CreateTrainingJob(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	klog.Flush()
	out := logs.String()
	for _, secret := range []string{vectorKey, vectorSignature, "ceph-key-value", "echoed-ceph-key", "hf-token-value", "Authorization"} {
		if strings.Contains(out, secret) {
			t.Errorf("the logs show %q:\n%s", secret, out)
		}
	}
	for _, want := range []string{
		"timaker v1/CreateTrainingJob: HTTP 200 in ",
		"request id req-1, answer id answer-1",
		`"EntryPoint":"python train.py"`, `{"Name":"EPOCHS","Value":"3"}`, `"TrainingJobId":"train-1"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the logs lack %q:\n%s", want, out)
		}
	}
}

func TestLogsAtV6HaveNoBodies(t *testing.T) {
	var logs bytes.Buffer
	setKlogVerbosity(t, "6", &logs)
	ts := httptest.NewServer(answer(200, `{"Response":{"TrainingJobStatus":"Training","RequestId":"a"}}`))
	defer ts.Close()
	if _, err := testClient(ts.URL).DescribeTrainingJob(context.Background(), &JobRequest{Uin: "uin-in-the-body"}); err != nil {
		t.Fatal(err)
	}
	klog.Flush()
	if out := logs.String(); !strings.Contains(out, "timaker v1/DescribeTrainingJob: HTTP 200") || strings.Contains(out, "uin-in-the-body") {
		t.Errorf("logs at -v 6:\n%s", out)
	}
}

func TestParseTime(t *testing.T) {
	for in, want := range map[string]string{
		"2023-11-15 06:13:20": "2023-11-14T22:13:20Z",
		"2024-07-01 00:00:00": "2024-06-30T16:00:00Z",
		"":                    "nil",
		"0000-00-00 00:00:00": "nil",
		"2023-11-15T06:13:20": "error",
		"yesterday":           "error",
	} {
		got, err := ParseTime(in)
		var s string
		switch {
		case err != nil:
			s = "error"
		case got == nil:
			s = "nil"
		default:
			s = got.UTC().Format(time.RFC3339)
		}
		if s != want {
			t.Errorf("ParseTime(%q) = %s (%v), want %s", in, s, err, want)
		}
	}
	if got := FormatTime(time.Unix(vectorTS, 0)); got != "2023-11-15 06:13:20" {
		t.Errorf("FormatTime: %s", got)
	}
}

func TestOneLine(t *testing.T) {
	if got := OneLine("a\nb\x1b[2Jc\u202ed\xffe", 100); got != "a b [2Jc d e" {
		t.Errorf("%q", got)
	}
	if got := OneLine("ééé", 3); got != "éé..." {
		t.Errorf("%q", got)
	}
}

// FuzzDecodeResponse: no body makes the decoder panic, and what an error
// says of the body is bounded.
func FuzzDecodeResponse(f *testing.F) {
	for _, seed := range []string{
		`{"Response":{"TrainingJobId":"train-1","RequestId":"r"}}`,
		`{"Response":{"Error":{"Code":"ResourceNotFound.TrainingJob","Message":"no"},"RequestId":"r"}}`,
		`{"Response":{"Error":{"Code":"","Message":""}}}`,
		`{"Response":{"Resources":{"Train":{"Cpu":1},"Elastic":null}}}`,
		`{"Response":null}`, `{"Response":[]}`, `[]`, `null`, `<html>`, ``,
		`{"Response":{"TrainingJobStatus":1e999}}`,
	} {
		f.Add([]byte(seed), 200)
	}
	f.Fuzz(func(t *testing.T, body []byte, status int) {
		var job TrainingJob
		var res struct{ Resources *Resources }
		for _, out := range []any{&job, &res, nil} {
			_, err := decodeResponse(ActionDescribeTrainingJob, status, body, out)
			if err != nil && len(err.Error()) > 1500 {
				t.Errorf("an error of %d bytes", len(err.Error()))
			}
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				if strings.ContainsAny(apiErr.Error(), "\n\r\x1b") {
					t.Errorf("a multi-line or escaped error: %q", apiErr.Error())
				}
				_ = apiErr.coded(vectorNow())
			}
		}
	})
}

// Requests are signed, not encrypted, and their signature covers neither
// the body nor the action: over plain http they go only to this machine.
func TestPlainHTTPOnlyToThisMachine(t *testing.T) {
	for addr, ok := range map[string]bool{
		"http://ti.example.com":      false,
		"http://10.0.0.8:8080":       false,
		"http://[2001:db8::1]:80":    false,
		"http://127.0.0.1:9":         true,
		"http://127.8.0.1":           true,
		"http://localhost:8080/ti":   true,
		"http://[::1]:8080":          true,
		"https://ti.example.com":     true,
		"https://10.0.0.8:8443/path": true,
	} {
		c := &Client{Addr: addr, Credentials: Credentials{"id", "key"}}
		_, _, err := c.endpoint()
		if ok && err != nil || !ok && (exit.Code(err) != exit.Usage || !strings.Contains(fmt.Sprint(err), "https://")) {
			t.Errorf("%s: %v (exit %d), want allowed %v", addr, err, exit.Code(err), ok)
		}
	}
}
