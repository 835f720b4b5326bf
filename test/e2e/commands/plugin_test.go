//go:build e2e

package commands

import (
	"bytes"
	"context"
	"errors"
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

// pluginResult is what one kubectl run did.
type pluginResult struct {
	stdout, stderr string
	code           int
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
	run := func(args ...string) pluginResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, kubectl, args...)
		cmd.Env = append(os.Environ(), "PATH="+pathDir+string(os.PathListSeparator)+os.Getenv("PATH"),
			"KUBECONFIG="+c.Kubeconfig, "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		t.Logf("kubectl %s -> %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		return pluginResult{stdout.String(), stderr.String(), code}
	}

	if r := run("plugin", "list"); r.code != 0 || !strings.Contains(r.stdout, filepath.Join(pathDir, "kubectl-easyai")) {
		t.Fatalf("kubectl plugin list does not show kubectl-easyai (exit %d)", r.code)
	}

	// Submitted through the plugin, the job's hint names the plugin.
	sub := run("easyai", "submit", "-n", ns, "-f", filepath.Join(examplesDir, "tf-mnist", "job.yaml"),
		"-f", simulated(t, time.Hour), "--gpus", "0", "--cpu", "1", "--memory", "1Gi")
	if sub.code != 0 || sub.stdout != "tf/tf-mnist submitted to namespace "+ns+"\n" {
		t.Fatalf("kubectl easyai submit: exit %d, want 0 and the job on stdout", sub.code)
	}
	if !strings.Contains(sub.stderr, "See it with: kubectl easyai get tf/tf-mnist -n "+ns) {
		t.Errorf("kubectl easyai submit: the hint does not name kubectl easyai")
	}

	list := run("easyai", "list", "-n", ns)
	fields := strings.Split(strings.TrimSuffix(list.stdout, "\n"), "\t")
	if list.code != 0 || strings.Count(list.stdout, "\n") != 1 || len(fields) < 3 || fields[0] != "tf-mnist" || fields[1] != "tf" {
		t.Fatalf("kubectl easyai list: exit %d, want 0 and the one line of tf-mnist", list.code)
	}

	help := run("easyai", "--help")
	for _, want := range []string{"kubectl easyai [command]", `Use "kubectl easyai [command] --help"`} {
		if help.code != 0 || !strings.Contains(help.stdout, want) {
			t.Errorf("kubectl easyai --help: exit %d, want 0 and %q", help.code, want)
		}
	}
	if listHelp := run("easyai", "list", "--help"); !strings.Contains(listHelp.stdout, "kubectl easyai list [flags]") {
		t.Errorf("kubectl easyai list --help does not name kubectl easyai list")
	}
	// The exit code of easyai is kubectl's.
	if bad := run("easyai", "list", "--no-such-flag"); bad.code != 2 || !strings.Contains(bad.stderr, "see kubectl easyai list --help") {
		t.Errorf("kubectl easyai list --no-such-flag: exit %d, want 2 and a pointer to kubectl easyai list --help", bad.code)
	}

	// Run as itself, easyai is still easyai.
	if own := easyai.Run(t, "--help"); strings.Contains(own.Stdout, "kubectl easyai") {
		t.Errorf("easyai --help names kubectl easyai")
	}
}
