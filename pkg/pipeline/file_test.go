package pipeline

import (
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
)

const diamond = `
name: mnist
steps:
- name: prep
  job: {kind: volcano, image: "x:1"}
- name: train
  after: [prep]
  pretrainedFrom: prep
  file: train.yaml
- name: eval
  after: [train]
  job: {kind: volcano, image: "x:1"}
- name: export
  after: [train]
  pretrainedFrom: prep
  job: {kind: volcano, image: "x:1"}
`

func TestParseAndOrder(t *testing.T) {
	f, err := Parse("p.yaml", []byte(diamond))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate("p.yaml"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Order(), " "); got != "prep train eval export" {
		t.Errorf("order: %s", got)
	}
	if got := strings.Join(f.Downstream("train"), " "); got != "eval export" {
		t.Errorf("downstream of train: %s", got)
	}
	name, data, err := f.Step("eval").JobFile("p.yaml", "dir", nil)
	if err != nil || name != "p.yaml: step eval: job" || !strings.Contains(string(data), "kind: volcano") {
		t.Errorf("eval's job file: %q %q %v", name, data, err)
	}
	name, data, err = f.Step("train").JobFile("p.yaml", "dir", func(path string) ([]byte, error) { return []byte("read " + path), nil })
	if err != nil || name != "dir/train.yaml (step train of p.yaml)" || string(data) != "read dir/train.yaml" {
		t.Errorf("train's job file: %q %q %v", name, data, err)
	}
}

// TestBadPipelines: each refused, exit 2, naming the file, the step and
// the key.
func TestBadPipelines(t *testing.T) {
	step := func(s string) string { return "name: p\nsteps:\n" + s }
	for want, src := range map[string]string{
		`p.yaml: error unmarshaling JSON: while decoding JSON: json: unknown field "stpes"`: "name: p\nstpes: []\n",
		`p.yaml: name "P": a pipeline's name`:                                               "name: P\nsteps: [{name: a, file: a.yaml}]\n",
		"p.yaml: steps: a pipeline has at least one step":                                   "name: p\n",
		`p.yaml: steps[1]: name "a": steps[0] has that name too`:                            step("- {name: a, file: a.yaml}\n- {name: a, file: b.yaml}\n"),
		"p.yaml: steps[0] (a): give either file (a job file) or job (an inline job)":        step("- {name: a}\n"),
		`p.yaml: steps[0] (a): after: no step "z" (steps: a)`:                               step("- {name: a, file: a.yaml, after: [z]}\n"),
		"p.yaml: steps[0] (a): after: a step cannot run after itself":                       step("- {name: a, file: a.yaml, after: [a]}\n"),
		"p.yaml: after: the steps form a cycle: a → c → b → a":                              step("- {name: a, file: a.yaml, after: [b]}\n- {name: b, file: a.yaml, after: [c]}\n- {name: c, file: a.yaml, after: [a]}\n"),
		`p.yaml: steps[1] (b): pretrainedFrom: no step "z"`:                                 step("- {name: a, file: a.yaml}\n- {name: b, file: a.yaml, pretrainedFrom: z}\n"),
		"p.yaml: steps[1] (b): pretrainedFrom: a does not run before b (add it to after)":   step("- {name: a, file: a.yaml}\n- {name: b, file: a.yaml, pretrainedFrom: a}\n"),
	} {
		f, err := Parse("p.yaml", []byte(src))
		if err == nil {
			err = f.Validate("p.yaml")
		}
		if err == nil || !strings.Contains(err.Error(), want) || exit.Code(err) != exit.Usage {
			t.Errorf("want %q: got %v (exit %d)", want, err, exit.Code(err))
		}
	}
}
