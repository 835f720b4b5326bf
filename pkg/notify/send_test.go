package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

var (
	started  = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	finished = started.Add(3*time.Minute + 4*time.Second)
	sentAt   = time.Date(2025, 3, 1, 10, 3, 5, 0, time.FixedZone("CET", 3600))
)

// failedJob is get's document of tf/mnist in team-a, whose worker-1 exited 1.
func failedJob() *jobmodel.Document {
	one, zero := int32(1), int32(0)
	doc := &jobmodel.Document{
		APIVersion: jobmodel.APIVersion,
		Item: jobmodel.Item{
			DocumentKind: jobmodel.JobDocumentKind,
			Summary: jobmodel.Summary{
				Name: "mnist", Namespace: "team-a",
				Status:  jobmodel.Status{State: jobmodel.Failed, Reason: "TFJobFailed", Message: "TFJob team-a/mnist has failed"},
				Workers: jobmodel.ReplicaCount{Ready: 0, Total: 2}, Created: started, Started: &started, Finished: &finished,
			},
			KindName: "tf", ObjectAPIVersion: "kubeflow.org/v1", ObjectKind: "TFJob", DurationSeconds: 184,
		},
		Image: "example.com/train:1",
		Replicas: []jobmodel.Replica{
			{Task: "worker-0", Role: "worker", Phase: "Succeeded", ExitCode: &zero},
			{Task: "worker-1", Role: "worker", Index: 1, Phase: "Failed", ExitCode: &one},
		},
		Events: []jobmodel.Event{},
	}
	return doc
}

func TestMessages(t *testing.T) {
	succeeded := failedJob()
	succeeded.Status = jobmodel.Status{State: jobmodel.Succeeded}
	running := failedJob()
	running.Status, running.Finished, running.Workers.Ready = jobmodel.Status{State: jobmodel.Running}, nil, 2
	neverStarted := failedJob()
	neverStarted.Started, neverStarted.Replicas = nil, nil
	queued := failedJob()
	queued.Status, queued.Started = jobmodel.Status{State: jobmodel.Queued}, nil
	where := "namespace team-a"
	for _, tt := range []struct {
		o    Outcome
		want string
	}{
		{Outcome{Event: Failed, Job: failedJob(), Where: where}, "tf/mnist in namespace team-a failed after 3m4s (exit code 1 in worker-1)"},
		{Outcome{Event: Failed, Job: neverStarted, Where: where}, "tf/mnist in namespace team-a failed (TFJobFailed)"},
		{Outcome{Event: Succeeded, Job: succeeded, Where: where}, "tf/mnist in namespace team-a succeeded after 3m4s"},
		{Outcome{Event: Running, Job: running, Where: where}, "tf/mnist in namespace team-a is running (2/2 replicas)"},
		{Outcome{Event: TimedOut, Job: queued, Where: where, Timeout: time.Hour}, "the wait for tf/mnist in namespace team-a timed out after 1h: it is Queued"},
		{Outcome{Event: TimedOut, Job: running, Where: where, Timeout: 90 * time.Second}, "the wait for tf/mnist in namespace team-a timed out after 1m30s: it is Running"},
		{Outcome{Event: Deleted, Job: running, Where: "timaker cluster prod"}, "tf/mnist in timaker cluster prod was deleted while easyai waited for it"},
		{Outcome{Event: Suspended, Job: running, Where: where}, "tf/mnist in namespace team-a is suspended"},
	} {
		if got := Message(tt.o); got != tt.want {
			t.Errorf("%s: %q\nwant %q", tt.o.Event, got, tt.want)
		}
	}
}

// hook is a test webhook: what it received, and its answer.
type hook struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   [][]byte
	headers  []http.Header
	status   int
	answer   string
	holdFor  time.Duration
	redirect string
}

func newHook(t *testing.T, status int) *hook {
	h := &hook{status: status}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, body)
		h.headers = append(h.headers, r.Header.Clone())
		h.mu.Unlock()
		if r.Method != http.MethodPost {
			t.Errorf("%s %s, want POST", r.Method, r.URL.Path)
		}
		if h.holdFor > 0 {
			select {
			case <-time.After(h.holdFor):
			case <-r.Context().Done():
			}
		}
		if h.redirect != "" {
			http.Redirect(w, r, h.redirect, http.StatusFound)
			return
		}
		w.WriteHeader(h.status)
		io.WriteString(w, h.answer)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hook) received() [][]byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bodies
}

// url is the hook's URL with the secret path every URL of these tests has.
func (h *hook) url(prefix string) string { return prefix + h.URL + "/hooks/" + secret }

func webhooks(t *testing.T, raws ...string) []Webhook {
	var ws []Webhook
	for i, raw := range raws {
		w, err := ParseWebhook(raw, i+1)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	return ws
}

func notifier(t *testing.T, warnings io.Writer, raws ...string) *Notifier {
	return &Notifier{
		Webhooks: webhooks(t, raws...), When: When{Finished: true}, Warnings: warnings,
		UserAgent: "easyai/test", Timeout: 2 * time.Second, RetryPause: 10 * time.Millisecond,
		Now: func() time.Time { return sentAt },
	}
}

// TestPayloads: one POST per webhook, each in its format: the JSON
// Notification with the job's document, Slack's text (its markup
// escaped), a Teams MessageCard.
func TestPayloads(t *testing.T) {
	plain, slack, teams := newHook(t, 200), newHook(t, 200), newHook(t, 202)
	var warnings bytes.Buffer
	n := notifier(t, &warnings, plain.url(""), slack.url("slack:"), teams.url("teams:"))
	doc := failedJob()
	doc.Status.Reason = "<!channel> & co"
	doc.Replicas = nil
	if failed := n.Notify(context.Background(), Outcome{Event: Failed, Job: doc, Where: "namespace team-a"}); failed != 0 || warnings.Len() > 0 {
		t.Fatalf("%d failed: %s", failed, warnings.String())
	}
	for name, h := range map[string]*hook{"plain": plain, "slack": slack, "teams": teams} {
		if len(h.received()) != 1 {
			t.Fatalf("%s received %d POSTs, want 1", name, len(h.received()))
		}
		if ct, ua := h.headers[0].Get("Content-Type"), h.headers[0].Get("User-Agent"); ct != "application/json" || ua != "easyai/test" {
			t.Errorf("%s: Content-Type %q, User-Agent %q", name, ct, ua)
		}
	}

	var got struct {
		APIVersion string          `json:"apiVersion"`
		Kind       string          `json:"kind"`
		Event      string          `json:"event"`
		Message    string          `json:"message"`
		Time       string          `json:"time"`
		Job        json.RawMessage `json:"job"`
	}
	if err := json.Unmarshal(plain.received()[0], &got); err != nil {
		t.Fatalf("%v: %s", err, plain.received()[0])
	}
	wantMessage := "tf/mnist in namespace team-a failed after 3m4s (<!channel> & co)"
	if got.APIVersion != "easyai.io/v2" || got.Kind != "Notification" || got.Event != "failed" ||
		got.Message != wantMessage || got.Time != "2025-03-01T09:03:05Z" {
		t.Errorf("notification %+v", got)
	}
	var job struct {
		Name, Namespace, JobKind, State, Reason, Get string
	}
	if err := json.Unmarshal(got.Job, &job); err != nil || job.Name != "mnist" || job.Namespace != "team-a" || job.JobKind != "tf" ||
		job.State != "Failed" || job.Reason != "<!channel> & co" || job.Get != "easyai get tf/mnist -n team-a" {
		t.Errorf("job %+v %v", job, err)
	}

	if want := `{"text":"tf/mnist in namespace team-a failed after 3m4s (\u0026lt;!channel\u0026gt; \u0026amp; co)"}`; string(slack.received()[0]) != want {
		t.Errorf("slack:\n%s\nwant\n%s", slack.received()[0], want)
	}
	wantCard := `{"@type":"MessageCard","@context":"https://schema.org/extensions","summary":"` + jsonText(wantMessage) +
		`","themeColor":"D1242F","text":"` + jsonText(wantMessage) + `"}`
	if string(teams.received()[0]) != wantCard {
		t.Errorf("teams:\n%s\nwant\n%s", teams.received()[0], wantCard)
	}
}

func jsonText(s string) string {
	data, _ := json.Marshal(s)
	return strings.Trim(string(data), `"`)
}

// TestOnlyTheWantedEventsAreSent: When filters; a nil Notifier sends nothing.
func TestOnlyTheWantedEventsAreSent(t *testing.T) {
	h := newHook(t, 200)
	n := notifier(t, io.Discard, h.url(""))
	n.When = When{Failed: true}
	ctx := context.Background()
	n.Notify(ctx, Outcome{Event: Succeeded, Job: failedJob()})
	n.Notify(ctx, Outcome{Event: Running, Job: failedJob()})
	n.Notify(ctx, Outcome{Event: TimedOut, Job: failedJob(), Timeout: time.Minute})
	if got := h.received(); len(got) != 1 || !strings.Contains(string(got[0]), `"event":"timedout"`) {
		t.Errorf("received %q, want the timeout only", got)
	}
	var none *Notifier
	if none.Notify(ctx, Outcome{Event: Failed}) != 0 {
		t.Error("a nil Notifier")
	}
}

// TestFailuresAreOneLineWithoutTheURL: each webhook that fails is one
// line naming it by number and host; a busy service or no answer is
// tried twice, a refusal (4xx) once; the others are reached all the same.
func TestFailuresAreOneLineWithoutTheURL(t *testing.T) {
	ok := newHook(t, 200)
	busy := newHook(t, 500)
	busy.answer = "no_service: " + secret + "\nsecond line"
	refused := newHook(t, 404)
	refused.answer = "not found: /hooks/" + secret
	slow := newHook(t, 200)
	slow.holdFor = time.Second
	moved := newHook(t, 200)
	moved.redirect = "/elsewhere/" + secret
	gone := newHook(t, 200)
	goneURL := gone.url("slack:")
	gone.Close()

	var warnings bytes.Buffer
	n := notifier(t, &warnings, ok.url(""), busy.url(""), refused.url("teams:"), slow.url(""), moved.url(""), goneURL)
	n.Timeout = 200 * time.Millisecond
	start := time.Now()
	failed := n.Notify(context.Background(), Outcome{Event: Failed, Job: failedJob(), Where: "namespace team-a"})
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	lines := strings.Split(strings.TrimSuffix(warnings.String(), "\n"), "\n")
	if failed != 5 || len(lines) != 5 {
		t.Fatalf("%d failed, warnings:\n%s", failed, warnings.String())
	}
	host := func(h *hook) string { return strings.TrimPrefix(h.URL, "http://") }
	want := []string{
		"Warning: the failed notification did not reach webhook 2 (" + host(busy) + "): HTTP 500 Internal Server Error: no_service: T000/B000/… second line (tried twice)",
		"Warning: the failed notification did not reach webhook 3 (teams, " + host(refused) + "): HTTP 404 Not Found: not found: …",
		"Warning: the failed notification did not reach webhook 4 (" + host(slow) + "): no answer within 200ms (tried twice)",
		"Warning: the failed notification did not reach webhook 5 (" + host(moved) + "): HTTP 302 Found",
	}
	for i, w := range want {
		if lines[i] != w {
			t.Errorf("line %d:\n%s\nwant\n%s", i+1, lines[i], w)
		}
	}
	goneHost := strings.SplitN(strings.TrimPrefix(goneURL, "slack:http://"), "/", 2)[0]
	if !strings.HasPrefix(lines[4], "Warning: the failed notification did not reach webhook 6 (slack, "+goneHost+"): ") ||
		!strings.Contains(lines[4], "connection refused") || !strings.HasSuffix(lines[4], "(tried twice)") {
		t.Errorf("line 5: %s", lines[4])
	}
	if strings.Contains(warnings.String(), "s3cr3t") || strings.Contains(warnings.String(), "/hooks/") {
		t.Errorf("a URL is in the warnings:\n%s", warnings.String())
	}
	for name, tt := range map[string]struct {
		h    *hook
		want int
	}{"ok": {ok, 1}, "busy": {busy, 2}, "refused": {refused, 1}, "slow": {slow, 2}, "moved": {moved, 1}} {
		if got := len(tt.h.received()); got != tt.want {
			t.Errorf("%s received %d POSTs, want %d", name, got, tt.want)
		}
	}
}

// TestASecondTryThatSucceedsIsQuiet: a 503 then a 200 is no warning.
func TestASecondTryThatSucceedsIsQuiet(t *testing.T) {
	var calls int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	var warnings bytes.Buffer
	n := notifier(t, &warnings, srv.URL+"/"+secret)
	if failed := n.Notify(context.Background(), Outcome{Event: Succeeded, Job: failedJob()}); failed != 0 || warnings.Len() > 0 || calls != 2 {
		t.Errorf("%d failed after %d calls: %s", failed, calls, warnings.String())
	}
}

// TestAnInterruptStopsTheNotification: a cancelled context ends a POST
// that waits, without a retry.
func TestAnInterruptStopsTheNotification(t *testing.T) {
	slow := newHook(t, 200)
	slow.holdFor = 5 * time.Second
	var warnings bytes.Buffer
	n := notifier(t, &warnings, slow.url(""))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if failed := n.Notify(ctx, Outcome{Event: Failed, Job: failedJob()}); failed != 1 || !strings.HasSuffix(warnings.String(), ": interrupted\n") {
		t.Errorf("%d failed: %s", failed, warnings.String())
	}
	if d := time.Since(start); d > 2*time.Second || len(slow.received()) != 1 {
		t.Errorf("took %s, %d POSTs", d, len(slow.received()))
	}
}

// A plain webhook gets the minimal job of docs/notifications.md: never the
// request (its env may hold an API key), the command, the image, the
// replicas' last lines or the events, which a chat channel must not see.
func TestThePayloadHoldsNoSecret(t *testing.T) {
	plain := newHook(t, 200)
	var warnings bytes.Buffer
	n := notifier(t, &warnings, plain.url(""))
	doc := failedJob()
	doc.User, doc.Experiment = "alice@corp", "lr-sweep"
	doc.Command = []string{"python", "train.py", "--token=COMMAND-SECRET"}
	doc.Request = map[string]any{"env": []any{map[string]any{"name": "WANDB_API_KEY", "value": "ENV-SECRET"}}}
	doc.LastLines = []jobmodel.LastLines{{Task: "worker-1", Container: "tensorflow", ExitCode: 1, Lines: []string{"printed LOG-SECRET"}}}
	doc.Events = []jobmodel.Event{{Object: "worker-1", Reason: "Failed", Message: "EVENT-SECRET"}}
	if failed := n.Notify(context.Background(), Outcome{Event: Failed, Job: doc, Where: "namespace team-a"}); failed != 0 {
		t.Fatalf("%d failed: %s", failed, warnings.String())
	}
	body := string(plain.received()[0])
	for _, secret := range []string{"SECRET", "example.com/train", "python", "WANDB"} {
		if strings.Contains(body, secret) {
			t.Errorf("the payload holds %q:\n%s", secret, body)
		}
	}
	var got struct {
		APIVersion string          `json:"apiVersion"`
		Job        json.RawMessage `json:"job"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"mnist","namespace":"team-a","jobKind":"tf","objectKind":"TFJob","state":"Failed","reason":"TFJobFailed",` +
		`"exitCode":1,"exitTask":"worker-1","created":"2025-03-01T10:00:00Z","started":"2025-03-01T10:00:00Z","finished":"2025-03-01T10:03:04Z",` +
		`"durationSeconds":184,"user":"alice@corp","experiment":"lr-sweep","get":"easyai get tf/mnist -n team-a"}`
	if got.APIVersion != "easyai.io/v2" || string(got.Job) != want {
		t.Errorf("apiVersion %q, job\n%s\nwant\n%s", got.APIVersion, got.Job, want)
	}
}
