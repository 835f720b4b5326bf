package logs

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/transfer"
)

// volumeShell runs the fetcher's commands with this machine's sh, find,
// cat and tail in root, the volume.
type volumeShell struct {
	root     string
	mu       sync.Mutex
	commands []string
}

func (v *volumeShell) Exec(ctx context.Context, _, pod, _ string, command []string, s remote.Streams) error {
	v.mu.Lock()
	v.commands = append(v.commands, pod+": "+strings.Join(command[4:], " "))
	v.mu.Unlock()
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = v.root, s.Stdout, s.Stderr
	return cmd.Run()
}

// storedMnist is mnist, submitted with --storage and persisted logs.
func storedMnist(persist bool, conditions ...kubeflowv1.JobConditionType) *unstructured.Unstructured {
	obj := mnist(conditions...)
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	p := "true"
	if !persist {
		p = "false"
	}
	ann[jobmodel.RequestAnnotation] = `{"storage":{"claim":"team-data","prefix":"teams/a","jobDir":"mnist-x7k2p","dataDir":"data/alice","persistLogs":` + p + `}}`
	ann[jobmodel.JobDirAnnotation] = "mnist-x7k2p"
	obj.SetAnnotations(ann)
	return obj
}

// keptLogs writes the log directory of storedMnist under root: the logs
// of ps-0 and worker-0 (not worker-1), a former worker's, a replica's
// named pipes and files that are no replica's.
func keptLogs(t *testing.T, root string) {
	t.Helper()
	dir := filepath.Join(root, "teams/a/mnist-x7k2p/log_dir")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"ps-0.log":           "ps up\n",
		"worker-0.log":       "w0 step 1\nw0 step 2\nw0 step 3",
		"worker-7.log":       "scaled away\n",
		"notes.txt":          "not a log\n",
		".hidden.log":        "hidden\n",
		"bad name.log":       "spaces\n",
		"mnist-worker-1.bak": "x\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, fifo := range []string{".worker-0.42.out", ".worker-0.42.err"} {
		if err := syscall.Mkfifo(filepath.Join(dir, fifo), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runPersisted(t *testing.T, c Request, shell *volumeShell, pods ...runtime.Object) (stdout, stderr string, kube *kubefake.Clientset, err error) {
	t.Helper()
	kube = kubefake.NewClientset(pods...)
	kube.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pod := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Name = pod.GenerateName + "abcde"
		pod.Status.Phase = corev1.PodRunning
		return false, nil, nil
	})
	var out, errOut bytes.Buffer
	c.Kind, c.Kube, c.Out, c.ErrOut = tfjob.New(), kube, &out, &errOut
	c.Persisted = &Persisted{Executor: shell}
	if c.MaxLogRequests == 0 {
		c.MaxLogRequests = 64
	}
	if c.Tail == 0 {
		c.Tail = -1
	}
	err = Run(context.Background(), c)
	return out.String(), errOut.String(), kube, err
}

func TestTheLogsKeptOnTheStorageOnceThePodsAreGone(t *testing.T) {
	shell := &volumeShell{root: t.TempDir()}
	keptLogs(t, shell.root)
	job := storedMnist(true, kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobSucceeded)
	stdout, stderr, kube, err := runPersisted(t, Request{Job: job}, shell)
	if err != nil {
		t.Fatal(err)
	}
	want := "[ps-0] ps up\n[worker-0] w0 step 1\n[worker-0] w0 step 2\n[worker-0] w0 step 3\n[worker-7] scaled away\n"
	if stdout != want {
		t.Errorf("stdout %q\nwant   %q", stdout, want)
	}
	wantErr := "The pods of tf/mnist are gone: reading the logs its replicas kept on the storage (pvc:team-data:/teams/a/mnist-x7k2p/log_dir)\n" +
		"worker-1: no pod, and no log kept on the storage\n"
	if stderr != wantErr {
		t.Errorf("stderr %q\nwant   %q", stderr, wantErr)
	}
	var created *corev1.Pod
	for _, a := range kube.Actions() {
		if a.GetVerb() == "create" {
			created = a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		}
	}
	m := created.Spec.Containers[0].VolumeMounts[0]
	if created.Labels[jobmodel.RoleLabel] != jobmodel.RoleFetcher || created.OwnerReferences[0].Name != "mnist" || !m.ReadOnly ||
		m.MountPath != transfer.VolumeRoot || created.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "team-data" {
		t.Errorf("fetcher %+v", created)
	}
	if pods, _ := kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{}); len(pods.Items) != 0 {
		t.Errorf("%d pods left", len(pods.Items))
	}

	// --task and --tail.
	stdout, stderr, _, err = runPersisted(t, Request{Job: job, Tasks: []string{"worker-0"}, Tail: 2, Timestamps: true}, shell)
	if err != nil || stdout != "[worker-0] w0 step 2\n[worker-0] w0 step 3\n" ||
		!strings.HasSuffix(stderr, "Note: a kept log is the whole output of a replica's command, without times: --since, --timestamps and -c do not apply to it\n") {
		t.Errorf("--task worker-0 --tail 2: %q, %q, %v", stdout, stderr, err)
	}
	// -f of a job that ended prints them and exits as the job did.
	failed := storedMnist(true, kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobFailed)
	stdout, _, _, err = runPersisted(t, Request{Job: failed, Tasks: []string{"ps-0"}, Follow: true}, shell)
	if stdout != "[ps-0] ps up\n" || err == nil || !strings.Contains(err.Error(), "tf/mnist failed") {
		t.Errorf("-f: %q, %v", stdout, err)
	}
}

// Live pods are read live; only the replicas without one come from the
// storage.
func TestOnlyTheReplicasWithoutAPodAreReadFromTheStorage(t *testing.T) {
	shell := &volumeShell{root: t.TempDir()}
	keptLogs(t, shell.root)
	src := &fakeSource{logs: map[string][]string{"mnist-worker-1": {stamp(1, 0, "w1 live")}}}
	job := storedMnist(true, kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobSucceeded)
	stdout, stderr, _, err := runPersisted(t, Request{Job: job, Source: src, Role: "worker"}, shell, tfPod("worker", 1, corev1.PodSucceeded))
	if err != nil || stdout != "[worker-0] w0 step 1\n[worker-0] w0 step 2\n[worker-0] w0 step 3\n[worker-1] w1 live\n" ||
		!strings.HasPrefix(stderr, "The pods of tf/mnist's worker-0 are gone: ") {
		t.Errorf("stdout %q, stderr %q, %v", stdout, stderr, err)
	}
}

// No fetcher is started when nothing can be there: every selected replica
// has its pod, the job has not run, it kept no logs, or --previous.
func TestNoFetcherWhenNoLogIsKept(t *testing.T) {
	shell := &volumeShell{root: t.TempDir()}
	for name, c := range map[string]Request{
		"pending":    {Job: storedMnist(true, kubeflowv1.JobCreated)},
		"no persist": {Job: storedMnist(false, kubeflowv1.JobCreated, kubeflowv1.JobSucceeded)},
		"no storage": {Job: mnist(kubeflowv1.JobCreated, kubeflowv1.JobSucceeded)},
		"previous":   {Job: storedMnist(true, kubeflowv1.JobCreated, kubeflowv1.JobSucceeded), Previous: true},
		"has its pods": {Job: storedMnist(true, kubeflowv1.JobCreated, kubeflowv1.JobSucceeded), Tasks: []string{"worker-1"},
			Source: &fakeSource{logs: map[string][]string{"mnist-worker-1": {stamp(1, 0, "w1")}}}},
	} {
		_, stderr, kube, err := runPersisted(t, c, shell, tfPod("worker", 1, corev1.PodSucceeded))
		if err != nil || strings.Contains(stderr, "storage") {
			t.Errorf("%s: %q %v", name, stderr, err)
		}
		for _, a := range kube.Actions() {
			if a.GetVerb() == "create" {
				t.Errorf("%s: a fetcher was made", name)
			}
		}
	}
	if len(shell.commands) != 0 {
		t.Errorf("commands %q", shell.commands)
	}
}

// A job whose replicas wrote no log yet has no log directory.
func TestAMissingLogDirectory(t *testing.T) {
	shell := &volumeShell{root: t.TempDir()}
	stdout, stderr, _, err := runPersisted(t, Request{Job: storedMnist(true, kubeflowv1.JobCreated, kubeflowv1.JobRunning, kubeflowv1.JobFailed), Tasks: []string{"ps-0"}}, shell)
	if err != nil || stdout != "" || !strings.HasSuffix(stderr, "ps-0: no pod, and no log kept on the storage\n") {
		t.Errorf("stdout %q, stderr %q, %v", stdout, stderr, err)
	}
	// A log directory that is a symlink is not followed.
	if err := os.MkdirAll(filepath.Join(shell.root, "teams/a/mnist-x7k2p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(shell.root, "teams/a/mnist-x7k2p/log_dir")); err != nil {
		t.Fatal(err)
	}
	_, stderr, _, _ = runPersisted(t, Request{Job: storedMnist(true, kubeflowv1.JobCreated, kubeflowv1.JobSucceeded)}, shell)
	if !strings.Contains(stderr, "Warning: the logs kept on the storage cannot be read: listing pvc:team-data:/teams/a/mnist-x7k2p/log_dir: teams/a/mnist-x7k2p/log_dir is a symbolic link: not followed\n") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestLogFiles(t *testing.T) {
	listing := "./worker-0.log\n./mnist-worker-1.log\n./ps-0.log\n./mnist-ps-0.log\n./worker-9.log\n./.worker-0.1.out\n./a b.log\n" +
		"./x/../y.log\nworker-2.log\n./launcher.log.1\n./-rf.log\n./..log\n"
	files, others := logFiles([]byte(listing), "mnist", []string{"ps-0", "worker-0", "worker-1"})
	if len(files) != 3 || files["worker-0"] != "worker-0.log" || files["worker-1"] != "mnist-worker-1.log" || files["ps-0"] != "ps-0.log" ||
		strings.Join(others, ",") != "mnist-ps-0.log,worker-9.log" {
		t.Errorf("files %v, others %q", files, others)
	}
}

// A log file's name is at most 257 bytes (a task of up to 253 and ".log"),
// as the pattern with a repetition bounded to 252 allowed.
func TestLogNameAtItsLimit(t *testing.T) {
	bounded := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,252}\.log$`)
	for n := 1; n <= 256; n++ {
		for _, name := range []string{
			"w" + strings.Repeat("-", n-1) + ".log",
			strings.Repeat("a", n) + ".log",
			strings.Repeat(".", n) + ".log",
			strings.Repeat("a", n) + ".log\n",
			strings.Repeat("a", n) + "log",
		} {
			if isLogName(name) != bounded.MatchString(name) {
				t.Errorf("%d bytes %q: %v, want %v", len(name), name, isLogName(name), bounded.MatchString(name))
			}
		}
	}
	if name := strings.Repeat("a", 253) + ".log"; !isLogName(name) {
		t.Errorf("a name of %d bytes refused", len(name))
	}
	if name := strings.Repeat("a", 254) + ".log"; isLogName(name) {
		t.Errorf("a name of %d bytes accepted", len(name))
	}
}

// FuzzLogFiles reads any listing of a log directory: every file it keeps
// is a plain name ending in .log that cat and tail take as a name in the
// directory (no path, no leading dash or dot), each task has one, and no
// file is both a task's and another.
func FuzzLogFiles(f *testing.F) {
	f.Add([]byte("./worker-0.log\n./mnist-worker-1.log\n./.x.log\n"), "mnist", "worker-0,worker-1")
	f.Add([]byte("./mnist-worker-0.log\n./worker-0.log\n./mnist-worker-0.log\n"), "mnist", "worker-0")
	f.Add([]byte("./../etc/passwd.log\n./a/b.log\n./\x00.log\n./-n.log\n"), "", "a")
	f.Add([]byte("./ps-0.log\r\n./ps-0.log"), "x", "ps-0")
	f.Fuzz(func(t *testing.T, listing []byte, job, tasks string) {
		files, others := logFiles(listing, job, strings.Split(tasks, ","))
		seen := map[string]bool{}
		check := func(name string) {
			if !strings.HasSuffix(name, ".log") || strings.ContainsAny(name, "/\\\x00\n\r ") || strings.HasPrefix(name, "-") || strings.HasPrefix(name, ".") || seen[name] {
				t.Fatalf("%q: %q", listing, name)
			}
			seen[name] = true
		}
		for _, name := range files {
			check(name)
		}
		for _, name := range others {
			check(name)
		}
	})
}
