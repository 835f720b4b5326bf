//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/shlex"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// notRun are the documented command lines this test does not run, by how
// they start, with the reason. Every other line must run easyai.
var notRun = []struct{ prefix, why string }{
	{"make ", "builds easyai or the local cluster, or runs the suites (make test runs this one)"},
	{"eval ", "changes the calling shell"},
	{"go install ", "installs a published version through the module proxy"},
	{"brew ", "installs a published release through Homebrew"},
	{"kubectl krew ", "installs a published release through krew (TestKubectlPlugin runs the plugin)"},
	{"kubectl apply ", "applies the RBAC example to the cluster as its admin"},
	{"kubectl create secret ", "makes the Secret of a git clone (TestCodeFromGit checks the clone's pod spec)"},
	{"apt-get ", "installs the machine's prerequisites (hack/prerequisites.sh; .ci/run installs the same list)"},
	{"examples/ci/train.sh ", "a CI step that waits up to 2h for a job in namespace ml-ci; submit --wait --logs is run from README.md"},
}

// clientDryRun are the submits the local cluster cannot check, by a part of
// their line, with the reason: they run with --dry-run=client, which
// renders and checks the job in easyai only.
var clientDryRun = []struct{ part, why string }{
	{"--backend t9k", "the local cluster has no T9k, whose ColossalAIJob controller is not public"},
}

// docJobFile is what the docs call job.yaml (and what generate-job
// prints): a TFJob whose one worker succeeds after 2s on the fake nodes.
const docJobFile = `kind: tf
image: example.com/train:1
command: [python, train.py]
roles:
  worker:
    replicas: 1
podAnnotations:
  ` + cluster.ExitCodeAnnotation + `: "0"
  ` + cluster.RunForAnnotation + `: 2s
`

// docCommand is one command line of a shell block of the docs.
type docCommand struct {
	file string // relative to the repository's root
	line int    // where the command starts
	text string // as shown, continued lines joined
}

func (d docCommand) String() string { return fmt.Sprintf("%s:%d: %s", d.file, d.line, d.text) }

// extractCommands returns the command lines of a Markdown file's shell
// blocks: every line of a sh, shell or bash block, and the lines after a
// "$ " prompt in a console or unnamed block. Comments and blank lines are
// skipped; a line ending with a backslash continues on the next.
func extractCommands(file, content string) []docCommand {
	var out []docCommand
	var pending *docCommand
	inBlock, lang := false, ""
	for i, raw := range strings.Split(content, "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") {
			inBlock, lang, pending = !inBlock, strings.TrimSpace(strings.TrimLeft(line, "`")), nil
			continue
		}
		if !inBlock {
			continue
		}
		if pending != nil {
			text, more := strings.CutSuffix(line, `\`)
			pending.text += " " + strings.TrimSpace(text)
			if !more {
				out, pending = append(out, *pending), nil
			}
			continue
		}
		text, prompted := strings.CutPrefix(line, "$ ")
		switch lang {
		case "sh", "shell", "bash":
		case "", "console":
			if !prompted {
				continue
			}
		default:
			continue
		}
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		text, more := strings.CutSuffix(text, `\`)
		cmd := docCommand{file: file, line: i + 1, text: strings.TrimSpace(text)}
		if more {
			pending = &cmd
			continue
		}
		out = append(out, cmd)
	}
	return out
}

func TestExtractCommands(t *testing.T) {
	md := "text\n```sh\n# a comment\neasyai submit tf --workers 2 \\\n  --gpus 1 -- python train.py   # trailing\n\n" +
		"generate-job | easyai submit -f -\n```\n```\n$ easyai get mnist\nRunning\n```\n```yaml\nkind: tf\n```\n```go\nx := 1\n```\n"
	got := extractCommands("doc.md", md)
	want := []docCommand{
		{"doc.md", 4, "easyai submit tf --workers 2 --gpus 1 -- python train.py   # trailing"},
		{"doc.md", 7, "generate-job | easyai submit -f -"},
		{"doc.md", 10, "easyai get mnist"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("extractCommands =\n%q\nwant\n%q", got, want)
	}
}

// documentedCommands returns the command lines of README.md, docs/*.md
// (not docs/cli, which is generated) and examples/**/README.md.
func documentedCommands(t *testing.T, root string) map[string][]docCommand {
	t.Helper()
	files := []string{"README.md"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	err = filepath.WalkDir(filepath.Join(root, "examples"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "README.md" {
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]docCommand{}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if cmds := extractCommands(f, string(data)); len(cmds) > 0 {
			out[f] = cmds
		}
	}
	return out
}

// TestDocumentedCommandsRun runs every command line the docs show, as
// shown, against the local cluster. Each file's commands run in order, in
// a namespace of their own where the jobs they name already run
// (startDocJob): their replicas print log lines, hold an outputs/
// directory and serve port 6006. Commands that run until stopped (logs -f,
// wait, port-forward, open) must do their work, then end with Ctrl-C;
// attach and delete get a terminal to answer on. Submits run with
// --dry-run=server in a namespace of their own (the jobs they describe ask
// for up to 32 of the fake nodes' GPUs, which other tests need); a --wait
// submit runs for real. A rerun runs with --dry-run=server too, in the
// file's namespace, where the job it names runs. A command's "> FILE"
// writes its stdout into the working directory, for the next commands.
func TestDocumentedCommandsRun(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	byFile := documentedCommands(t, root)
	if len(byFile["README.md"]) == 0 {
		t.Fatalf("no commands found in %s/README.md", root)
	}
	easyai.Binary(t) // built once, before the parallel files
	submitNS := c.Namespace(t)
	submitKubeconfig := kubeconfigIn(t, c, submitNS)
	// The team's claim the docs' submits with --storage name, and its files
	// for the uploads.
	c.BoundClaim(t, submitNS, "team-data")
	// The claims the docs' --data flags name (submit checks they exist).
	c.BoundClaim(t, submitNS, "train-code")
	c.NamespaceExecDir(t, submitNS)

	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, file := range files {
		cmds := byFile[file]
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			d := &docRunner{dir: t.TempDir(), submitKubeconfig: submitKubeconfig, c: c}
			if err := os.Symlink(filepath.Join(root, "examples"), filepath.Join(d.dir, "examples")); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(d.dir, "job.yaml"), []byte(docJobFile), 0o644); err != nil {
				t.Fatal(err)
			}
			// The jobs the commands name; true: one whose model is
			// served (serve create --model-from), which has a storage.
			names := map[string]bool{}
			for _, cmd := range cmds {
				if name := jobNamed(cmd); name != "" {
					if _, ok := names[name]; !ok {
						names[name] = false
					}
				}
				if name := modelFromNamed(cmd); name != "" {
					names[name] = true
				}
			}
			if runsEasyai(cmds) {
				ns := c.Namespace(t)
				if slices.ContainsFunc(cmds, func(cmd docCommand) bool { return strings.Contains(cmd.text, "easyai pipeline run") }) {
					// Volcano labels a step's job NAMESPACE.PIPELINE-STEP,
					// at most 63 characters (docs/pipelines.md).
					ns = c.ShortNamespace(t)
				}
				d.kubeconfig, d.ns = kubeconfigIn(t, c, ns), ns
				if slices.Contains(slices.Collect(maps.Values(names)), true) {
					c.BoundClaim(t, ns, "team-data")
				}
				prepareFlowsAndSchedules(t, c, ns, cmds)
				for _, name := range slices.Sorted(maps.Keys(names)) {
					var extra []string
					if names[name] {
						extra = []string{"--storage", "pvc:team-data"}
					}
					startDocJob(t, c, root, ns, name, extra...)
				}
			}
			for _, cmd := range cmds {
				t.Run(fmt.Sprintf("line %d", cmd.line), func(t *testing.T) { d.run(t, cmd) })
			}
		})
	}
}

// kubeconfigIn writes a copy of the cluster's kubeconfig whose context's
// namespace is ns, so that commands run there as shown, without -n.
func kubeconfigIn(t *testing.T, c *cluster.Cluster, ns string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Contexts[cfg.CurrentContext].Namespace = ns
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// jobVerbs are the commands whose first argument is a job.
var jobVerbs = []string{"get", "logs", "wait", "exec", "attach", "port-forward", "open", "download", "suspend", "resume", "delete", "rerun"}

// jobNamed returns the job a command acts on, without its kind (tf/mnist
// is mnist), or "".
func jobNamed(cmd docCommand) string {
	words, err := shlex.Split(cmd.text)
	if err != nil || len(words) < 3 || words[0] != "easyai" || !slices.Contains(jobVerbs, words[1]) {
		return ""
	}
	for _, w := range words[2:] {
		if w == "--" || w == "|" {
			return ""
		}
		if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
			_, name, _ := strings.Cut(w, "/")
			if name == "" {
				name = w
			}
			return name
		}
	}
	return ""
}

// modelFromNamed returns the job whose model a "serve create" serves
// (--model-from JOB), or "".
func modelFromNamed(cmd docCommand) string {
	words, err := shlex.Split(cmd.text)
	if err != nil || len(words) < 3 || words[0] != "easyai" || words[1] != "serve" || words[2] != "create" {
		return ""
	}
	for i, w := range words {
		if w == "--" {
			return ""
		}
		if v, ok := strings.CutPrefix(w, "--model-from="); ok {
			return v
		}
		if w == "--model-from" && i+1 < len(words) {
			return words[i+1]
		}
	}
	return ""
}

func runsEasyai(cmds []docCommand) bool {
	return slices.ContainsFunc(cmds, func(cmd docCommand) bool { return strings.Contains(cmd.text, "easyai ") })
}

// exampleNamed returns the example job file (examples/*/job.yaml) whose
// job is called name, or the TF example's when none is, and its kind.
func exampleNamed(t *testing.T, root, name string) (file, kind string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, "examples", "*", "job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var job struct{ Kind, Name string }
		if err := yaml.Unmarshal(data, &job); err == nil && job.Name == name {
			return f, job.Kind
		}
	}
	return filepath.Join(root, "examples", "tf-mnist", "job.yaml"), "tf"
}

// startDocJob submits the example job called name (exampleNamed), with
// the extra flags (a storage, for a job whose model is served), without
// GPUs, as docs/labels.md shows with a "tensorboard" endpoint on port 6006,
// and waits until it runs. Then each of its replicas prints two log lines,
// runs exec in a directory holding outputs/metrics.json and answers on
// port 6006 with "tensorboard of NAME".
func startDocJob(t *testing.T, c *cluster.Cluster, root, ns, name string, extra ...string) {
	t.Helper()
	file, kind := exampleNamed(t, root, name)
	args := []string{"submit", kind, "-n", ns, "-f", file, "--name", name,
		"--set", "resources.gpus=0,resources.cpu=1,resources.memory=1Gi",
		"--annotation", `easyai.io/endpoints={"tensorboard":{"port":6006}}`}
	args = append(args, extra...)
	if kind == "colossalai" {
		// Volcano runs it here. T9k's ColossalAIJob, which another test
		// serves for a while, has no controller on the local cluster.
		args = append(args, "--backend", "volcano")
	}
	easyai.Run(t, args...).MustSucceed(t)
	easyai.Run(t, "wait", name, "-n", ns, "--for", "running", "--timeout", "90s").MustSucceed(t)
	// Every replica's pod, not the first ones made: the operators make a
	// job's pods in turn (a TrainJob's launcher and nodes are two Jobs), and
	// a pod made after this has no log to follow.
	replicas := jobReplicas(t, ns, name)
	var pods []corev1.Pod
	cluster.Eventually(t, 90*time.Second, fmt.Sprintf("the %d pods of %s running", replicas, name), func(ctx context.Context) (bool, error) {
		list, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/job-name=" + name})
		if err != nil || len(list.Items) < replicas {
			return false, err
		}
		pods = list.Items
		return !slices.ContainsFunc(pods, func(p corev1.Pod) bool { return p.Status.Phase != corev1.PodRunning }), nil
	})
	tensorboard := serve(t, "tensorboard of "+name).Listener.Addr().String()
	for _, p := range pods {
		c.PodLog(t, ns, p.Name, nil).Println(p.Name+" step 100: loss 0.93", p.Name+" step 200: loss 0.61")
		outputs := filepath.Join(c.PodExecDir(t, ns, p.Name), "outputs")
		if err := os.MkdirAll(outputs, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(outputs, "metrics.json"), []byte(`{"loss": 0.61}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		c.PodPortForward(t, ns, p.Name, 6006, tensorboard)
	}
}

// jobReplicas is how many replicas the job name asks for, over every role,
// as easyai list counts them (WORKERS' total).
func jobReplicas(t *testing.T, ns, name string) int {
	t.Helper()
	res := easyai.Run(t, "list", "-n", ns, "-o", "json").MustSucceed(t)
	var list struct {
		Items []struct {
			Name    string
			Workers struct{ Total int }
		}
	}
	if err := json.Unmarshal([]byte(res.Stdout), &list); err != nil {
		t.Fatalf("easyai list -o json: %v\n%s", err, res.Stdout)
	}
	for _, item := range list.Items {
		if item.Name == name && item.Workers.Total > 0 {
			return item.Workers.Total
		}
	}
	t.Fatalf("easyai list -n %s shows no job %s with replicas:\n%s", ns, name, res.Stdout)
	return 0
}

// docRunner runs the commands of one file, in order.
type docRunner struct {
	// dir is the working directory: examples/ of the repository, and a
	// job.yaml (docJobFile).
	dir string
	// kubeconfig's namespace holds the jobs the commands name;
	// submitKubeconfig's is shared by the submits of every file.
	kubeconfig, submitKubeconfig string
	// ns is kubeconfig's namespace; c the cluster.
	ns string
	c  *cluster.Cluster
}

// env is the environment of easyai: kubeconfig, no configuration file of
// the user's, no colour.
func (d *docRunner) env(t *testing.T, kubeconfig string) []string {
	return append(os.Environ(), "KUBECONFIG="+kubeconfig, "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
}

func (d *docRunner) run(t *testing.T, cmd docCommand) {
	words, err := shlex.Split(cmd.text)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	// A pipeline: generate-job | easyai ..., or easyai ... | jq ...
	segments := [][]string{nil}
	for _, w := range words {
		if w == "|" {
			segments = append(segments, nil)
		} else {
			segments[len(segments)-1] = append(segments[len(segments)-1], w)
		}
	}
	at := slices.IndexFunc(segments, func(s []string) bool { return len(s) > 0 && s[0] == "easyai" })
	if at < 0 {
		// Variables set for the command (NAME=value ...) come before it.
		program := slices.IndexFunc(words, func(w string) bool { return !strings.Contains(w, "=") })
		shown := strings.Join(words[max(program, 0):], " ") + " "
		for _, n := range notRun {
			if strings.HasPrefix(shown, n.prefix) {
				t.Skipf("not run: %s", n.why)
			}
		}
		t.Fatalf("%s: not an easyai command: run it in this test, or add it to notRun with the reason", cmd)
	}
	stdin := ""
	for _, s := range segments[:at] {
		if len(s) == 0 || s[0] != "generate-job" {
			t.Fatalf("%s: teach the test what %q writes to easyai", cmd, s)
		}
		stdin = docJobFile
	}
	after := segments[at+1:]
	for _, s := range after {
		if len(s) == 0 || s[0] != "jq" {
			t.Fatalf("%s: teach the test what to do with %q", cmd, s)
		}
	}
	args := segments[at][1:]
	if len(args) == 0 {
		t.Fatalf("%s: easyai without a command", cmd)
	}
	// "> FILE" at the end: stdout goes into FILE of the working directory.
	redirect := ""
	if i := slices.Index(args, ">"); i >= 0 {
		if i != len(args)-2 || len(after) > 0 {
			t.Fatalf("%s: teach the test this redirection", cmd)
		}
		args, redirect = args[:i], args[i+1]
	}
	save := func(stdout string) {
		if redirect == "" {
			return
		}
		if err := os.WriteFile(filepath.Join(d.dir, redirect), []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%s", cmd)

	switch verb := args[0]; {
	case verb == "submit", verb == "rerun":
		// A rerun submits again the job of the file's namespace.
		kubeconfig := d.submitKubeconfig
		if verb == "rerun" {
			kubeconfig = d.kubeconfig
		}
		if !hasFlag(args, "--dry-run") && !hasFlag(args, "--wait") {
			dryRun := "--dry-run=server"
			for _, c := range clientDryRun {
				if strings.Contains(cmd.text, c.part) {
					dryRun = "--dry-run=client"
					t.Logf("%s: %s", dryRun, c.why)
				}
			}
			args = beforeDashDash(args, dryRun)
		}
		res := d.runOnce(t, kubeconfig, stdin, args)
		if res.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, res.Code, res.Stderr)
		}
		save(res.Stdout)
	case verb == "upload":
		// Onto the claim of the submits' namespace, from a local path made
		// here; each command has a configuration of its own, so the storage
		// the docs set once is given.
		if len(args) < 2 || hasFlag(args, "--to") && !slices.Contains(args, "data") && !slices.Contains(args, "share") {
			t.Fatalf("%s: teach the test this upload", cmd)
		}
		makeLocal(t, filepath.Join(d.dir, args[1]))
		if !hasFlag(args, "--storage") {
			args = append(args, "--storage", "pvc:team-data")
		}
		res := d.runOnce(t, d.submitKubeconfig, "", args)
		if res.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, res.Code, res.Stderr)
		}
	case redirect != "" && verb != "get" && verb != "list":
		t.Fatalf("%s: teach the test this redirection", cmd)
	case verb == "logs" && (hasFlag(args, "-f") || hasFlag(args, "--follow")),
		verb == "wait", verb == "port-forward", verb == "open":
		d.runUntilInterrupted(t, cmd, args)
	case verb == "attach" && !hasFlag(args, "--command"):
		// The shell's answer, not the echo of what was typed: attached-42.
		// The pause before exit: the local cluster's fake pods end an exec
		// stream as soon as the shell exits, and may drop its last output.
		d.runOnTerminal(t, cmd, args, "", "echo attached-$((6*7)); sleep 1; exit\r", "attached-42")
	case verb == "serve" && len(args) > 2 && args[1] == "invoke":
		// The serving's ready pods answer on their port: a server of this test.
		d.answerServing(t, args[2])
		res := d.runOnce(t, d.kubeconfig, stdin, args)
		if res.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, res.Code, res.Stderr)
		}
		for _, s := range after {
			pipeToJQ(t, cmd, res.Stdout, s[1:])
		}
	case verb == "pipeline" && len(args) > 1 && args[1] == "run" && !hasFlag(args, "--dry-run"):
		// The pipeline is made; pipelineDone drives its steps to their end
		// (the fake nodes' pods run until told), so --wait is left out.
		args = slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--wait" })
		d.runOnce(t, d.kubeconfig, stdin, args).MustSucceed(t)
	case verb == "pipeline" && len(args) > 2 && (args[1] == "logs" || args[1] == "wait"):
		d.pipelineDone(t, args[2])
		if res := d.runOnce(t, d.kubeconfig, stdin, args); res.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, res.Code, res.Stderr)
		}
	case verb == "delete" && !hasFlag(args, "--yes") && !hasFlag(args, "-y"):
		d.runOnTerminal(t, cmd, args, "Delete ", "y\r", "deleted ")
	default:
		if verb == "resume" && len(args) > 1 {
			// The operator reports the suspend a moment after it.
			d.runOnce(t, d.kubeconfig, "", []string{"wait", args[1], "--for", "suspended", "--timeout", "60s"}).MustSucceed(t)
		}
		res := d.runOnce(t, d.kubeconfig, stdin, args)
		if res.Code != 0 && !missingProgram(t, args, res) {
			t.Fatalf("%s: exit %d\n%s", cmd, res.Code, res.Stderr)
		}
		for _, s := range after {
			pipeToJQ(t, cmd, res.Stdout, s[1:])
		}
		save(res.Stdout)
	}
}

// prepareFlowsAndSchedules makes ready in ns what the docs' pipelines and
// schedules need there: the team's claim their steps' storage names, and
// the ServiceAccount a schedule's launcher runs as (examples/rbac makes it
// where a team admin applies it).
func prepareFlowsAndSchedules(t *testing.T, c *cluster.Cluster, ns string, cmds []docCommand) {
	t.Helper()
	has := func(part string) bool {
		return slices.ContainsFunc(cmds, func(cmd docCommand) bool { return strings.Contains(cmd.text, part) })
	}
	if has("easyai pipeline run") {
		c.BoundClaim(t, ns, "team-data")
	}
	if has("easyai cron create") {
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "easyai-cron"}}
		if _, err := c.Kube.CoreV1().ServiceAccounts(ns).Create(cluster.Context(t, 30*time.Second), sa, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// pipelineDone drives the pipeline name of the file's namespace to its
// end: each step's pods, once running, print a line and end with exit 0 (on
// the fake nodes they run until told), until every step has succeeded.
func (d *docRunner) pipelineDone(t *testing.T, name string) {
	t.Helper()
	cluster.Eventually(t, 3*time.Minute, "every step of pipeline "+name+" succeeded", func(ctx context.Context) (bool, error) {
		pods, err := d.c.Kube.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{LabelSelector: "volcano.sh/job-name"})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning && p.Annotations[cluster.RunForAnnotation] == "" {
				d.c.PodLog(t, d.ns, p.Name, nil).Println(p.Name + ": step done")
				d.c.EndPod(t, d.ns, p.Name, 0)
			}
		}
		res := d.runOnce(t, d.kubeconfig, "", []string{"pipeline", "get", name, "-o", "json"})
		var st struct{ State string }
		if res.Code != 0 || json.Unmarshal([]byte(res.Stdout), &st) != nil {
			return false, nil
		}
		return st.State == "Succeeded", nil
	})
}

// answerServing makes every pod of the serving name answer on its port
// (the easyai.io/port annotation) with a JSON document naming it.
func (d *docRunner) answerServing(t *testing.T, name string) {
	t.Helper()
	ctx := cluster.Context(t, 30*time.Second)
	pods, err := d.c.Kube.CoreV1().Pods(d.ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/serving=" + name})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("the pods of serving %s: %v (%d)", name, err, len(pods.Items))
	}
	deps, err := d.c.Kube.AppsV1().Deployments(d.ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/serving=" + name})
	if err != nil || len(deps.Items) == 0 {
		t.Fatalf("the Deployments of serving %s: %v", name, err)
	}
	port, err := strconv.Atoi(deps.Items[0].Annotations["easyai.io/port"])
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(t, "serving "+name)
	for _, p := range pods.Items {
		d.c.PodPortForward(t, d.ns, p.Name, int32(port), srv.Listener.Addr().String())
	}
}

// makeLocal makes the local file or directory an upload names, unless it
// exists: a file when its name has an extension, else a directory of two.
func makeLocal(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	if filepath.Ext(path) != "" {
		if err := os.WriteFile(path, []byte("uploaded\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, name := range []string{"a.txt", "part/b.bin"} {
		p := filepath.Join(path, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// hasFlag says whether args give the flag before "--".
func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// beforeDashDash adds flag before "--" (after which the words are the
// container's command), or at the end.
func beforeDashDash(args []string, flag string) []string {
	i := slices.Index(args, "--")
	if i < 0 {
		i = len(args)
	}
	return slices.Insert(slices.Clone(args), i, flag)
}

// missingProgram accepts one failure of "exec -- PROGRAM": the local
// cluster runs an exec'd command on this machine, not in the job's image,
// so a program only a GPU image has (nvidia-smi) is missing in every
// replica, which the exec then reports.
func missingProgram(t *testing.T, args []string, res easyai.Result) bool {
	i := slices.Index(args, "--")
	if args[0] != "exec" || i < 0 || i+1 == len(args) || res.Code != 1 {
		return false
	}
	program := args[i+1]
	if _, err := exec.LookPath(program); err == nil {
		return false
	}
	if !strings.Contains(res.Stderr, fmt.Sprintf("exec: %q: executable file not found", program)) {
		return false
	}
	t.Logf("%s is not on this machine, which stands in for the replicas' containers: exec reached every replica and reported it", program)
	return true
}

// pipeToJQ runs jq with args on stdout. Without jq, stdout must be JSON.
func pipeToJQ(t *testing.T, cmd docCommand, stdout string, args []string) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		if !json.Valid([]byte(stdout)) {
			t.Fatalf("%s: stdout is not JSON for jq:\n%s", cmd, stdout)
		}
		t.Logf("jq is not installed: checked only that easyai's output is JSON")
		return
	}
	jq := exec.Command("jq", args...)
	jq.Stdin = strings.NewReader(stdout)
	out, err := jq.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: jq: %v\n%s", cmd, err, out)
	}
	t.Logf("jq: %s", out)
}

// runOnce runs easyai in the working directory, without a terminal, and
// waits at most a minute.
func (d *docRunner) runOnce(t *testing.T, kubeconfig, stdin string, args []string) easyai.Result {
	t.Helper()
	cmd := exec.Command(easyai.Binary(t), args...)
	cmd.Dir, cmd.Env = d.dir, d.env(t, kubeconfig)
	cmd.Stdin = strings.NewReader(stdin)
	return easyai.Exec(t, cmd, time.Minute)
}

// runUntilInterrupted runs a command that goes on until stopped: logs -f
// must print the replicas' lines, port-forward and open must forward to
// the replica's port (open also handing the URL to the browser), wait must
// still be waiting after two seconds. Then Ctrl-C ends it with exit 130.
// Should it end by itself first, it must exit 0.
func (d *docRunner) runUntilInterrupted(t *testing.T, cmd docCommand, args []string) {
	t.Helper()
	browser, opened := fakeBrowser(t)
	f := startForwarding(t, []string{"KUBECONFIG=" + d.kubeconfig, browser}, args...)
	patience := time.Minute
	if args[0] == "wait" {
		patience = 2 * time.Second
	}
	var line string
	select {
	case line = <-f.lines:
	case err := <-f.done:
		if code := f.cmd.ProcessState.ExitCode(); code != 0 {
			t.Fatalf("%s: exit %d (%v)\n%s", cmd, code, err, f.stderr.String())
		}
		return
	case <-time.After(patience):
		if args[0] != "wait" {
			t.Fatalf("%s: nothing on stdout after %s\n%s", cmd, patience, f.stderr.String())
		}
	}
	t.Logf("%s: stdout %q", cmd, line)
	switch args[0] {
	case "wait":
		if line != "" {
			t.Fatalf("%s: printed %q while waiting", cmd, line)
		}
	case "port-forward", "open":
		url := line[strings.Index(line, "http://"):]
		url, _, _ = strings.Cut(url, " ")
		if body := httpGet(t, url, f); !strings.HasPrefix(body, "tensorboard of ") {
			t.Errorf("%s: GET %s = %q", cmd, url, body)
		}
		if args[0] == "open" {
			cluster.Eventually(t, 20*time.Second, "the browser opened", func(context.Context) (bool, error) {
				argv, _ := opened()
				return strings.Contains(argv, url), nil
			})
		}
	}
	f.interrupt(t)
	t.Logf("stderr:\n%s", f.stderr.String())
}

// runOnTerminal runs a command that needs a terminal: once the terminal
// shows prompt (or anything, for ""), the test types input; the command
// must then exit 0, having shown want.
// The terminal answers where its cursor is when asked, as a terminal does
// (the questions of delete ask before they read the answer).
func (d *docRunner) runOnTerminal(t *testing.T, cmd docCommand, args []string, prompt, input, want string) {
	t.Helper()
	c := exec.Command(easyai.Binary(t), args...)
	c.Dir, c.Env = d.dir, d.env(t, d.kubeconfig)
	term, err := pty.StartWithSize(c, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close()
	var out easyai.LockedBuffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(&out, term) // fails with EIO once easyai exits
	}()
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	deadline := time.After(time.Minute)
	answered := 0
	for out.String() == "" || !strings.Contains(out.String(), prompt) {
		answered = answerCursorQueries(t, term, out.String(), answered)
		select {
		case err := <-exited:
			t.Fatalf("%s: exited (%v) before %q; terminal:\n%s", cmd, err, prompt, out.String())
		case <-deadline:
			_ = c.Process.Kill()
			t.Fatalf("%s: no %q after a minute; terminal:\n%s", cmd, prompt, out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	// Type once the terminal is quiet: the remote shell started, or the
	// question asked where the cursor is and waits for keys.
	time.Sleep(time.Second)
	for shown := ""; shown != out.String(); {
		shown = out.String()
		answered = answerCursorQueries(t, term, shown, answered)
		time.Sleep(300 * time.Millisecond)
	}
	if _, err := term.Write([]byte(input)); err != nil {
		t.Fatal(err)
	}
	deadline = time.After(time.Minute)
wait:
	for {
		answered = answerCursorQueries(t, term, out.String(), answered)
		select {
		case err = <-exited:
			break wait
		case <-deadline:
			_ = c.Process.Kill()
			t.Fatalf("%s: still running a minute after %q was typed; terminal:\n%s", cmd, input, out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	// What the command wrote last may still wait in the terminal: read it
	// all (the read ends with EIO once no process holds the terminal)
	// before closing it.
	select {
	case <-copied:
	case <-time.After(10 * time.Second):
	}
	term.Close()
	<-copied
	t.Logf("terminal:\n%s", out.String())
	if err != nil || !strings.Contains(out.String(), want) {
		t.Fatalf("%s: %v, want exit 0 and %q; terminal:\n%s", cmd, err, want, out.String())
	}
}

// answerCursorQueries answers the cursor position queries (ESC [ 6 n) in
// output after the first answered ones, and returns how many there are.
func answerCursorQueries(t *testing.T, term io.Writer, output string, answered int) int {
	t.Helper()
	n := strings.Count(output, "\x1b[6n")
	for ; answered < n; answered++ {
		if _, err := term.Write([]byte("\x1b[1;1R")); err != nil {
			t.Fatal(err)
		}
	}
	return n
}
