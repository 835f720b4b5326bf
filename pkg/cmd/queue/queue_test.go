package queue

import (
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
)

// The parent assembles the verbs, each found by its name and aliases.
func TestVerbs(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
	cmd := NewCmdQueue(f)
	for arg, want := range map[string]string{"list": "list", "ls": "list", "get": "get"} {
		if sub, _, err := cmd.Find([]string{arg}); err != nil || sub.Name() != want {
			t.Errorf("queue %s: %v, %v; want %s", arg, sub, err, want)
		}
	}
}
