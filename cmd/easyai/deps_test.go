package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// heavyInit are packages whose initialization costs every run of easyai,
// whatever the command, more than what they bring is worth. A package's
// init runs whenever the package is linked in, used or not: the only way to
// keep its cost out of `easyai version` and `easyai list` is to keep it out
// of the binary.
var heavyInit = map[string]string{
	// Compiles the metaschema of every JSON Schema draft when the program
	// starts (a seventh of `easyai version`'s CPU). Helm's
	// pkg/chart/common/util and pkg/chart/v2/util import it; pkg/render
	// uses neither (values.go, schema.go).
	"github.com/santhosh-tekuri/jsonschema/v6": "compiles every JSON Schema draft's metaschema at start-up",
}

// TestNoHeavyInitLinked: none of heavyInit is linked into easyai.
func TestNoHeavyInitLinked(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 || !slices.Contains(deps, "k8s.io/client-go/rest") {
		t.Fatalf("go list -deps listed %d packages without client-go: not easyai's dependencies", len(deps))
	}
	for _, dep := range deps {
		if why, ok := heavyInit[dep]; ok {
			t.Errorf("easyai links %s, which %s: find what imports it (go mod why -m, go list -deps) and keep it out", dep, why)
		}
	}
}
