package top

import (
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
)

// The parent assembles the verbs, each found by its name and aliases.
func TestVerbs(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
	cmd := NewCmdTop(f)
	for arg, want := range map[string]string{"node": "node", "nodes": "node", "job": "job", "jobs": "job"} {
		if sub, _, err := cmd.Find([]string{arg}); err != nil || sub.Name() != want {
			t.Errorf("top %s: %v, %v; want %s", arg, sub, err, want)
		}
	}
}
