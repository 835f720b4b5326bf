package get

import (
	"bytes"
	"testing"
	"time"
	"unicode"

	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// FuzzPrintDetails: whatever the cluster says of a job (its status
// message, user, image, a replica's task and reason, an event's message, a
// kind's details), get's human view is lines of printable text: no control
// character but the newlines, no escape.
func FuzzPrintDetails(f *testing.F) {
	f.Add("Running", "alice", "img:1", "worker-0", "BackOff", "msg", "detail")
	f.Add("evil\x1b]0;t\x07", "bob\r\n", "i\u009b2J", "w\t0", "r\x00", "m\x1b[2J", "\xff")
	f.Fuzz(func(t *testing.T, message, user, image, task, reason, event, detail string) {
		fac, _, _ := cmdutiltest.Factory(t, false, nil, nil)
		var out bytes.Buffer
		fac.IOStreams.Out = &out
		o := &Options{Factory: fac, IO: fac.IOStreams}
		code := int32(1)
		now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		d := &jobmodel.Document{
			Item: jobmodel.Item{Summary: jobmodel.Summary{Name: "j", Namespace: "n", User: user, Experiment: detail,
				Status: jobmodel.Status{State: jobmodel.Running, Reason: reason, Message: message}, Created: now}},
			Image: image, Command: []string{"sh", "-c", message},
			Replicas:  []jobmodel.Replica{{Task: task, Phase: "Running", Reason: reason, ExitCode: &code}},
			Events:    []jobmodel.Event{{Object: task, Reason: reason, Message: event, LastSeen: now}},
			Details:   []jobmodel.Detail{{Name: "Jobs", Value: detail}},
			LastLines: []jobmodel.LastLines{{Task: task, Container: reason, Lines: []string{jobmodel.OneLine(event)}}},
		}
		if err := o.printDetails(d, now); err != nil {
			t.Fatal(err)
		}
		for _, r := range out.String() {
			if r != '\n' && unicode.IsControl(r) {
				t.Fatalf("control character %U in\n%q", r, out.String())
			}
		}
	})
}
