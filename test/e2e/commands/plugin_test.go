//go:build e2e

package commands

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// clusterKubectl is the local cluster's kubectl, found as the cluster
// scripts find it (hack/cluster/lib.sh: built into $EASYAI_CACHE_DIR, by
// default .cache/ of the repository).
func clusterKubectl(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", `source hack/cluster/lib.sh && echo "$(kube_bin_dir)/kubectl"`)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("finding the cluster's kubectl through hack/cluster/lib.sh: %v", err)
	}
	kubectl := strings.TrimSpace(string(out))
	if _, err := os.Stat(kubectl); err != nil {
		t.Fatalf("the cluster's kubectl: %v (make cluster-build builds it)", err)
	}
	return kubectl
}

// TestKubectlPlugin installs easyai as a kubectl plugin (kubectl-easyai on
// the PATH, a link to the easyai binary, as the release archives and krew
// ship it) and runs it through kubectl: "kubectl easyai list" lists the
// jobs, and help, hints and usage errors name the command "kubectl easyai".
func TestKubectlPlugin(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	kubectl := clusterKubectl(t)
	pathDir := t.TempDir()
	if err := os.Symlink(easyai.Binary(t), filepath.Join(pathDir, "kubectl-easyai")); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) easyai.Result {
		t.Helper()
		cmd := exec.Command(kubectl, args...)
		cmd.Env = append(os.Environ(), "PATH="+pathDir+string(os.PathListSeparator)+os.Getenv("PATH"),
			"KUBECONFIG="+c.Kubeconfig, "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
		return easyai.Exec(t, cmd, 2*time.Minute)
	}

	if r := run("plugin", "list"); r.Code != 0 || !strings.Contains(r.Stdout, filepath.Join(pathDir, "kubectl-easyai")) {
		t.Fatalf("kubectl plugin list does not show kubectl-easyai (exit %d)", r.Code)
	}

	// Submitted through the plugin, the job's hint names the plugin.
	sub := run("easyai", "submit", "-n", ns, "-f", filepath.Join(examplesDir, "tf-mnist", "job.yaml"),
		"-f", simulated(t, time.Hour), "--gpus", "0", "--cpu", "1", "--memory", "1Gi")
	if sub.Code != 0 || sub.Stdout != "tf/tf-mnist submitted to namespace "+ns+"\n" {
		t.Fatalf("kubectl easyai submit: exit %d, want 0 and the job on stdout", sub.Code)
	}
	if !strings.Contains(sub.Stderr, "See it with: kubectl easyai get tf/tf-mnist -n "+ns) {
		t.Errorf("kubectl easyai submit: the hint does not name kubectl easyai")
	}

	list := run("easyai", "list", "-n", ns)
	fields := strings.Split(strings.TrimSuffix(list.Stdout, "\n"), "\t")
	if list.Code != 0 || strings.Count(list.Stdout, "\n") != 1 || len(fields) < 3 || fields[0] != "tf-mnist" || fields[1] != "tf" {
		t.Fatalf("kubectl easyai list: exit %d, want 0 and the one line of tf-mnist", list.Code)
	}

	help := run("easyai", "--help")
	for _, want := range []string{"kubectl easyai [command]", `Use "kubectl easyai [command] --help"`} {
		if help.Code != 0 || !strings.Contains(help.Stdout, want) {
			t.Errorf("kubectl easyai --help: exit %d, want 0 and %q", help.Code, want)
		}
	}
	if listHelp := run("easyai", "list", "--help"); !strings.Contains(listHelp.Stdout, "kubectl easyai list [flags]") {
		t.Errorf("kubectl easyai list --help does not name kubectl easyai list")
	}
	// The exit code of easyai is kubectl's.
	if bad := run("easyai", "list", "--no-such-flag"); bad.Code != 2 || !strings.Contains(bad.Stderr, "see kubectl easyai list --help") {
		t.Errorf("kubectl easyai list --no-such-flag: exit %d, want 2 and a pointer to kubectl easyai list --help", bad.Code)
	}

	// Run as itself, easyai is still easyai.
	if own := easyai.Run(t, "--help"); strings.Contains(own.Stdout, "kubectl easyai") {
		t.Errorf("easyai --help names kubectl easyai")
	}
}
