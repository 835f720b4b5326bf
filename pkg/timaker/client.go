// Package timaker is a client of timaker's training API, reached over
// HTTP through Ti-Gateway: every request is a POST to {Addr}/gateway naming
// its service, version and action in X-TC-* headers, signed with the
// user's secret id and key (package tisign).
//
// There is no public specification of the API: the actions, their bodies
// and the status names come from public adapter code, and the project's
// contract test server (test/timakerd) is built from the same sources.
//
// Answers are {"Response": {..., "RequestId": "...", "Error": {"Code": "...",
// "Message": "..."}}} with HTTP status 200 even for errors (Error is absent
// on success). Idempotent actions (the Describe ones) are retried on
// failures of the network or the gateway; CreateTrainingJob and
// StopTrainingJob never are.
package timaker

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/timaker/tisign"
)

// The services, versions and actions the client calls.
const (
	ServiceTimaker = "timaker"
	VersionTimaker = "2020-10-12"

	ActionCreateTrainingJob   = "v1/CreateTrainingJob"
	ActionStopTrainingJob     = "v1/StopTrainingJob"
	ActionDescribeTrainingJob = "v1/DescribeTrainingJob"

	ServiceResource = "ti-resource-server"
	VersionResource = "2020-10-10"

	ActionGetTotalResources     = "ResourceServer/Resources/GetTotalAppGroupResources"
	ActionGetAvailableResources = "ResourceServer/Resources/GetAvailableAppGroupResources"
)

const (
	// DefaultTimeout bounds one attempt of a request, its answer read.
	DefaultTimeout = 30 * time.Second
	// DefaultRetries is how many times an idempotent action is tried again
	// after a failure of the network or the gateway: 5 attempts in all.
	DefaultRetries = 4
	// MaxResponseBytes is the largest answer the client reads.
	MaxResponseBytes = 1 << 20

	contentType       = "application/json"
	signatureValidity = tisign.Validity
	minBackoff        = 500 * time.Millisecond
	maxBackoff        = 8 * time.Second
)

// Client calls timaker through Ti-Gateway. Its zero values are defaults;
// it is safe for concurrent use once set up.
type Client struct {
	Addr         string           // base URL: https://ti.example.com or http://127.0.0.1:8080
	Host         string           // the Host header, which is signed; empty: Addr's host
	Credentials  Credentials      // who signs
	HTTP         *http.Client     // nil: a client that follows no redirects
	Now          func() time.Time // nil: time.Now; the signatures' timestamp
	NewRequestID func() string    // nil: a random UUID; fills empty RequestId fields
	Timeout      time.Duration    // per attempt; 0: DefaultTimeout
	Retries      int              // further attempts of idempotent actions; 0: DefaultRetries; negative: none

	// backoff bounds, changed by tests only; zero: minBackoff, maxBackoff.
	minBackoff, maxBackoff time.Duration
}

// CreateTrainingJob creates a training job, which the service starts, and
// returns its id and the id of the service's answer. It is never retried:
// when no answer comes after the request was sent the error holds a
// *MaybeCreatedError, as the job may exist.
func (c *Client) CreateTrainingJob(ctx context.Context, req *CreateTrainingJobRequest) (jobID, requestID string, err error) {
	if req == nil {
		return "", "", errors.New("timaker: no CreateTrainingJobRequest")
	}
	body := *req
	if body.RequestId == "" {
		body.RequestId = c.newRequestID()
	}
	var out struct{ TrainingJobId string }
	requestID, err = c.call(ctx, action{ServiceTimaker, VersionTimaker, ActionCreateTrainingJob, false}, body.RequestId, &body, &out)
	if err != nil {
		return "", requestID, err
	}
	if out.TrainingJobId == "" {
		return "", requestID, &exit.CodedError{Code: exit.Error, Err: fmt.Errorf("timaker %s: the answer names no TrainingJobId (request id %s)", ActionCreateTrainingJob, requestID)}
	}
	return out.TrainingJobId, requestID, nil
}

// StopTrainingJob asks the service to stop a job; the job then walks
// through PreStopped and Stopping to Stopped. It is never retried.
func (c *Client) StopTrainingJob(ctx context.Context, req *JobRequest) error {
	if req == nil {
		return errors.New("timaker: no JobRequest")
	}
	body := *req
	if body.RequestId == "" {
		body.RequestId = c.newRequestID()
	}
	_, err := c.call(ctx, action{ServiceTimaker, VersionTimaker, ActionStopTrainingJob, false}, body.RequestId, &body, nil)
	return err
}

// DescribeTrainingJob returns a job's status. It is retried.
func (c *Client) DescribeTrainingJob(ctx context.Context, req *JobRequest) (*TrainingJob, error) {
	if req == nil {
		return nil, errors.New("timaker: no JobRequest")
	}
	body := *req
	if body.RequestId == "" {
		body.RequestId = c.newRequestID()
	}
	var job TrainingJob
	id, err := c.call(ctx, action{ServiceTimaker, VersionTimaker, ActionDescribeTrainingJob, true}, body.RequestId, &body, &job)
	if err != nil {
		return nil, err
	}
	if job.TrainingJobId == "" {
		job.TrainingJobId = body.TrainingJobId
	}
	job.RequestId = id
	return &job, nil
}

// DescribeResource returns an app group's total resources and those
// available now (two calls to the resource server, each retried).
func (c *Client) DescribeResource(ctx context.Context, req *ResourceRequest) (total, available *Resources, err error) {
	if req == nil {
		return nil, nil, errors.New("timaker: no ResourceRequest")
	}
	get := func(name string) (*Resources, error) {
		body := *req
		if body.RequestId == "" {
			body.RequestId = c.newRequestID()
		}
		var out struct{ Resources *Resources }
		if _, err := c.call(ctx, action{ServiceResource, VersionResource, name, true}, body.RequestId, &body, &out); err != nil {
			return nil, err
		}
		if out.Resources == nil {
			return nil, &exit.CodedError{Code: exit.Error, Err: fmt.Errorf("timaker %s: the answer has no Resources", name)}
		}
		return out.Resources, nil
	}
	if total, err = get(ActionGetTotalResources); err != nil {
		return nil, nil, err
	}
	if available, err = get(ActionGetAvailableResources); err != nil {
		return nil, nil, err
	}
	return total, available, nil
}

// NewRequest returns the signed request of an action and its body: what
// the actions send, and what a dry run prints (through RedactedHeader: the
// signature lets anyone call the service for the next hour). The
// RequestId of the package's request types is filled in when empty.
func (c *Client) NewRequest(ctx context.Context, service, version, action string, body any) (*http.Request, []byte, error) {
	switch b := body.(type) {
	case *CreateTrainingJobRequest:
		if b != nil && b.RequestId == "" {
			cp := *b
			cp.RequestId = c.newRequestID()
			body = &cp
		}
	case *JobRequest:
		if b != nil && b.RequestId == "" {
			cp := *b
			cp.RequestId = c.newRequestID()
			body = &cp
		}
	case *ResourceRequest:
		if b != nil && b.RequestId == "" {
			cp := *b
			cp.RequestId = c.newRequestID()
			body = &cp
		}
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, nil, fmt.Errorf("timaker %s: encoding the request: %w", action, err)
	}
	req, err := c.newRequest(ctx, service, version, action, payload)
	if err != nil {
		return nil, nil, err
	}
	return req, payload, nil
}

// RedactedHeader is a copy of h whose Authorization header keeps its
// credential (the secret id and scope) but not its signature.
func RedactedHeader(h http.Header) http.Header {
	out := h.Clone()
	if auth := out.Get("Authorization"); auth != "" {
		if i := strings.Index(auth, "Signature="); i >= 0 {
			out.Set("Authorization", auth[:i]+"Signature="+redacted)
		} else {
			out.Set("Authorization", redacted)
		}
	}
	return out
}

// check refuses a client that cannot sign a request: a usage error.
func (c *Client) check(action string) error {
	if _, _, err := c.endpoint(); err != nil {
		return err
	}
	if c.Credentials.SecretID == "" || c.Credentials.SecretKey == "" {
		return exit.UsageErrorf("timaker %s: no credentials: set EASYAI_TIMAKER_SECRET_ID and EASYAI_TIMAKER_SECRET_KEY", action)
	}
	return nil
}

func (c *Client) newRequest(ctx context.Context, service, version, action string, payload []byte) (*http.Request, error) {
	if err := c.check(action); err != nil {
		return nil, err
	}
	endpoint, host, _ := c.endpoint()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("timaker %s: %w", action, err)
	}
	ts := c.now().Unix()
	in := tisign.Input{Method: http.MethodPost, ContentType: contentType, Host: host, Service: service, Timestamp: ts}
	req.Host = host
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-TC-Service", service)
	req.Header.Set("X-TC-Version", version)
	req.Header.Set("X-TC-Action", action)
	req.Header.Set("X-TC-Timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("Authorization", tisign.Authorization(in, c.Credentials.SecretID, c.Credentials.SecretKey))
	return req, nil
}

// Loopback is true of a host name that is this machine: localhost, or an
// address of 127.0.0.0/8 or ::1. Only there may a gateway be plain http.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// endpoint is Addr's gateway URL and the host to sign.
func (c *Client) endpoint() (endpoint, host string, err error) {
	u, err := url.Parse(c.Addr)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", "", exit.UsageErrorf("the timaker address %q is not an http:// or https:// URL of a host", c.Addr)
	}
	if u.Scheme == "http" && !Loopback(u.Hostname()) {
		return "", "", exit.UsageErrorf("the timaker address (the cluster's addr setting) %q is plain http to another machine: requests are signed, not encrypted; give its https:// URL", c.Addr)
	}
	host = c.Host
	if host == "" {
		host = u.Host
	}
	return strings.TrimRight(u.String(), "/") + "/gateway", host, nil
}

// action is what a call does, and whether trying it again is harmless.
type action struct {
	service, version, name string
	idempotent             bool
}

// call runs an action: one attempt, or for an idempotent one up to
// 1+retries, and decodes its Response into out. It returns the service's
// id of the answer (else the id sent).
func (c *Client) call(ctx context.Context, a action, requestID string, body, out any) (string, error) {
	if err := c.check(a.name); err != nil {
		return requestID, err
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return requestID, fmt.Errorf("timaker %s: encoding the request: %w", a.name, err)
	}
	attempts := 1
	if a.idempotent {
		attempts += c.retries()
	}
	for attempt := 1; ; attempt++ {
		res := c.attempt(ctx, a, requestID, payload, out, attempt, attempts)
		if res.err == nil {
			return res.answerID, nil
		}
		var apiErr *APIError
		if errors.As(res.err, &apiErr) && !(a.idempotent && res.retryable) {
			return res.answerID, apiErr.coded(c.now())
		}
		if !a.idempotent {
			if res.uncertain && a.name == ActionCreateTrainingJob {
				return requestID, failure(ctx, &MaybeCreatedError{Action: a.name, RequestID: requestID, Err: res.err}, maybeCreatedHint)
			}
			return requestID, failure(ctx, prefixed(a.name, res.err), "")
		}
		if !res.retryable || attempt >= attempts {
			switch {
			case attempt > 1:
				return requestID, failure(ctx, &RetriesError{Action: a.name, Attempts: attempt, Err: res.err}, "")
			case errors.As(res.err, &apiErr):
				return res.answerID, apiErr.coded(c.now())
			default:
				return requestID, failure(ctx, prefixed(a.name, res.err), "")
			}
		}
		wait := c.backoff(attempt)
		if res.retryAfter > wait {
			wait = min(res.retryAfter, c.maxWait())
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return requestID, fmt.Errorf("timaker %s: %w (after %d attempts; the last: %v)", a.name, ctx.Err(), attempt, res.err)
		case <-timer.C:
		}
	}
}

// prefixed names the action in err unless err already does.
func prefixed(action string, err error) error {
	var bad *badResponseError
	if errors.As(err, &bad) {
		return err
	}
	return fmt.Errorf("timaker %s: %w", action, err)
}

// failure gives err its exit code: 1, or what the caller's context says
// when it ended (130 interrupted, 5 timed out).
func failure(ctx context.Context, err error, hint string) error {
	code := exit.Error
	if ctx.Err() != nil {
		code = exit.Code(ctx.Err())
	}
	return &exit.CodedError{Code: code, Err: err, Hint: hint}
}

// result is how one attempt ended.
type result struct {
	answerID   string // the service's RequestId, else the one sent
	err        error
	uncertain  bool // the service may have done what was asked
	retryable  bool
	retryAfter time.Duration
}

func (c *Client) attempt(ctx context.Context, a action, requestID string, payload []byte, out any, attempt, attempts int) result {
	res := result{answerID: requestID}
	timeout := c.timeout()
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	resp, body, wrote, err := c.send(actx, a, payload)
	elapsed := time.Since(start).Round(time.Millisecond)
	if err != nil {
		res.uncertain = wrote || resp != nil
		if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s", timeout)
		}
		res.err = err
		res.retryable = ctx.Err() == nil && !permanent(err)
		klog.V(6).Infof("timaker %s: %v after %s (request id %s, attempt %d of %d)", a.name, err, elapsed, requestID, attempt, attempts)
		return res
	}
	logBody(a.name, "answer", body)
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		klog.V(6).Infof("timaker %s: HTTP %d in %s (request id %s, attempt %d of %d)", a.name, resp.StatusCode, elapsed, requestID, attempt, attempts)
		res.err = &statusError{Status: resp.StatusCode, Body: body}
		res.retryable = true
		res.retryAfter = retryAfter(resp.Header)
		// A throttled request was not run; a failed gateway may have
		// passed it on before failing.
		res.uncertain = resp.StatusCode >= 500
		return res
	}
	answerID, err := decodeResponse(a.name, resp.StatusCode, body, out)
	if answerID != "" {
		res.answerID = answerID
	}
	klog.V(6).Infof("timaker %s: HTTP %d in %s (request id %s, answer id %s, attempt %d of %d)", a.name, resp.StatusCode, elapsed, requestID, OneLine(answerID, 100), attempt, attempts)
	if err != nil {
		res.failed(err, resp.StatusCode)
	}
	return res
}

// send sends one request and reads its answer, at most MaxResponseBytes+1
// of it; wrote says whether the request was written (the service may have
// read it even when err is not nil).
func (c *Client) send(ctx context.Context, a action, payload []byte) (resp *http.Response, body []byte, wrote bool, err error) {
	var written atomic.Bool
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { written.Store(true) },
	})
	req, err := c.newRequest(ctx, a.service, a.version, a.name, payload)
	if err != nil {
		return nil, nil, false, err
	}
	logBody(a.name, "request", payload)
	resp, err = c.httpClient().Do(req)
	if err == nil {
		body, err = io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
		resp.Body.Close()
	}
	return resp, body, written.Load(), err
}

// failed records err, the error of an answer with HTTP status: the
// service's own error is retried when it says so (InternalError,
// RequestLimitExceeded); an answer that does not parse may still come from
// a service that did the work.
func (res *result) failed(err error, status int) {
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		apiErr.RequestID = res.answerID
		res.retryable = hasCodePrefix(apiErr.Code, "InternalError") || hasCodePrefix(apiErr.Code, "RequestLimitExceeded")
	} else {
		res.uncertain = status >= 200 && status <= 299
	}
	res.err = err
}

// permanent says whether a transport error will not go away by trying
// again: the server's certificate, or TLS spoken to a plain HTTP server.
func permanent(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &record)
}

// retryAfter reads a Retry-After header in seconds; 0 when absent.
func retryAfter(h http.Header) time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || s <= 0 {
		return 0
	}
	return time.Duration(min(s, 3600)) * time.Second
}

// backoff is the wait before attempt+1: exponential from minBackoff,
// capped, with its second half random so clients spread out.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.minWait()
	for i := 1; i < attempt && d < c.maxWait(); i++ {
		d *= 2
	}
	d = min(d, c.maxWait())
	return d/2 + mathrand.N(d/2+1)
}

func (c *Client) minWait() time.Duration {
	if c.minBackoff > 0 {
		return c.minBackoff
	}
	return minBackoff
}

func (c *Client) maxWait() time.Duration {
	if c.maxBackoff > 0 {
		return c.maxBackoff
	}
	return maxBackoff
}

func (c *Client) retries() int {
	switch {
	case c.Retries < 0:
		return 0
	case c.Retries == 0:
		return DefaultRetries
	default:
		return c.Retries
	}
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Client) newRequestID() string {
	if c.NewRequestID != nil {
		return c.NewRequestID()
	}
	return newUUID()
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return defaultHTTPClient()
}

// defaultHTTPClient follows no redirects: a signed POST goes to the
// gateway configured, or fails.
var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	return &http.Client{
		Transport: http.DefaultTransport.(*http.Transport).Clone(),
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
})

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// decodeResponse reads an answer's Response into out and returns its
// RequestId. The error is an *APIError for an answered error, else a
// *badResponseError; what it quotes of the body is bounded.
func decodeResponse(action string, status int, body []byte, out any) (string, error) {
	bad := func(why string) error {
		return &badResponseError{Action: action, Status: status, Body: body, Why: why}
	}
	if len(body) > MaxResponseBytes {
		return "", &badResponseError{Action: action, Status: status, Why: fmt.Sprintf("the answer is larger than %d bytes", MaxResponseBytes)}
	}
	var envelope struct{ Response json.RawMessage }
	if err := json.Unmarshal(body, &envelope); err != nil {
		return "", bad("the answer is not timaker's JSON")
	}
	if len(envelope.Response) == 0 || envelope.Response[0] != '{' {
		return "", bad(`the answer has no "Response" object`)
	}
	var head struct {
		RequestId string
		Error     *struct{ Code, Message string }
	}
	if err := json.Unmarshal(envelope.Response, &head); err != nil {
		return "", bad("the answer's Response does not parse")
	}
	if e := head.Error; e != nil && (e.Code != "" || e.Message != "") {
		code := e.Code
		if code == "" {
			code = "(no code)"
		}
		return head.RequestId, &APIError{Action: action, Code: code, Message: e.Message, RequestID: head.RequestId}
	}
	if status < 200 || status > 299 {
		return head.RequestId, bad("an unexpected status, without an error")
	}
	if out != nil {
		if err := json.Unmarshal(envelope.Response, out); err != nil {
			return head.RequestId, bad("the answer's Response does not parse (" + OneLine(err.Error(), 200) + ")")
		}
	}
	return head.RequestId, nil
}

// logBody logs a request or answer body at -v 8, its secrets redacted.
func logBody(action, what string, body []byte) {
	if v := klog.V(8); v.Enabled() {
		v.Infof("timaker %s %s: %s", action, what, redactBody(body))
	}
}
