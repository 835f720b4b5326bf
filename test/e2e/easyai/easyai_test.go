package easyai

import (
	"testing"
	"time"
)

func TestLimitFor(t *testing.T) {
	tests := []struct {
		args []string
		want time.Duration
	}{
		{[]string{"list"}, 2 * time.Minute},
		{[]string{"wait", "job", "--timeout", "30s"}, 2 * time.Minute},
		{[]string{"wait", "job", "--timeout", "8m"}, 9 * time.Minute},
		{[]string{"wait", "job", "--timeout=5m"}, 6 * time.Minute},
		{[]string{"wait", "job", "--timeout"}, 2 * time.Minute},
		{[]string{"wait", "job", "--timeout", "soon"}, 2 * time.Minute},
		// The job's own command is not easyai's.
		{[]string{"submit", "pytorch", "--", "train", "--timeout", "1h"}, 2 * time.Minute},
	}
	for _, tt := range tests {
		if got := limitFor(tt.args); got != tt.want {
			t.Errorf("limitFor(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}
