package timakerplatform

import (
	"slices"
	"testing"
	"time"
	"unicode"

	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/timaker"
)

// FuzzDescriptionOfAJob feeds what the service says of a job (untrusted)
// through the mapping get, list and wait print: it never panics, the state
// is one of easyai's, and nothing printed can drive the terminal.
func FuzzDescriptionOfAJob(f *testing.F) {
	f.Add("Training", "", "", "2026-11-23 10:00:00", "")
	f.Add("Failed", "ExitCode1", "the training command exited with 1", "2026-11-23 10:00:00", "2026-11-23 10:05:00")
	f.Add("Stopped\x1b[2J", "C\nD", "\u202egnp.exe", "9999-99-99 99:99:99", "not a time")
	f.Add("", "", "", "", "0000-00-00 00:00:00")
	p := &Platform{Cluster: config.Cluster{Name: "prod"}, Now: func() time.Time { return time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC) }}
	f.Fuzz(func(t *testing.T, status, code, reason, created, ended string) {
		tj := &timaker.TrainingJob{TrainingJobId: "train-1", TrainingJobStatus: status, FailureCode: code, FailureReason: reason,
			TrainingCreateTime: created, TrainingEndTime: ended}
		job := p.jobOf(Record{ID: "train-1", Name: "j", Kind: "tf", Instances: 2}, tj)
		st := job.Item.Status
		if !slices.Contains(jobmodel.States, st.State) {
			t.Fatalf("state %q is not one of easyai's", st.State)
		}
		for _, s := range []string{st.Reason, st.Message} {
			for _, r := range s {
				if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
					t.Fatalf("%q holds %U", s, r)
				}
			}
		}
		_ = job.Item.Summary.Duration(p.Now())
	})
}
