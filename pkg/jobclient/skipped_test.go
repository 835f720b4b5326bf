package jobclient_test

import (
	"bytes"
	"testing"

	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// TestReportSkipped: a warning per kind refused, naming the namespace or
// every namespace; a kind not installed is no warning.
func TestReportSkipped(t *testing.T) {
	reg := jobclienttest.Registry()
	tf, _ := reg.Lookup("tf")
	pytorch, _ := reg.Lookup("pytorch")
	res := &jobclient.ListResult{Refused: []kinds.Kind{tf}, NotInstalled: []kinds.Kind{pytorch}}
	for ns, want := range map[string]string{
		"team-a": "Warning: cannot list tfjobs in team-a: forbidden\n",
		"":       "Warning: cannot list tfjobs in every namespace: forbidden\n",
	} {
		var out bytes.Buffer
		res.ReportSkipped(&out, ns)
		if out.String() != want {
			t.Errorf("namespace %q: %q, want %q", ns, out.String(), want)
		}
	}
}
