package notify

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// DocumentKind is the kind of the document a plain webhook gets.
const DocumentKind = "Notification"

// APIVersion is the Notification's: v2 since its job is the minimal
// NotifiedJob (v1 carried get's whole document, the request's env with it).
const APIVersion = "easyai.io/v2"

// Notification is the document POSTed to a plain webhook
// (docs/notifications.md). Its fields only ever grow.
type Notification struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Event      Event  `json:"event"`
	// Message is the line a chat webhook gets.
	Message string `json:"message"`
	// Time is when the notification was made.
	Time time.Time `json:"time"`
	// Job is what the notification says of the job.
	Job NotifiedJob `json:"job"`
}

// NotifiedJob is what a webhook is told of a job: where it is, what
// became of it, when, and whose it is. Never what it runs (the request,
// its env, the command, the image), nor its replicas' output or events: a
// webhook is often a chat channel, and an env may hold an API key.
type NotifiedJob struct {
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
	JobKind    string `json:"jobKind,omitempty"`
	ObjectKind string `json:"objectKind,omitempty"`
	State      string `json:"state"`
	Reason     string `json:"reason,omitempty"`
	// ExitCode is the first non-zero exit code of a replica, ExitTask the
	// replica's.
	ExitCode        *int32     `json:"exitCode,omitempty"`
	ExitTask        string     `json:"exitTask,omitempty"`
	Created         *time.Time `json:"created,omitempty"`
	Started         *time.Time `json:"started,omitempty"`
	Finished        *time.Time `json:"finished,omitempty"`
	DurationSeconds int64      `json:"durationSeconds"`
	User            string     `json:"user,omitempty"`
	Experiment      string     `json:"experiment,omitempty"`
	// Get is the command line that shows the job: "easyai get tf/mnist -n team-a".
	Get string `json:"get"`
}

// notifiedJob is the NotifiedJob of get's document; the texts from the
// cluster made one line each.
func notifiedJob(doc *jobmodel.Document) NotifiedJob {
	if doc == nil {
		return NotifiedJob{State: string(jobmodel.Unknown)}
	}
	j := NotifiedJob{
		Name: jobmodel.OneLine(doc.Name), Namespace: jobmodel.OneLine(doc.Namespace),
		JobKind: doc.KindName, ObjectKind: doc.ObjectKind,
		State: string(doc.Status.State), Reason: jobmodel.OneLine(doc.Status.Reason),
		Started: utc(doc.Started), Finished: utc(doc.Finished), DurationSeconds: doc.DurationSeconds,
		User: jobmodel.OneLine(doc.User), Experiment: jobmodel.OneLine(doc.Experiment),
	}
	if j.State == "" {
		j.State = string(jobmodel.Unknown)
	}
	if !doc.Created.IsZero() {
		j.Created = utc(&doc.Created)
	}
	for _, r := range doc.Replicas {
		if r.ExitCode != nil && *r.ExitCode != 0 {
			code := *r.ExitCode
			j.ExitCode, j.ExitTask = &code, jobmodel.OneLine(r.Task)
			break
		}
	}
	job := j.Name
	if j.JobKind != "" {
		job = j.JobKind + "/" + job
	}
	j.Get = "easyai get " + job
	if j.Namespace != "" {
		j.Get += " -n " + j.Namespace
	}
	return j
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Outcome is what is notified: an event of a job.
type Outcome struct {
	Event Event
	// Job is the job's document when the event happened (for a deleted
	// job: as last seen).
	Job *jobmodel.Document
	// Where the job is, as the platform says it: "namespace team-a".
	Where string
	// Timeout is the wait's --timeout, which a TimedOut message names.
	Timeout time.Duration
}

// New is the notification of an outcome, made at now.
func New(o Outcome, now time.Time) Notification {
	return Notification{
		APIVersion: APIVersion, Kind: DocumentKind,
		Event: o.Event, Message: Message(o), Time: now.UTC(), Job: notifiedJob(o.Job),
	}
}

// Message is the one line that says the outcome: "tf/mnist in namespace
// team-a failed after 3m (exit code 1 in worker-0)".
func Message(o Outcome) string {
	doc := o.Job
	if doc == nil {
		doc = &jobmodel.Document{}
	}
	job := doc.Name
	if doc.KindName != "" {
		job = doc.KindName + "/" + doc.Name
	}
	if o.Where != "" {
		job += " in " + o.Where
	}
	state := string(doc.Status.State)
	if state == "" {
		state = string(jobmodel.Unknown)
	}
	var line string
	switch o.Event {
	case Running:
		line = job + " is running"
		if w := doc.Workers; w.Total > 0 {
			line += fmt.Sprintf(" (%d/%d replicas)", w.Ready, w.Total)
		}
	case Succeeded:
		line = job + " succeeded" + ranFor(doc)
	case Failed:
		line = job + " failed" + ranFor(doc) + whyFailed(doc)
	case Suspended:
		line = job + " is suspended"
	case TimedOut:
		line = fmt.Sprintf("the wait for %s timed out after %s: it is %s", job, shortDuration(o.Timeout), state)
	case Deleted:
		line = job + " was deleted while easyai waited for it"
	default:
		line = fmt.Sprintf("%s: %s", job, o.Event)
	}
	return jobmodel.OneLine(line)
}

// ranFor is " after 3m", how long the job ran; "" for a job that never started.
func ranFor(doc *jobmodel.Document) string {
	if doc.Started == nil {
		return ""
	}
	return " after " + printers.HumanDuration(time.Duration(doc.DurationSeconds)*time.Second)
}

// shortDuration is d as flags write it, without zero units: "1h", "1h30m", "90s" as "1m30s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// whyFailed is " (exit code 1 in worker-0)" for the first replica that
// exited with an error, else the job's reason, else "".
func whyFailed(doc *jobmodel.Document) string {
	for _, r := range doc.Replicas {
		if r.ExitCode != nil && *r.ExitCode != 0 {
			return fmt.Sprintf(" (exit code %d in %s)", *r.ExitCode, r.Task)
		}
	}
	if reason := doc.Status.Reason; reason != "" {
		return " (" + cut(reason, 80) + ")"
	}
	return ""
}

// payload is the body a webhook of format f gets.
func payload(f Format, n Notification) ([]byte, error) {
	switch f {
	case Slack:
		return json.Marshal(map[string]string{"text": slackEscape(n.Message)})
	case Teams:
		return json.Marshal(messageCard{
			Type: "MessageCard", Context: "https://schema.org/extensions",
			Summary: n.Message, Text: n.Message, ThemeColor: colour(n.Event),
		})
	}
	return json.Marshal(n)
}

// messageCard is the simplest card a Teams incoming webhook shows.
type messageCard struct {
	Type       string `json:"@type"`
	Context    string `json:"@context"`
	Summary    string `json:"summary"`
	ThemeColor string `json:"themeColor"`
	Text       string `json:"text"`
}

// colour is a card's colour: green succeeded, red failed, blue otherwise.
func colour(e Event) string {
	switch e {
	case Succeeded:
		return "2EA043"
	case Failed, TimedOut, Deleted:
		return "D1242F"
	}
	return "0969DA"
}

// slackEscape escapes the three characters Slack reads as markup.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
