//go:build e2e

package commands

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// webhooks is an HTTP server in the test process standing for the
// webhooks of a team: each path is one, answering its status and keeping
// what it received. easyai runs on the same machine and reaches it on
// 127.0.0.1.
type webhooks struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    map[string][][]byte
	status map[string]int
	// token is the secret part of every URL, which easyai must not print.
	token string
}

func newWebhooks(t *testing.T) *webhooks {
	t.Helper()
	token := make([]byte, 8)
	_, _ = rand.Read(token)
	w := &webhooks{got: map[string][][]byte{}, status: map[string]int{}, token: "s3cr3t" + hex.EncodeToString(token)}
	w.srv = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.mu.Lock()
		defer w.mu.Unlock()
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s with Content-Type %q, want a JSON POST", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		w.got[r.URL.Path] = append(w.got[r.URL.Path], body)
		status := w.status[r.URL.Path]
		if status == 0 {
			status = http.StatusOK
		}
		rw.WriteHeader(status)
	}))
	t.Cleanup(w.srv.Close)
	return w
}

// url adds a webhook named name answering status and returns its URL.
func (w *webhooks) url(name string, status int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	path := "/hooks/" + name + "/" + w.token
	w.status[path] = status
	return w.srv.URL + path
}

// received is what the webhook name got, in order.
func (w *webhooks) received(name string) [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.got["/hooks/"+name+"/"+w.token]
}

// notification is the part of a Notification these tests read.
type notification struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Event      string `json:"event"`
	Message    string `json:"message"`
	Job        struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
		JobKind   string `json:"jobKind"`
		State     string `json:"state"`
		ExitCode  *int32 `json:"exitCode"`
		ExitTask  string `json:"exitTask"`
		Get       string `json:"get"`
		// What a webhook is never sent.
		Request  any `json:"request"`
		Command  any `json:"command"`
		Replicas any `json:"replicas"`
	} `json:"job"`
}

func notificationsOf(t *testing.T, bodies [][]byte) []notification {
	t.Helper()
	var ns []notification
	for _, b := range bodies {
		var n notification
		if err := json.Unmarshal(b, &n); err != nil {
			t.Fatalf("not a notification: %v\n%s", err, b)
		}
		ns = append(ns, n)
	}
	return ns
}

// noSecretIn fails when output holds a webhook's secret.
func (w *webhooks) noSecretIn(t *testing.T, what, output string) {
	t.Helper()
	if strings.Contains(output, w.token) || strings.Contains(output, "/hooks/") {
		t.Errorf("%s shows a webhook's URL:\n%s", what, output)
	}
}

// TestNotifySubmitWait: submit --wait, as a user of one namespace, POSTs
// the final document once to each webhook; a webhook answering 500 is one
// line on stderr without its URL (not even at -v 6); the exit code is the
// job's.
func TestNotifySubmitWait(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	hooks := newWebhooks(t)

	res := easyai.RunWith(t, alice, "submit", "tf", "--name", "told", "--workers", "1", "--image", "example.com/train:1",
		"-f", exitingAfter(t, 1, 2*time.Second), "--wait", "--timeout", "90s", "-v", "6",
		"--notify", hooks.url("ci", http.StatusOK), "--notify", hooks.url("broken", http.StatusInternalServerError),
		"--", "python", "train.py")
	if res.Code != 4 || !strings.Contains(res.Stderr, "tf/told Failed after") {
		t.Fatalf("submit --wait of a job that fails exited %d (want 4): %s", res.Code, res.Stderr)
	}
	got := notificationsOf(t, hooks.received("ci"))
	if len(got) != 1 {
		t.Fatalf("the webhook got %d notifications, want 1: %+v", len(got), got)
	}
	n := got[0]
	if n.APIVersion != "easyai.io/v2" || n.Kind != "Notification" || n.Event != "failed" ||
		n.Job.Name != "told" || n.Job.Namespace != ns || n.Job.JobKind != "tf" || n.Job.State != "Failed" ||
		n.Job.Get != "easyai get tf/told -n "+ns || n.Job.Request != nil || n.Job.Command != nil || n.Job.Replicas != nil {
		t.Errorf("notification %+v", n)
	}
	if !strings.HasPrefix(n.Message, "tf/told in namespace "+ns+" failed") || !strings.Contains(n.Message, "(exit code 1 in worker-0)") {
		t.Errorf("message %q", n.Message)
	}
	if n.Job.ExitCode == nil || *n.Job.ExitCode != 1 || n.Job.ExitTask != "worker-0" {
		t.Errorf("exit code %v in %q, want 1 in worker-0", n.Job.ExitCode, n.Job.ExitTask)
	}

	// The broken webhook was tried twice and said once.
	if tries := len(hooks.received("broken")); tries != 2 {
		t.Errorf("the broken webhook got %d POSTs, want 2 (one retry)", tries)
	}
	var warnings []string
	for _, line := range strings.Split(res.Stderr, "\n") {
		if strings.Contains(line, "webhook") {
			warnings = append(warnings, line)
		}
	}
	host := strings.TrimPrefix(hooks.srv.URL, "http://")
	if len(warnings) != 1 || warnings[0] != "Warning: the failed notification did not reach webhook 2 ("+host+"): HTTP 500 Internal Server Error (tried twice)" {
		t.Errorf("lines about webhooks on stderr: %q", warnings)
	}
	hooks.noSecretIn(t, "stdout and stderr", res.Stdout+res.Stderr)

	// A bad webhook is refused before anything is created: exit 2, the
	// flag named, the URL not echoed.
	res = easyai.RunWith(t, alice, "submit", "tf", "--name", "never", "--image", "example.com/train:1", "--wait",
		"--notify", "slack:hooks.slack.com/services/"+hooks.token, "--", "x")
	if res.Code != 2 || !strings.Contains(res.Stderr, "--notify (webhook 1): not a URL") {
		t.Errorf("a bad --notify: exit %d, %q", res.Code, res.Stderr)
	}
	hooks.noSecretIn(t, "the usage error", res.Stderr)
	if res := easyai.RunWith(t, alice, "get", "never"); res.Code != 3 {
		t.Errorf("a job refused was created: get exits %d", res.Code)
	}
}

// TestNotifyWait: wait --notify slack:URL sends Slack's payload once per
// wait: when a wait for running reaches it, and when the job, its pod
// ended, succeeds; --notify-on running,finished on a wait for finished
// sends both, the running one first; the configuration's webhook serves
// when --notify is not given.
func TestNotifyWait(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	hooks := newWebhooks(t)
	slack := "slack:" + hooks.url("slack", http.StatusOK)

	easyai.RunWith(t, alice, "submit", "tf", "--name", "runner", "--workers", "1", "--image", "example.com/train:1", "--", "python", "train.py").MustSucceed(t)
	res := easyai.RunWith(t, alice, "wait", "runner", "--for", "running", "--timeout", "90s", "--notify", slack)
	if res.Code != 0 {
		t.Fatalf("wait --for running exited %d: %s", res.Code, res.Stderr)
	}
	c.EndPod(t, ns, "runner-worker-0", 0)
	res = easyai.RunWith(t, alice, "wait", "tf/runner", "--timeout", "90s", "--notify", slack)
	if res.Code != 0 || !strings.Contains(res.Stderr, "tf/runner Succeeded after") {
		t.Fatalf("wait for the ended job exited %d: %s", res.Code, res.Stderr)
	}
	hooks.noSecretIn(t, "stderr", res.Stderr)
	var texts []string
	for _, body := range hooks.received("slack") {
		var payload map[string]string
		if err := json.Unmarshal(body, &payload); err != nil || len(payload) != 1 {
			t.Fatalf("not Slack's payload: %s", body)
		}
		texts = append(texts, payload["text"])
	}
	if len(texts) != 2 || !strings.HasPrefix(texts[0], "tf/runner in namespace "+ns+" is running") ||
		!strings.HasPrefix(texts[1], "tf/runner in namespace "+ns+" succeeded after ") {
		t.Errorf("Slack got %q", texts)
	}

	// The configuration's webhook, running and finished on a wait for finished.
	events := hooks.url("events", http.StatusOK)
	withConfig := append([]string{"EASYAI_NOTIFY=" + events}, alice...)
	res = easyai.RunWith(t, withConfig, "submit", "tf", "--name", "steps", "--workers", "1", "--image", "example.com/train:1",
		"-f", exitingAfter(t, 0, 5*time.Second), "--wait", "--timeout", "90s", "--notify-on", "running,finished", "--", "python", "train.py")
	if res.Code != 0 {
		t.Fatalf("submit --wait exited %d: %s", res.Code, res.Stderr)
	}
	got := notificationsOf(t, hooks.received("events"))
	if len(got) != 2 || got[0].Event != "running" || got[0].Job.State != "Running" ||
		got[1].Event != "succeeded" || got[1].Job.Name != "steps" || got[1].Job.State != "Succeeded" {
		t.Errorf("notifications %+v, want running then succeeded", got)
	}
	// config view shows the webhook's host, not its URL.
	res = easyai.RunWith(t, withConfig, "config", "view").MustSucceed(t)
	if !strings.Contains(res.Stdout, "notify: "+hooks.srv.URL+"/…") {
		t.Errorf("config view: %s", res.Stdout)
	}
	hooks.noSecretIn(t, "config view", res.Stdout+res.Stderr)
}
