package jobmodel

import "testing"

func TestShownStateIsDebugForARunningDebuggedJob(t *testing.T) {
	for _, tt := range []struct {
		debug bool
		state State
		want  string
	}{
		{true, Running, "DEBUG"},
		{true, Pending, "Pending"},
		{true, Failed, "Failed"},
		{true, Succeeded, "Succeeded"},
		{false, Running, "Running"},
	} {
		s := NewSummary("TFJob", ObjectMeta{Name: "j"})
		s.Debug, s.Status.State = tt.debug, tt.state
		if got := s.ShownState(); got != tt.want {
			t.Errorf("debug %v, %s: shown %s, want %s", tt.debug, tt.state, got, tt.want)
		}
	}
	if s := NewSummary("TFJob", ObjectMeta{Name: "j", Labels: map[string]string{DebugLabel: "true"}}); !s.Debug {
		t.Errorf("the %s label does not make Debug", DebugLabel)
	}
}
