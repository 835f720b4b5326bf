package jobwait_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/jobwait"
	"github.com/easyai-dev/easyai/pkg/notify"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// waitingPlatform ends every wait as told, after telling Started of
// startedDoc (when not nil); it records the request.
type waitingPlatform struct {
	platform.Platform
	waited     *platform.Waited
	err        error
	startedDoc *jobmodel.Document
	req        platform.WaitRequest
}

func (p *waitingPlatform) Where() string { return "namespace team-a" }

func (p *waitingPlatform) Wait(_ context.Context, _ *platform.Job, req platform.WaitRequest) (*platform.Waited, error) {
	p.req = req
	if req.Started != nil && p.startedDoc != nil {
		req.Started(p.startedDoc)
	}
	return p.waited, p.err
}

// receiver is a webhook that records the events it was sent, in order.
type receiver struct {
	mu     sync.Mutex
	events []string
	docs   []map[string]any
	status int
}

func newReceiver(t *testing.T, status int) (*receiver, string) {
	r := &receiver{status: status}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var n struct {
			Event string         `json:"event"`
			Job   map[string]any `json:"job"`
		}
		if err := json.Unmarshal(body, &n); err != nil {
			t.Errorf("not a notification: %s", body)
		}
		r.mu.Lock()
		r.events = append(r.events, n.Event)
		r.docs = append(r.docs, n.Job)
		r.mu.Unlock()
		w.WriteHeader(r.status)
	}))
	t.Cleanup(srv.Close)
	return r, srv.URL + "/hooks/s3cr3t-token"
}

func (r *receiver) got() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.events, ",")
}

func documentIn(state jobmodel.State) *jobmodel.Document {
	doc := &jobmodel.Document{APIVersion: jobmodel.APIVersion, Item: jobmodel.Item{
		DocumentKind: jobmodel.JobDocumentKind, KindName: "tf",
		Summary: jobmodel.Summary{Name: "mnist", Namespace: "team-a", Status: jobmodel.Status{State: state}},
	}}
	return doc
}

func notifierTo(t *testing.T, errOut io.Writer, when notify.When, urls ...string) *notify.Notifier {
	var hooks []notify.Webhook
	for i, u := range urls {
		w, err := notify.ParseWebhook(u, i+1)
		if err != nil {
			t.Fatal(err)
		}
		hooks = append(hooks, w)
	}
	return &notify.Notifier{Webhooks: hooks, When: when, Warnings: errOut, Timeout: 2 * time.Second, RetryPause: time.Millisecond}
}

func runWait(t *testing.T, p *waitingPlatform, c waiter.Condition, doc printers.DocumentPrinter, when notify.When, urls ...string) (err error, stdout, stderr string) {
	t.Helper()
	io, _, out, errOut := iostreams.Test()
	w := jobwait.Wait{IO: io, Platform: p, Job: &platform.Job{Item: documentIn(jobmodel.Running).Item},
		For: c, Timeout: time.Hour, Document: doc, Notify: notifierTo(t, errOut, when, urls...)}
	err = w.Run(context.Background())
	return err, out.String(), errOut.String()
}

// TestWaitNotifiesHowItEnded: the event follows the wait's end; the
// document is asked for though nothing prints it, and the exit code is
// the wait's.
func TestWaitNotifiesHowItEnded(t *testing.T) {
	finished := notify.When{Finished: true}
	for _, tt := range []struct {
		name   string
		p      *waitingPlatform
		c      waiter.Condition
		when   notify.When
		events string
		code   int
	}{
		{"succeeded", &waitingPlatform{waited: &platform.Waited{Line: "tf/mnist Succeeded after 3m", Document: documentIn(jobmodel.Succeeded)}}, waiter.Finished, finished, "succeeded", 0},
		{"failed", &waitingPlatform{waited: &platform.Waited{Line: "tf/mnist Failed after 3m", Document: documentIn(jobmodel.Failed)},
			err: exit.JobFailedErrorf("tf/mnist Failed after 3m")}, waiter.Finished, finished, "failed", exit.JobFailed},
		{"timed out", &waitingPlatform{waited: &platform.Waited{Line: "x", Document: documentIn(jobmodel.Running)},
			err: exit.TimeoutErrorf("tf/mnist still Running after 1h")}, waiter.Finished, notify.When{Failed: true}, "timedout", exit.Timeout},
		{"deleted", &waitingPlatform{err: exit.NotFoundErrorf("tf/mnist was deleted while waiting")}, waiter.Finished, finished, "deleted", exit.NotFound},
		{"interrupted", &waitingPlatform{waited: &platform.Waited{Line: "x"}, err: context.Canceled}, waiter.Finished, finished, "", exit.Interrupted},
		{"broken wait", &waitingPlatform{waited: &platform.Waited{Line: "x"}, err: errors.New("watching tf/mnist: connection reset")}, waiter.Finished, finished, "", exit.Error},
		{"running reached", &waitingPlatform{waited: &platform.Waited{Line: "tf/mnist Running after 5s", Document: documentIn(jobmodel.Running)}},
			waiter.Running, notify.When{Running: true, Finished: true}, "running", 0},
		{"succeeded, not wanted", &waitingPlatform{waited: &platform.Waited{Line: "x", Document: documentIn(jobmodel.Succeeded)}}, waiter.Finished, notify.When{Failed: true}, "", 0},
		{"started, then succeeded", &waitingPlatform{startedDoc: documentIn(jobmodel.Running), waited: &platform.Waited{Line: "x", Document: documentIn(jobmodel.Succeeded)}},
			waiter.Finished, notify.When{Running: true, Finished: true}, "running,succeeded", 0},
		{"started, not asked", &waitingPlatform{startedDoc: documentIn(jobmodel.Running), waited: &platform.Waited{Line: "x", Document: documentIn(jobmodel.Succeeded)}},
			waiter.Finished, finished, "succeeded", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, url := newReceiver(t, http.StatusNoContent)
			err, stdout, stderr := runWait(t, tt.p, tt.c, nil, tt.when, url)
			if exit.Code(err) != tt.code || r.got() != tt.events {
				t.Errorf("exit %d (%v), events %q; want %d, %q", exit.Code(err), err, r.got(), tt.code, tt.events)
			}
			// The running notification is asked of the platform when running does not end the wait.
			if !tt.p.req.Document || tt.p.req.For != tt.c || (tt.p.req.Started != nil) != (tt.when.Running && tt.c != waiter.Running) {
				t.Errorf("request %+v", tt.p.req)
			}
			if stdout != "" || strings.Contains(stderr, "Warning") {
				t.Errorf("stdout %q, stderr %q", stdout, stderr)
			}
		})
	}
}

// TestWaitNotifiesTheJobAsFoundWhenItIsGone: a deleted job has no
// document: the one of the job found before the wait is sent.
func TestWaitNotifiesTheJobAsFoundWhenItIsGone(t *testing.T) {
	r, url := newReceiver(t, http.StatusOK)
	p := &waitingPlatform{err: exit.NotFoundErrorf("tf/mnist was deleted while waiting")}
	runWait(t, p, waiter.Finished, nil, notify.When{Finished: true}, url)
	if len(r.docs) != 1 || r.docs[0]["name"] != "mnist" || r.docs[0]["state"] != "Running" || r.docs[0]["get"] != "easyai get tf/mnist -n team-a" {
		t.Errorf("documents %v", r.docs)
	}
}

// TestAFailingWebhookKeepsTheExitCode: one line on stderr, no URL in it,
// the wait's error as it was.
func TestAFailingWebhookKeepsTheExitCode(t *testing.T) {
	for _, tt := range []struct {
		err  error
		code int
	}{{nil, 0}, {exit.JobFailedErrorf("tf/mnist Failed after 3m"), exit.JobFailed}} {
		_, url := newReceiver(t, http.StatusInternalServerError)
		state := jobmodel.Succeeded
		if tt.err != nil {
			state = jobmodel.Failed
		}
		p := &waitingPlatform{waited: &platform.Waited{Line: "tf/mnist Succeeded after 3m", Document: documentIn(state)}, err: tt.err}
		err, _, stderr := runWait(t, p, waiter.Finished, nil, notify.When{Finished: true}, url)
		if exit.Code(err) != tt.code || err != tt.err {
			t.Errorf("error %v, want %v", err, tt.err)
		}
		warnings := 0
		for _, line := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(line, "Warning: ") {
				warnings++
				if !strings.Contains(line, "did not reach webhook 1 (127.0.0.1:") || !strings.Contains(line, "HTTP 500") {
					t.Errorf("warning %q", line)
				}
			}
		}
		if warnings != 1 || strings.Contains(stderr, "s3cr3t") || strings.Contains(stderr, "/hooks") {
			t.Errorf("stderr:\n%s", stderr)
		}
	}
}

// TestADocumentNotReadFailsOnlyWhatPrintsIt: with -o json the document
// not read is the command's error, as before notifications; for a
// notification alone it is not, and the job as found is sent.
func TestADocumentNotReadFailsOnlyWhatPrintsIt(t *testing.T) {
	unread := errors.New("listing the pods of tf/mnist: forbidden")
	r, url := newReceiver(t, http.StatusOK)
	p := &waitingPlatform{waited: &platform.Waited{Line: "tf/mnist Succeeded after 3m", DocumentErr: unread}}
	err, _, stderr := runWait(t, p, waiter.Finished, nil, notify.When{Finished: true}, url)
	if err != nil || stderr != "tf/mnist Succeeded after 3m\n" || r.got() != "succeeded" {
		t.Errorf("notification alone: %v, stderr %q, events %q", err, stderr, r.got())
	}

	print := printers.NewPrintFlags("", printers.FormatJSON).WithOutput("json")
	if perr := print.Validate(); perr != nil {
		t.Fatal(perr)
	}
	err, stdout, _ := runWait(t, p, waiter.Finished, print.Document(), notify.When{Finished: true}, url)
	if !errors.Is(err, unread) || stdout != "" {
		t.Errorf("-o json: %v, stdout %q", err, stdout)
	}
}
