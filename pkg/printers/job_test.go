package printers

import "testing"

func TestShellJoin(t *testing.T) {
	got := ShellJoin([]string{"python", "train.py", "--name", "a b", "it's", ""})
	if want := `python train.py --name 'a b' 'it'\''s' ''`; got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
}
