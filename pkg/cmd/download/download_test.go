package download_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	downloadcmd "github.com/easyai-dev/easyai/pkg/cmd/download"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/transfer"
)

func run(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

func TestFlagsMakeOptions(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *downloadcmd.Options
	cmd := downloadcmd.NewCmdDownload(f, func(o *downloadcmd.Options) error { got = o; return nil })
	if err := run(cmd, "tf/mnist", "outputs", "out", "--task", "worker-1", "--retries", "2", "-o", "json",
		"--fetcher-image", "alpine:3", "--fetcher-timeout", "30s"); err != nil {
		t.Fatal(err)
	}
	if got.Ref.String() != "tf/mnist" || got.RemotePath != "outputs" || got.Task != "worker-1" || got.LocalDir != "out" ||
		got.Retries != 2 || got.Print.Format() != printers.FormatJSON || got.FetcherImage != "alpine:3" || got.FetcherTimeout != 30*time.Second {
		t.Errorf("options %+v", got)
	}
	if err := run(downloadcmd.NewCmdDownload(f, func(o *downloadcmd.Options) error { got = o; return nil }), "mnist"); err != nil {
		t.Fatal(err)
	}
	if got.RemotePath != "." || got.LocalDir != "." || got.FetcherImage != "busybox:1.36" {
		t.Errorf("defaults %+v", got)
	}
	for _, args := range [][]string{
		{}, {"mnist", "a", "b", "c"}, {"mnist", "--output", "wide"}, {"mnist", "-o", "./run1"}, {"mnist", "--retries", "-1"}, {"mnist", ""}, {"mnist", ".", ""},
	} {
		err := run(downloadcmd.NewCmdDownload(f, func(*downloadcmd.Options) error { return nil }), args...)
		if exit.Code(err) != exit.Usage {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

// container serves tar and du from one archive, recording where.
type container struct {
	mu       sync.Mutex
	archive  []byte
	commands []string
}

func (c *container) Exec(_ context.Context, namespace, pod, ctr string, command []string, s remote.Streams) error {
	c.mu.Lock()
	c.commands = append(c.commands, fmt.Sprintf("%s/%s[%s]: %s", namespace, pod, ctr, strings.Join(command, " ")))
	c.mu.Unlock()
	if command[0] == "du" {
		fmt.Fprintf(s.Stdout, "%d\t%s\n", len(c.archive), command[len(command)-1])
		return nil
	}
	_, err := s.Stdout.Write(c.archive)
	return err
}

func outputsArchive(t *testing.T) []byte { return dirArchive(t, "outputs") }

// dirArchive is tar's archive of a directory named dir with two files.
func dirArchive(t *testing.T, dir string) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range []struct {
		name, content string
	}{{dir + "/", ""}, {dir + "/metrics.json", `{"acc":0.9}`}, {dir + "/model.bin", strings.Repeat("w", 3<<20)}} {
		hdr := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.content)), Typeflag: tar.TypeReg}
		if strings.HasSuffix(e.name, "/") {
			hdr.Typeflag, hdr.Mode = tar.TypeDir, 0o755
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func factory(t *testing.T, tty bool, kube *kubefake.Clientset, objs ...runtime.Object) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	f, stdout, stderr := cmdutiltest.Factory(t, tty, jobclienttest.Dynamic(objs...), kube)
	f.RESTConfig = func() (*rest.Config, error) { return &rest.Config{}, nil }
	return f, stdout, stderr
}

func newCmd(f *cmdutil.Factory, c *container) *cobra.Command {
	return downloadcmd.NewCmdDownload(f, func(o *downloadcmd.Options) error {
		if err := o.Complete(); err != nil {
			return err
		}
		o.Executor, o.Backoff = c, 0
		return o.Run(context.Background())
	})
}

var elapsed = regexp.MustCompile(` in [0-9.]+(ns|µs|ms|s)\b`)

func TestDownloadFromTheDefaultReplica(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(fmt.Sprintf("tty=%v", tty), func(t *testing.T) {
			kube := kubefake.NewClientset(
				jobclienttest.Pod("team-a", "mnist", "ps", 0, corev1.PodRunning, jobclienttest.T0),
				jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, jobclienttest.T0),
			)
			c := &container{archive: outputsArchive(t)}
			f, stdout, stderr := factory(t, tty, kube, jobclienttest.Fixtures()...)
			dir := filepath.Join(t.TempDir(), "out")
			if err := run(newCmd(f, c), "mnist", "outputs", dir); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "outputs", "model.bin"))
			if err != nil || len(b) != 3<<20 {
				t.Fatalf("model.bin: %d bytes, %v", len(b), err)
			}
			want := []string{
				"team-a/mnist-worker-0[]: du -sb -- outputs",
				"team-a/mnist-worker-0[]: tar cf - -C . -- outputs",
			}
			if strings.Join(c.commands, "\n") != strings.Join(want, "\n") {
				t.Errorf("commands:\n%s", strings.Join(c.commands, "\n"))
			}
			summary := "Downloaded 2 files, 3.0 MiB from worker-0:outputs to " + dir + " in X\n"
			note := "Running in worker-0 of tf/mnist (replicas: ps-0, worker-0, worker-1; choose with --task)\n"
			got := elapsed.ReplaceAllString(stderr.String(), " in X")
			if stdout.String() != "" {
				t.Errorf("stdout %q", stdout)
			}
			if !tty && got != note+summary {
				t.Errorf("stderr %q", got)
			}
			// On a terminal a bar was drawn (and cleared) before the summary.
			if tty && (!strings.HasPrefix(got, note) || !strings.HasSuffix(got, summary) || !strings.Contains(got, "worker-0:outputs")) {
				t.Errorf("stderr %q", got)
			}
		})
	}
}

func TestDownloadPrintsJSON(t *testing.T) {
	kube := kubefake.NewClientset(jobclienttest.Pod("team-a", "mnist", "worker", 1, corev1.PodRunning, jobclienttest.T0))
	c := &container{archive: outputsArchive(t)}
	f, stdout, _ := factory(t, false, kube, jobclienttest.Fixtures()...)
	dir := t.TempDir()
	if err := run(newCmd(f, c), "mnist", "/work/outputs", dir, "--task", "worker-1", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	var doc downloadcmd.Summary
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if doc.Job != "tf/mnist" || doc.Task != "worker-1" || doc.Pod != "mnist-worker-1" || doc.Path != "/work/outputs" ||
		doc.LocalDir != dir || doc.Files != 2 || doc.Bytes != 3<<20+11 {
		t.Errorf("summary %+v", doc)
	}
	if !strings.HasSuffix(c.commands[1], "tar cf - -C /work -- outputs") {
		t.Errorf("commands %q", c.commands)
	}
}

// finished is a succeeded job whose pods are gone, submitted with
// --data results:/mnt/results.
func finished(request string) runtime.Object {
	return jobclienttest.Job{Name: "done", Created: jobclienttest.T0, Request: request,
		Roles:      []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 1}},
		Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobSucceeded}}.Object()
}

func TestDownloadThroughAFetcherPodOnceThePodsAreGone(t *testing.T) {
	kube := kubefake.NewClientset()
	kube.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pod := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Name = pod.GenerateName + "abcde"
		pod.Status.Phase = corev1.PodRunning
		return false, nil, nil
	})
	c := &container{archive: outputsArchive(t)}
	f, _, stderr := factory(t, false, kube, finished(`{"data":[{"claim":"results","mountPath":"/mnt/results"}]}`))
	dir := t.TempDir()
	if err := run(newCmd(f, c), "done", "/mnt/results/outputs", dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "outputs", "metrics.json")); err != nil {
		t.Error(err)
	}
	want := []string{
		"team-a/done-fetch-abcde[fetch]: du -sb -- outputs",
		"team-a/done-fetch-abcde[fetch]: tar cf - -C . -- outputs",
	}
	if strings.Join(c.commands, "\n") != strings.Join(want, "\n") {
		t.Errorf("commands:\n%s", strings.Join(c.commands, "\n"))
	}
	got := elapsed.ReplaceAllString(stderr.String(), " in X")
	wantErr := "The pod of tf/done's replica worker-0 is gone: fetching /mnt/results/outputs from claim results through a fetcher pod\n" +
		"Downloaded 2 files, 3.0 MiB from results:/mnt/results/outputs to " + dir + " in X\n"
	if got != wantErr {
		t.Errorf("stderr %q\nwant   %q", got, wantErr)
	}
	var created *corev1.Pod
	deleted := false
	for _, a := range kube.Actions() {
		if a.GetVerb() == "create" {
			created = a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		}
		deleted = deleted || (a.GetVerb() == "delete" && a.(clienttesting.DeleteAction).GetName() == "done-fetch-abcde")
	}
	if created == nil || created.Labels[jobmodel.RoleLabel] != jobmodel.RoleFetcher || created.OwnerReferences[0].Name != "done" ||
		created.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "results" {
		t.Errorf("created %+v", created)
	}
	if !deleted {
		t.Error("the fetcher pod was not deleted")
	}
	if pods, _ := kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{}); len(pods.Items) != 0 {
		t.Errorf("%d pods left", len(pods.Items))
	}
}

func TestDownloadOfAPathOffStorageOnceThePodsAreGone(t *testing.T) {
	kube := kubefake.NewClientset()
	c := &container{}
	f, _, _ := factory(t, false, kube, finished(`{"data":[{"claim":"results","mountPath":"/mnt/results"}]}`))
	err := run(newCmd(f, c), "done", "/workspace/outputs")
	if exit.Code(err) != exit.NotFound ||
		err.Error() != "the pod of tf/done's replica worker-0 is gone, so /workspace/outputs cannot be read from it: not on the job's shared storage: /workspace/outputs is under none of /mnt/results" ||
		exit.Hint(err) != "once a job's pods are gone, only paths on its --storage or --data storage can be fetched" {
		t.Errorf("err %v (code %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}
	if len(c.commands) != 0 || len(kube.Actions()) != 1 { // the LIST of the pods
		t.Errorf("commands %q, actions %v", c.commands, jobclienttest.Actions(kube.Actions()))
	}
}

func TestLimitFlags(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
	var got *downloadcmd.Options
	cmd := downloadcmd.NewCmdDownload(f, func(o *downloadcmd.Options) error { got = o; return nil })
	if err := run(cmd, "mnist", "--max-bytes", "2Ki", "--max-files", "10", "--idle-timeout", "30s"); err != nil {
		t.Fatal(err)
	}
	if got.MaxBytes != "2Ki" || got.MaxFiles != 10 || got.IdleTimeout != 30*time.Second {
		t.Errorf("options %+v", got)
	}
	if err := run(downloadcmd.NewCmdDownload(f, func(o *downloadcmd.Options) error { got = o; return nil }), "mnist"); err != nil {
		t.Fatal(err)
	}
	if got.MaxBytes != "" || got.MaxFiles != 1_000_000 || got.IdleTimeout != 2*time.Minute {
		t.Errorf("defaults %+v", got)
	}
	for _, tt := range []struct{ args, err string }{
		{"--max-bytes lots", `--max-bytes "lots": give a positive size, e.g. 500Mi or 20G`},
		{"--max-bytes 0", `--max-bytes "0": give a positive size`},
		{"--max-files 0", "--max-files 0: must be positive"},
		{"--idle-timeout 0s", "--idle-timeout 0s: must be positive"},
	} {
		err := run(downloadcmd.NewCmdDownload(f, func(*downloadcmd.Options) error { return nil }), append([]string{"mnist"}, strings.Fields(tt.args)...)...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v, want a usage error %q", tt.args, err, tt.err)
		}
	}
}

func TestMaxBytesStopsTheDownload(t *testing.T) {
	kube := kubefake.NewClientset(jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, jobclienttest.T0))
	c := &container{archive: outputsArchive(t)}
	f, stdout, stderr := factory(t, false, kube, jobclienttest.Fixtures()...)
	dir := t.TempDir()
	err := run(newCmd(f, c), "mnist", "outputs", dir, "--max-bytes", "1Mi")
	if exit.Code(err) != exit.Error ||
		err.Error() != `"outputs/model.bin" (3145728 bytes) would take the download past --max-bytes 1048576 (11 bytes written); it stopped there` {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "outputs", "model.bin")); !os.IsNotExist(err) {
		t.Errorf("model.bin: %v", err)
	}
	if stdout.String() != "" || strings.Contains(stderr.String(), "Downloaded") {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
}

// The fetcher's image comes from --fetcher-image, else the fetcher-image
// setting, else the default.
func TestFetcherImageFromTheSetting(t *testing.T) {
	for _, tt := range []struct {
		setting, flag, want string
	}{
		{"", "", "busybox:1.36"},
		{"mirror.example/busybox:1.36", "", "mirror.example/busybox:1.36"},
		{"mirror.example/busybox:1.36", "alpine:3", "alpine:3"},
	} {
		kube := kubefake.NewClientset()
		kube.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
			pod := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
			pod.Name = pod.GenerateName + "abcde"
			pod.Status.Phase = corev1.PodRunning
			return false, nil, nil
		})
		f, _, _ := factory(t, false, kube, finished(`{"data":[{"claim":"results","mountPath":"/mnt/results"}]}`))
		f.Config = func() (*config.Config, error) { return &config.Config{FetcherImage: tt.setting}, nil }
		args := []string{"done", "/mnt/results/outputs", t.TempDir()}
		if tt.flag != "" {
			args = append(args, "--fetcher-image", tt.flag)
		}
		if err := run(newCmd(f, &container{archive: outputsArchive(t)}), args...); err != nil {
			t.Fatal(err)
		}
		var image string
		for _, a := range kube.Actions() {
			if a.GetVerb() == "create" {
				image = a.(clienttesting.CreateAction).GetObject().(*corev1.Pod).Spec.Containers[0].Image
			}
		}
		if image != tt.want {
			t.Errorf("setting %q, flag %q: image %q, want %q", tt.setting, tt.flag, image, tt.want)
		}
	}
}

// stored is a succeeded job whose pods are gone, submitted with --storage
// pvc:team-data:/teams/a.
func stored() runtime.Object {
	obj := finished(`{"storage":{"claim":"team-data","prefix":"teams/a","jobDir":"done-x7k2p","dataDir":"data/alice","persistLogs":true}}`).(*unstructured.Unstructured)
	ann := obj.GetAnnotations()
	ann[jobmodel.JobDirAnnotation] = "done-x7k2p"
	obj.SetAnnotations(ann)
	return obj
}

func runningFetchers() *kubefake.Clientset {
	kube := kubefake.NewClientset()
	kube.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pod := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Name = pod.GenerateName + "abcde"
		pod.Status.Phase = corev1.PodRunning
		return false, nil, nil
	})
	return kube
}

// Without a path, a job with --storage gives its model_dir, fetched from
// the whole volume once its pods are gone.
func TestDownloadOfTheModelDirOffTheStorage(t *testing.T) {
	kube := runningFetchers()
	c := &container{archive: dirArchive(t, "model_dir")}
	f, stdout, stderr := factory(t, false, kube, stored())
	dir := t.TempDir()
	t.Chdir(dir)
	if err := run(newCmd(f, c), "done", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "model_dir", "metrics.json")); err != nil {
		t.Error(err)
	}
	if len(c.commands) != 2 || c.commands[0] != "team-a/done-fetch-abcde[fetch]: du -sb -- teams/a/done-x7k2p/model_dir" ||
		!strings.HasPrefix(c.commands[1], "team-a/done-fetch-abcde[fetch]: sh -c ") ||
		!strings.HasSuffix(c.commands[1], `exec tar cf - -C "$1" -- "$2" sh teams/a/done-x7k2p model_dir`) {
		t.Errorf("commands:\n%s", strings.Join(c.commands, "\n"))
	}
	got := elapsed.ReplaceAllString(stderr.String(), " in X")
	want := "Downloading the model_dir of tf/done (give a path for another)\n" +
		"The pod of tf/done's replica worker-0 is gone: fetching /model_dir (pvc:team-data:/teams/a/done-x7k2p/model_dir) through a fetcher pod\n" +
		"Downloaded 2 files, 3.0 MiB from pvc:team-data:/teams/a/done-x7k2p/model_dir to . in X\n"
	if got != want {
		t.Errorf("stderr %q\nwant   %q", got, want)
	}
	var sum map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	if sum["path"] != "/model_dir" || sum["claim"] != "team-data" || sum["storage"] != "pvc:team-data:/teams/a/done-x7k2p/model_dir" || sum["files"] != 2.0 {
		t.Errorf("summary %v", sum)
	}
	var created *corev1.Pod
	for _, a := range kube.Actions() {
		if a.GetVerb() == "create" {
			created = a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		}
	}
	m := created.Spec.Containers[0].VolumeMounts[0]
	if created.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "team-data" || !m.ReadOnly || m.SubPath != "" || m.MountPath != transfer.VolumeRoot ||
		created.Spec.Containers[0].WorkingDir != transfer.VolumeRoot {
		t.Errorf("fetcher %+v", created.Spec)
	}
}

// /summary_dir is the replica's own: --task chooses whose.
func TestDownloadOfASummaryDirIsTheTasks(t *testing.T) {
	c := &container{archive: dirArchive(t, "summary_dir")}
	f, _, _ := factory(t, false, runningFetchers(), stored())
	if err := run(newCmd(f, c), "done", "/summary_dir", t.TempDir(), "--task", "worker-0"); err != nil {
		t.Fatal(err)
	}
	if len(c.commands) != 2 || !strings.HasSuffix(c.commands[1], " sh teams/a/done-x7k2p/worker-0 summary_dir") {
		t.Errorf("commands:\n%s", strings.Join(c.commands, "\n"))
	}
}
