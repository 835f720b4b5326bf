package hack

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The machine's prerequisites are one list (prerequisites.sh): the README's
// install line names exactly its packages, and CI installs from the same
// list rather than a copy of its own.
func TestPrerequisitesAreOneList(t *testing.T) {
	out, err := exec.Command("bash", "prerequisites.sh", "packages").Output()
	if err != nil {
		t.Fatal(err)
	}
	packages := strings.TrimSpace(string(out))
	if len(strings.Fields(packages)) < 5 {
		t.Fatalf("prerequisites.sh packages: %q", packages)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.Contains(line, "apt-get install") {
			lines = append(lines, line)
		}
	}
	if want := "apt-get install -y " + packages; len(lines) != 1 || !strings.HasSuffix(lines[0], want) {
		t.Errorf("README's install lines %q; want one ending %q", lines, want)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "hack/prerequisites.sh install") || strings.Contains(string(ci), "apt-get") {
		t.Errorf(".ci/run must install with hack/prerequisites.sh install and name no packages of its own:\n%s", ci)
	}
}
