// Package server is a contract test server of timaker's training API as
// reached through Ti-Gateway: it checks every request's Ti-sign signature
// and headers, answers CreateTrainingJob, StopTrainingJob,
// DescribeTrainingJob and the resource server's two queries, and walks
// each job through timaker's statuses on a clock.
//
// It is not timaker. No public timaker server, SDK or API document
// exists: this contract was derived from public adapter code (the
// requests it sends, the answers it reads, the status names it knows) and
// from the gateway's public signer. Passing against it shows a client
// keeps that contract, not that the real service accepts it. Where the
// sources say nothing (error codes of malformed requests, stopping a job
// that has ended, how resources are counted) its choices are documented
// beside the code.
package server

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/easyai-dev/easyai/pkg/timaker/tisign"
)

// The services and versions of the API.
const (
	ServiceTimaker  = "timaker"
	VersionTimaker  = "2020-10-12"
	ServiceResource = "ti-resource-server"
	VersionResource = "2020-10-10"
)

// MaxBodyBytes bounds a request's body.
const MaxBodyBytes = 1 << 20

// The statuses a job walks through.
const (
	StatusJobReceived     = "JobReceived"
	StatusPrepareInstance = "PrepareInstance"
	StatusInstanceReady   = "InstanceReady"
	StatusTraining        = "Training"
	StatusCompleted       = "Completed"
	StatusFailed          = "Failed"
	StatusPreStopped      = "PreStopped"
	StatusStopping        = "Stopping"
	StatusStopped         = "Stopped"
)

// Amounts are resources: CPU in 1/1000 of a core, memory in MB, GPUs of
// each type in 1/100 of a GPU (VGpu: jobs that name no GPU type).
type Amounts struct {
	Cpu    int64
	Memory int64
	VGpu   int64
	V100   int64
	A100   int64
	T4     int64
	P40    int64
}

// DefaultTotal is the train pool of a server whose Options name none:
// 64 cores, 256 GiB and 8 V100s.
var DefaultTotal = Amounts{Cpu: 64000, Memory: 262144, V100: 800}

// Options configure a Server. Zero values are defaults.
type Options struct {
	// Host is the gateway's host name: signatures are checked against it.
	// Empty: against each request's own Host header.
	Host string
	// Credentials map secret ids to their keys.
	Credentials map[string]string
	// Now is the server's clock: it checks timestamps and walks jobs.
	// Nil: time.Now.
	Now func() time.Time
	// Step is how long a job stays in each status; 0: one second.
	Step time.Duration
	// TrainFor is how many steps a job trains; 0: 3.
	TrainFor int
	// Total is the train pool; zero: DefaultTotal. ElasticTotal is the
	// pool of elastic jobs (none by default).
	Total, ElasticTotal Amounts
	// Logf, when set, gets a line per request: its action and outcome.
	Logf func(format string, args ...any)
}

// APIErrorBody is an error answered in Response.Error.
type APIErrorBody struct {
	Code    string
	Message string
}

func (e *APIErrorBody) Error() string { return e.Code + ": " + e.Message }

// Fault is what Inject makes the next Count calls of an action get: a
// wait of Delay, then Status (an HTTP status with a text body), or Error
// (answered as the service does), or when neither is set the usual answer.
type Fault struct {
	Count  int
	Error  *APIErrorBody
	Status int
	Delay  time.Duration
}

// Request is a request as the server received it.
type Request struct {
	Time    time.Time
	Action  string
	Service string
	Version string
	Body    map[string]any // nil when the body is not a JSON object
	Header  http.Header    // without Authorization
}

// Server is the contract test server; an http.Handler safe for
// concurrent use.
type Server struct {
	opts Options

	mu         sync.Mutex
	jobs       map[string]*job
	faults     map[string][]Fault
	requests   []Request
	lastJob    int
	lastAnswer int
}

// New returns a server with no jobs.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Step <= 0 {
		opts.Step = time.Second
	}
	if opts.TrainFor <= 0 {
		opts.TrainFor = 3
	}
	if opts.Total == (Amounts{}) {
		opts.Total = DefaultTotal
	}
	return &Server{opts: opts, jobs: map[string]*job{}, faults: map[string][]Fault{}}
}

// Inject makes the next f.Count calls of action (that pass the signature
// check) get the fault. Faults of one action queue up in order.
func (s *Server) Inject(action string, f Fault) {
	if f.Count <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[action] = append(s.faults[action], f)
}

// Requests returns every request received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Header = r.Header.Clone()
		out[i] = r
	}
	return out
}

// ServeHTTP answers POST /gateway.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/gateway" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "only POST", http.StatusMethodNotAllowed)
		return
	}
	action := r.Header.Get("X-TC-Action")
	body, readErr := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	s.record(r, body)

	answer, apiErr := s.serve(w, r, action, body, readErr)
	if answer == nil && apiErr == nil {
		return // a fault answered an HTTP status
	}
	s.mu.Lock()
	s.lastAnswer++
	requestID := fmt.Sprintf("timakerd-%d", s.lastAnswer)
	s.mu.Unlock()
	if apiErr != nil {
		answer = map[string]any{"Error": apiErr}
		s.logf("%s: %s (%s)", action, apiErr, requestID)
	} else {
		s.logf("%s: OK (%s)", action, requestID)
	}
	answer["RequestId"] = requestID
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"Response": answer})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, action string, body []byte, readErr error) (map[string]any, *APIErrorBody) {
	if readErr != nil {
		return nil, &APIErrorBody{"InvalidParameter", fmt.Sprintf("the request body could not be read (at most %d bytes): %v", MaxBodyBytes, readErr)}
	}
	if err := s.verify(r); err != nil {
		return nil, err
	}
	spec, err := route(action, r.Header.Get("X-TC-Service"), r.Header.Get("X-TC-Version"))
	if err != nil {
		return nil, err
	}
	if f, ok := s.takeFault(action); ok {
		if f.Delay > 0 {
			t := time.NewTimer(f.Delay)
			select {
			case <-r.Context().Done():
				t.Stop()
				return nil, nil
			case <-t.C:
			}
		}
		switch {
		case f.Status != 0:
			s.logf("%s: injected HTTP %d", action, f.Status)
			http.Error(w, http.StatusText(f.Status), f.Status)
			return nil, nil
		case f.Error != nil:
			return nil, f.Error
		}
	}
	return spec.handle(s, body)
}

// takeFault takes one call from the first fault queued for action.
func (s *Server) takeFault(action string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.faults[action]
	if len(q) == 0 {
		return Fault{}, false
	}
	f := q[0]
	if q[0].Count--; q[0].Count == 0 {
		q = q[1:]
	}
	if len(q) == 0 {
		delete(s.faults, action)
	} else {
		s.faults[action] = q
	}
	return f, true
}

func (s *Server) record(r *http.Request, body []byte) {
	h := r.Header.Clone()
	h.Del("Authorization")
	if r.Host != "" {
		h.Set("Host", r.Host)
	}
	var decoded map[string]any
	if json.Unmarshal(body, &decoded) != nil {
		decoded = nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{
		Time:    s.opts.Now(),
		Action:  r.Header.Get("X-TC-Action"),
		Service: r.Header.Get("X-TC-Service"),
		Version: r.Header.Get("X-TC-Version"),
		Body:    decoded,
		Header:  h,
	})
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// verify checks a request's gateway headers and signature. The codes are
// TC3's; which one a malformed Authorization gets is this server's choice.
func (s *Server) verify(r *http.Request) *APIErrorBody {
	invalid := func(format string, args ...any) *APIErrorBody {
		return &APIErrorBody{"AuthFailure.InvalidAuthorization", fmt.Sprintf(format, args...)}
	}
	ct := r.Header.Get("Content-Type")
	if ct != "application/json" {
		return &APIErrorBody{"InvalidParameter", fmt.Sprintf("Content-Type is %q; it must be application/json", ct)}
	}
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return invalid("the request has no Authorization header")
	}
	rest, ok := strings.CutPrefix(auth, tisign.Algorithm+" ")
	if !ok {
		return invalid("Authorization does not start with %s", tisign.Algorithm)
	}
	fields := map[string]string{}
	for part := range strings.SplitSeq(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || fields[k] != "" || v == "" {
			return invalid("Authorization is not Credential=..., SignedHeaders=..., Signature=...")
		}
		fields[k] = v
	}
	if len(fields) != 3 || fields["Credential"] == "" || fields["SignedHeaders"] == "" || fields["Signature"] == "" {
		return invalid("Authorization is not Credential=..., SignedHeaders=..., Signature=...")
	}
	if fields["SignedHeaders"] != tisign.SignedHeaders {
		return invalid("SignedHeaders is %q; the gateway signs %q", fields["SignedHeaders"], tisign.SignedHeaders)
	}
	cred := strings.Split(fields["Credential"], "/")
	if len(cred) != 4 || cred[0] == "" || cred[3] != "tc3_request" {
		return invalid("Credential is not SECRETID/DATE/SERVICE/tc3_request")
	}
	key, ok := s.opts.Credentials[cred[0]]
	if !ok {
		return &APIErrorBody{"AuthFailure.SecretIdNotFound", fmt.Sprintf("the secret id %q does not exist", cred[0])}
	}
	ts, err := strconv.ParseInt(r.Header.Get("X-TC-Timestamp"), 10, 64)
	if err != nil {
		return invalid("X-TC-Timestamp %q is not a Unix time in seconds", r.Header.Get("X-TC-Timestamp"))
	}
	now := s.opts.Now()
	signed := time.Unix(ts, 0)
	if d := now.Sub(signed); d > tisign.Validity || d < -tisign.Validity {
		return &APIErrorBody{"AuthFailure.SignatureExpire", fmt.Sprintf("the request was signed at %s, more than %v from the gateway's clock (%s)",
			signed.UTC().Format(time.RFC3339), tisign.Validity, now.UTC().Format(time.RFC3339))}
	}
	service := r.Header.Get("X-TC-Service")
	if cred[2] != service {
		return invalid("the credential's scope names service %q, X-TC-Service %q", cred[2], service)
	}
	if date := signed.UTC().Format("2006-01-02"); cred[1] != date {
		return invalid("the credential's scope date %q is not the timestamp's UTC date %s", cred[1], date)
	}
	host := s.opts.Host
	if host == "" {
		host = r.Host
	}
	in := tisign.Input{Method: r.Method, ContentType: ct, Host: host, Service: service, Timestamp: ts}
	if subtle.ConstantTimeCompare([]byte(tisign.Signature(in, key)), []byte(fields["Signature"])) != 1 {
		msg := "the signature does not match the request"
		if r.Host != host {
			msg += fmt.Sprintf(" (its Host is %q; this gateway's is %q)", r.Host, host)
		}
		return &APIErrorBody{"AuthFailure.SignatureFailure", msg}
	}
	return nil
}

// actionSpec is an action's service, version and handler.
type actionSpec struct {
	service, version string
	handle           func(s *Server, body []byte) (map[string]any, *APIErrorBody)
}

var actions = map[string]actionSpec{
	"v1/CreateTrainingJob":                                   {ServiceTimaker, VersionTimaker, (*Server).create},
	"v1/StartTrainingJob":                                    {ServiceTimaker, VersionTimaker, (*Server).start},
	"v1/StopTrainingJob":                                     {ServiceTimaker, VersionTimaker, (*Server).stop},
	"v1/DescribeTrainingJob":                                 {ServiceTimaker, VersionTimaker, (*Server).describe},
	"ResourceServer/Resources/GetTotalAppGroupResources":     {ServiceResource, VersionResource, (*Server).totalResources},
	"ResourceServer/Resources/GetAvailableAppGroupResources": {ServiceResource, VersionResource, (*Server).availableResources},
}

func route(action, service, version string) (actionSpec, *APIErrorBody) {
	spec, ok := actions[action]
	switch {
	case !ok:
		return spec, &APIErrorBody{"InvalidAction", fmt.Sprintf("the action %q does not exist", action)}
	case spec.service != service:
		return spec, &APIErrorBody{"InvalidAction", fmt.Sprintf("the action %q is not one of service %q", action, service)}
	case spec.version != version:
		return spec, &APIErrorBody{"NoSuchVersion", fmt.Sprintf("service %q has no version %q (it has %s)", service, version, spec.version)}
	}
	return spec, nil
}

// The bodies of the actions. Their field names are the JSON keys,
// matched exactly (see decode).
type (
	createRequest struct {
		Uin                    string
		RequestId              string
		TiProjectId            int32
		TrainingJobName        string
		TrainingJobSource      string
		ResourceConfig         resourceConfig
		EnvConfig              []env
		AlgorithmSpecification algorithmSpecification
		Elastic                bool
		RestartPolicy          struct{ PolicyName string }
	}
	resourceConfig struct {
		Memory        int32
		CpuNum        int32
		GpuNum        int32
		GpuType       string
		InstanceCount int32
		RDMAConfig    struct{ Enable bool }
	}
	env                    struct{ Name, Value string }
	algorithmSpecification struct {
		EntryPoint        string
		TrainingImageName string
		AlgorithmSource   *struct {
			FileSystemDataSource *struct {
				FileSystemType     string
				DirectoryPath      string
				ReadOnly           bool
				FileSystemEndpoint string
				User               string
				SecretKey          string
			}
		}
	}
	jobRequest struct {
		Uin           string
		RequestId     string
		TiProjectId   int32
		TrainingJobId string
	}
	resourceRequest struct {
		Uin        string
		RequestId  string
		AppGroupId int32
	}
)

// decode reads body into v (a pointer to one of the request types). JSON
// keys must be the field names exactly: encoding/json alone would accept
// any case, and a client that sends "cpuNum" must fail here.
func decode(body []byte, v any) *APIErrorBody {
	var raw map[string]any
	if err := json.Unmarshal(body, &raw); err != nil {
		return &APIErrorBody{"InvalidParameter", "the body is not a JSON object: " + err.Error()}
	}
	if err := checkKeys("", raw, reflect.TypeOf(v).Elem()); err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return &APIErrorBody{"InvalidParameter", fmt.Sprintf("%s: %s is not a %s", typeErr.Field, typeErr.Value, typeErr.Type)}
		}
		return &APIErrorBody{"InvalidParameter", err.Error()}
	}
	return nil
}

func checkKeys(path string, v any, t reflect.Type) *APIErrorBody {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return nil // null, or a type error json.Unmarshal names
		}
		for k, x := range m {
			f, ok := t.FieldByName(k)
			if !ok || !f.IsExported() {
				return &APIErrorBody{"UnknownParameter", fmt.Sprintf("the parameter %s is not recognized", path+k)}
			}
			if err := checkKeys(path+k+".", x, f.Type); err != nil {
				return err
			}
		}
	case reflect.Slice:
		items, _ := v.([]any)
		for i, x := range items {
			if err := checkKeys(fmt.Sprintf("%s[%d].", strings.TrimSuffix(path, "."), i), x, t.Elem()); err != nil {
				return err
			}
		}
	}
	return nil
}

func missing(field string) *APIErrorBody {
	return &APIErrorBody{"InvalidParameter", "the parameter " + field + " is required"}
}

// envName is a Linux environment variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (s *Server) create(body []byte) (map[string]any, *APIErrorBody) {
	var req createRequest
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	rc := req.ResourceConfig
	switch {
	case req.Uin == "":
		return nil, missing("Uin")
	case req.TiProjectId < 1:
		return nil, missing("TiProjectId")
	case req.TrainingJobName == "":
		return nil, missing("TrainingJobName")
	case req.AlgorithmSpecification.TrainingImageName == "":
		return nil, missing("AlgorithmSpecification.TrainingImageName")
	case req.AlgorithmSpecification.EntryPoint == "":
		return nil, missing("AlgorithmSpecification.EntryPoint")
	case rc.InstanceCount < 1:
		return nil, &APIErrorBody{"InvalidParameter", "ResourceConfig.InstanceCount must be at least 1"}
	case rc.Memory < 0 || rc.CpuNum < 0 || rc.GpuNum < 0:
		return nil, &APIErrorBody{"InvalidParameter", "ResourceConfig's Memory, CpuNum and GpuNum cannot be negative"}
	}
	if _, ok := gpuColumn(rc.GpuType); !ok {
		return nil, &APIErrorBody{"InvalidParameter", fmt.Sprintf("ResourceConfig.GpuType %q is not one of V100, A100, T4, P40 (empty: vGPU)", rc.GpuType)}
	}
	for i, e := range req.EnvConfig {
		if !envName.MatchString(e.Name) {
			return nil, &APIErrorBody{"InvalidParameter", fmt.Sprintf("EnvConfig[%d].Name %q is not an environment variable name", i, e.Name)}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastJob++
	j := &job{
		id:      fmt.Sprintf("train-%d", s.lastJob),
		uin:     req.Uin,
		project: req.TiProjectId,
		created: s.opts.Now(),
		fail:    failWord.MatchString(req.AlgorithmSpecification.EntryPoint),
		elastic: req.Elastic,
		res:     rc,
	}
	s.jobs[j.id] = j
	return map[string]any{"TrainingJobId": j.id}, nil
}

// failWord makes a job fail: an entry point with the word "fail".
var failWord = regexp.MustCompile(`\bfail\b`)

// find is the job a request names, of the request's user and project.
// The caller holds s.mu.
func (s *Server) find(req *jobRequest) (*job, *APIErrorBody) {
	switch {
	case req.Uin == "":
		return nil, missing("Uin")
	case req.TiProjectId < 1:
		return nil, missing("TiProjectId")
	case req.TrainingJobId == "":
		return nil, missing("TrainingJobId")
	}
	j, ok := s.jobs[req.TrainingJobId]
	if !ok || j.uin != req.Uin || j.project != req.TiProjectId {
		return nil, &APIErrorBody{"ResourceNotFound.TrainingJob", fmt.Sprintf("the training job %q does not exist", req.TrainingJobId)}
	}
	return j, nil
}

// start answers as the service does after Create, which starts the job.
func (s *Server) start(body []byte) (map[string]any, *APIErrorBody) {
	var req jobRequest
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.find(&req); err != nil {
		return nil, err
	}
	return nil, &APIErrorBody{"FailedOperation", fmt.Sprintf("the training job %q has already started: CreateTrainingJob starts it", req.TrainingJobId)}
}

// stop stops a job. Stopping one that stops or stopped already succeeds;
// one that completed or failed answers FailedOperation (this server's
// choice: the sources do not say).
func (s *Server) stop(body []byte) (map[string]any, *APIErrorBody) {
	var req jobRequest
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j, err := s.find(&req)
	if err != nil {
		return nil, err
	}
	now := s.opts.Now()
	st := j.state(now, s.opts)
	switch st.status {
	case StatusCompleted, StatusFailed:
		return nil, &APIErrorBody{"FailedOperation", fmt.Sprintf("the training job %q has already ended: %s", j.id, st.status)}
	case StatusPreStopped, StatusStopping, StatusStopped:
		return map[string]any{}, nil
	}
	j.stopped, j.stopAt = true, now
	return map[string]any{}, nil
}

func (s *Server) describe(body []byte) (map[string]any, *APIErrorBody) {
	var req jobRequest
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	j, err := s.find(&req)
	if err != nil {
		return nil, err
	}
	st := j.state(s.opts.Now(), s.opts)
	answer := map[string]any{
		"TrainingJobId":      j.id,
		"TrainingJobStatus":  st.status,
		"TrainingCreateTime": formatTime(j.created),
		"TrainingEndTime":    "",
		"FailureCode":        "",
		"FailureReason":      "",
		"InstanceId":         "",
	}
	if st.ended {
		answer["TrainingEndTime"] = formatTime(st.end)
	}
	if st.status == StatusFailed {
		answer["FailureCode"] = "ExitCode1"
		answer["FailureReason"] = "the training command exited with 1"
	}
	if st.instance {
		answer["InstanceId"] = "ins-" + strings.TrimPrefix(j.id, "train-")
	}
	return answer, nil
}

func (s *Server) totalResources(body []byte) (map[string]any, *APIErrorBody) {
	if _, err := decodeResourceRequest(body); err != nil {
		return nil, err
	}
	return map[string]any{"Resources": map[string]Amounts{"Train": s.opts.Total, "Elastic": s.opts.ElasticTotal}}, nil
}

// availableResources is the total less what jobs hold: every job from
// its creation until it ends holds its instances' resources (a real
// scheduler might queue jobs that do not fit; this one never refuses).
// Amounts do not go below zero.
func (s *Server) availableResources(body []byte) (map[string]any, *APIErrorBody) {
	if _, err := decodeResourceRequest(body); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	train, elastic := s.opts.Total, s.opts.ElasticTotal
	now := s.opts.Now()
	for _, j := range s.jobs {
		if j.state(now, s.opts).ended {
			continue
		}
		pool := &train
		if j.elastic {
			pool = &elastic
		}
		n := int64(j.res.InstanceCount)
		pool.Cpu -= n * int64(j.res.CpuNum)
		pool.Memory -= n * int64(j.res.Memory)
		column, _ := gpuColumn(j.res.GpuType)
		*column(pool) -= n * int64(j.res.GpuNum)
	}
	return map[string]any{"Resources": map[string]Amounts{"Train": floor(train), "Elastic": floor(elastic)}}, nil
}

func decodeResourceRequest(body []byte) (*resourceRequest, *APIErrorBody) {
	var req resourceRequest
	if err := decode(body, &req); err != nil {
		return nil, err
	}
	if req.Uin == "" {
		return nil, missing("Uin")
	}
	return &req, nil
}

// gpuColumn is the Amounts field that counts GPUs of a type.
func gpuColumn(gpuType string) (func(*Amounts) *int64, bool) {
	switch gpuType {
	case "":
		return func(a *Amounts) *int64 { return &a.VGpu }, true
	case "V100":
		return func(a *Amounts) *int64 { return &a.V100 }, true
	case "A100":
		return func(a *Amounts) *int64 { return &a.A100 }, true
	case "T4":
		return func(a *Amounts) *int64 { return &a.T4 }, true
	case "P40":
		return func(a *Amounts) *int64 { return &a.P40 }, true
	}
	return nil, false
}

func floor(a Amounts) Amounts {
	for _, p := range []*int64{&a.Cpu, &a.Memory, &a.VGpu, &a.V100, &a.A100, &a.T4, &a.P40} {
		*p = max(*p, 0)
	}
	return a
}

// shanghai is UTC+8, timaker's time zone.
var shanghai = time.FixedZone("UTC+8", 8*60*60)

func formatTime(t time.Time) string {
	return t.In(shanghai).Format("2006-01-02 15:04:05")
}

// job is a training job; its status follows from the clock.
type job struct {
	id      string
	uin     string
	project int32
	created time.Time
	fail    bool
	elastic bool
	res     resourceConfig
	stopped bool
	stopAt  time.Time
}

type jobState struct {
	status   string
	ended    bool
	end      time.Time
	instance bool // it has an instance
}

// state is where the job is at now: a step of opts.Step in each of
// JobReceived, PrepareInstance and InstanceReady, opts.TrainFor steps
// Training, then Completed (Failed for a "fail" job); once stopped, a step
// in PreStopped and in Stopping, then Stopped.
func (j *job) state(now time.Time, opts Options) jobState {
	at := func(t time.Time) jobState {
		steps := int(max(t.Sub(j.created), 0) / opts.Step)
		switch {
		case steps == 0:
			return jobState{status: StatusJobReceived}
		case steps == 1:
			return jobState{status: StatusPrepareInstance}
		case steps == 2:
			return jobState{status: StatusInstanceReady, instance: true}
		case steps < 3+opts.TrainFor:
			return jobState{status: StatusTraining, instance: true}
		}
		st := jobState{status: StatusCompleted, ended: true, end: j.created.Add(time.Duration(3+opts.TrainFor) * opts.Step), instance: true}
		if j.fail {
			st.status = StatusFailed
		}
		return st
	}
	if !j.stopped || now.Before(j.stopAt) {
		return at(now)
	}
	before := at(j.stopAt)
	switch steps := int(now.Sub(j.stopAt) / opts.Step); {
	case steps == 0:
		before.status = StatusPreStopped
	case steps == 1:
		before.status = StatusStopping
	default:
		before = jobState{status: StatusStopped, ended: true, end: j.stopAt.Add(2 * opts.Step), instance: before.instance}
	}
	return before
}
