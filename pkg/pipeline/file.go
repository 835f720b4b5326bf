// Package pipeline is "easyai pipeline": a graph of training jobs run by
// Volcano's JobFlow. A pipeline file names steps, each a job (a job file
// or an inline job, the schema of "submit -f"), the steps it runs after,
// and the step whose model_dir it starts from (serial training:
// pretrainedFrom). Each step renders as a Volcano Job through the volcano
// kind; easyai stores it as a JobTemplate and the graph as a JobFlow,
// whose controller creates each step's job once the steps before it have
// completed. Nothing of easyai keeps running.
package pipeline

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// File is a pipeline file (docs/pipelines.md; its JSON Schema is
// docs/pipeline.schema.json).
type File struct {
	// Name is the pipeline's name (--name replaces it).
	Name  string `json:"name"`
	Steps []Step `json:"steps"`
}

// Step is one job of the pipeline.
type Step struct {
	Name string `json:"name"`
	// After are the steps that must have completed before this one starts.
	After []string `json:"after,omitempty"`
	// File is a job file, relative to the pipeline file; Job an inline
	// job. One of them.
	File string         `json:"file,omitempty"`
	Job  map[string]any `json:"job,omitempty"`
	// PretrainedFrom is a step before this one whose model_dir this step
	// mounts read-only as its pre_model_dir.
	PretrainedFrom string `json:"pretrainedFrom,omitempty"`
}

// Parse reads a pipeline file strictly: an unknown key is an error naming
// it. source names the file in messages.
func Parse(source string, data []byte) (*File, error) {
	var f File
	if err := yaml.UnmarshalStrict(bytes.TrimSpace(data), &f); err != nil {
		return nil, exit.UsageErrorf("%s: %v", source, err)
	}
	return &f, nil
}

// Validate checks the pipeline without the cluster: names, that every step
// has one job, that "after" and "pretrainedFrom" name steps before it, and
// that the graph has no cycle. Every error is a usage error naming the
// file, the step and the key.
func (f *File) Validate(source string) error {
	if errs := validation.IsDNS1035Label(f.Name); f.Name == "" || len(errs) > 0 {
		return exit.UsageErrorf("%s: name %q: a pipeline's name is a DNS-1035 label (lower-case letters, digits and '-', starting with a letter; --name gives one)", source, f.Name)
	}
	if len(f.Steps) == 0 {
		return exit.UsageErrorf("%s: steps: a pipeline has at least one step", source)
	}
	index := map[string]int{}
	for i, s := range f.Steps {
		at := fmt.Sprintf("%s: steps[%d]", source, i)
		if errs := validation.IsDNS1035Label(s.Name); s.Name == "" || len(errs) > 0 {
			return exit.UsageErrorf("%s: name %q: a step's name is a DNS-1035 label", at, s.Name)
		}
		if j, dup := index[s.Name]; dup {
			return exit.UsageErrorf("%s: name %q: steps[%d] has that name too", at, s.Name, j)
		}
		index[s.Name] = i
		if (s.File == "") == (s.Job == nil) {
			return exit.UsageErrorf("%s (%s): give either file (a job file) or job (an inline job)", at, s.Name)
		}
	}
	for i, s := range f.Steps {
		at := fmt.Sprintf("%s: steps[%d] (%s)", source, i, s.Name)
		for _, a := range s.After {
			if _, ok := index[a]; !ok {
				return exit.UsageErrorf("%s: after: no step %q (steps: %s)", at, a, strings.Join(f.names(), ", "))
			}
			if a == s.Name {
				return exit.UsageErrorf("%s: after: a step cannot run after itself", at)
			}
		}
	}
	if cycle := f.cycle(); cycle != nil {
		return exit.UsageErrorf("%s: after: the steps form a cycle: %s", source, strings.Join(cycle, " → "))
	}
	for i, s := range f.Steps {
		if s.PretrainedFrom == "" {
			continue
		}
		at := fmt.Sprintf("%s: steps[%d] (%s)", source, i, s.Name)
		if _, ok := index[s.PretrainedFrom]; !ok {
			return exit.UsageErrorf("%s: pretrainedFrom: no step %q (steps: %s)", at, s.PretrainedFrom, strings.Join(f.names(), ", "))
		}
		if !f.upstream(s.Name)[s.PretrainedFrom] {
			return exit.UsageErrorf("%s: pretrainedFrom: %s does not run before %s (add it to after): its model_dir would not exist yet", at, s.PretrainedFrom, s.Name)
		}
	}
	return nil
}

func (f *File) names() []string {
	out := make([]string, len(f.Steps))
	for i, s := range f.Steps {
		out[i] = s.Name
	}
	return out
}

// Step is the step named name (nil: none is).
func (f *File) Step(name string) *Step {
	for i := range f.Steps {
		if f.Steps[i].Name == name {
			return &f.Steps[i]
		}
	}
	return nil
}

// cycle is a cycle of "after" (nil: none), as the steps on it, the first
// again at the end.
func (f *File) cycle() []string {
	const (
		unseen = iota
		open
		done
	)
	mark := map[string]int{}
	var stack []string
	var found []string
	var visit func(name string) bool
	visit = func(name string) bool {
		mark[name] = open
		stack = append(stack, name)
		for _, a := range f.Step(name).After {
			switch mark[a] {
			case open:
				for i, n := range stack {
					if n == a {
						found = append(append([]string{}, stack[i:]...), a)
					}
				}
				return true
			case unseen:
				if visit(a) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		mark[name] = done
		return false
	}
	for _, s := range f.Steps {
		if mark[s.Name] == unseen && visit(s.Name) {
			// The cycle as the steps run: each after the one before it.
			for i, j := 0, len(found)-1; i < j; i, j = i+1, j-1 {
				found[i], found[j] = found[j], found[i]
			}
			return found
		}
	}
	return nil
}

// upstream are the steps that run before name, directly or not.
func (f *File) upstream(name string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		for _, a := range f.Step(n).After {
			if !seen[a] {
				seen[a] = true
				walk(a)
			}
		}
	}
	walk(name)
	return seen
}

// Downstream are the steps that run after name, directly or not, sorted.
func (f *File) Downstream(name string) []string {
	var out []string
	for _, s := range f.Steps {
		if f.upstream(s.Name)[name] {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Order is the steps in an order that runs each after the ones it needs
// (the file's order among steps that are free to run).
func (f *File) Order() []string {
	var out []string
	placed := map[string]bool{}
	for len(out) < len(f.Steps) {
		for _, s := range f.Steps {
			if placed[s.Name] {
				continue
			}
			ready := true
			for _, a := range s.After {
				ready = ready && placed[a]
			}
			if ready {
				placed[s.Name] = true
				out = append(out, s.Name)
			}
		}
	}
	return out
}

// JobFile is a step's job as a job file: the file it names (relative to the
// pipeline file's directory dir) read by read, or its inline job. Its name
// says the pipeline file and the step, for messages.
func (s *Step) JobFile(source, dir string, read func(path string) ([]byte, error)) (name string, data []byte, err error) {
	if s.File != "" {
		path := s.File
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		data, err := read(path)
		if err != nil {
			return "", nil, exit.UsageErrorf("%s: step %s: file: %v", source, s.Name, err)
		}
		return fmt.Sprintf("%s (step %s of %s)", path, s.Name, source), data, nil
	}
	data, err = yaml.Marshal(s.Job)
	if err != nil {
		return "", nil, exit.UsageErrorf("%s: step %s: job: %v", source, s.Name, err)
	}
	return fmt.Sprintf("%s: step %s: job", source, s.Name), data, nil
}
