package upload_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	uploadcmd "github.com/easyai-dev/easyai/pkg/cmd/upload"
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
	local := t.TempDir()
	var got *uploadcmd.Options
	cmd := uploadcmd.NewCmdUpload(f, func(o *uploadcmd.Options) error { got = o; return nil })
	if err := run(cmd, local); err != nil {
		t.Fatal(err)
	}
	if got.LocalPath != local || got.To != "data" || got.Storage != "" || got.Retries != transfer.DefaultRetries ||
		got.FetcherImage != transfer.DefaultFetcherImage || got.Print.Format() != "" {
		t.Errorf("defaults %+v", got)
	}
	cmd = uploadcmd.NewCmdUpload(f, func(o *uploadcmd.Options) error { got = o; return nil })
	if err := run(cmd, local, "--to", "tf/mnist", "--storage", "pvc:team-data:/teams/a", "-o", "json", "--retries", "2", "--fetcher-image", "alpine:3"); err != nil {
		t.Fatal(err)
	}
	if got.To != "tf/mnist" || got.Ref.String() != "tf/mnist" || got.Storage != "pvc:team-data:/teams/a" || got.Retries != 2 ||
		got.Print.Format() != printers.FormatJSON || got.FetcherImage != "alpine:3" {
		t.Errorf("options %+v", got)
	}
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{nil, `"upload" needs a local file or directory: LOCAL_PATH (got 0 arguments)`},
		{[]string{local, local}, `"upload" needs a local file or directory: LOCAL_PATH (got 2 arguments)`},
		{[]string{filepath.Join(local, "missing")}, "LOCAL_PATH " + filepath.Join(local, "missing") + ": no such file or directory"},
		{[]string{local, "--storage", "s3:bucket"}, `--storage "s3:bucket": unknown scheme "s3"`},
		{[]string{local, "--to", ""}, "--to: give data, share or a job"},
		{[]string{local, "--retries", "-1"}, "--retries -1: must not be negative"},
		{[]string{"/"}, "LOCAL_PATH /: has no name to keep on the storage"},
	} {
		err := run(uploadcmd.NewCmdUpload(f, func(*uploadcmd.Options) error { return nil }), tt.args...)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: %v, want a usage error %q", tt.args, err, tt.err)
		}
	}
}

// volume runs the uploader's commands with this machine's sh and tar in
// root, which stands in for the volume.
type volume struct {
	root     string
	mu       sync.Mutex
	commands []string
}

func (v *volume) Exec(ctx context.Context, namespace, pod, container string, command []string, s remote.Streams) error {
	v.mu.Lock()
	v.commands = append(v.commands, fmt.Sprintf("%s/%s[%s]: %s", namespace, pod, container, command[len(command)-1]))
	v.mu.Unlock()
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = v.root, s.Stdin, s.Stdout, s.Stderr
	return cmd.Run()
}

// runningPods makes created pods run at once, named from generateName.
func runningPods() *kubefake.Clientset {
	kube := kubefake.NewClientset()
	kube.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pod := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		pod.Name = pod.GenerateName + "abcde"
		pod.Status.Phase = corev1.PodRunning
		return false, nil, nil
	})
	return kube
}

func factory(t *testing.T, tty bool, kube *kubefake.Clientset, setting string, objs ...runtime.Object) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	f, stdout, stderr := cmdutiltest.Factory(t, tty, jobclienttest.Dynamic(objs...), kube)
	f.RESTConfig = func() (*rest.Config, error) { return &rest.Config{}, nil }
	f.Config = func() (*config.Config, error) { return &config.Config{Storage: setting}, nil }
	f.User = func(context.Context) (string, error) { return "alice@example.com", nil }
	return f, stdout, stderr
}

func newCmd(f *cmdutil.Factory, v *volume) *cobra.Command {
	return uploadcmd.NewCmdUpload(f, func(o *uploadcmd.Options) error {
		if err := o.Complete(); err != nil {
			return err
		}
		o.Executor, o.Backoff = v, 0
		return o.Run(context.Background())
	})
}

// dataset is a local directory of two files.
func dataset(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "imagenet")
	for name, size := range map[string]int{"train/a.bin": 3 << 20, "labels.txt": 11} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var elapsed = regexp.MustCompile(` in [0-9.]+(ns|µs|ms|s)\b`)

func TestUploadIntoTheDataDirectory(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(fmt.Sprintf("tty=%v", tty), func(t *testing.T) {
			kube := runningPods()
			f, stdout, stderr := factory(t, tty, kube, "pvc:team-data:/teams/a")
			v := &volume{root: t.TempDir()}
			local := dataset(t)
			if err := run(newCmd(f, v), local, "-o", "json"); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			b, err := os.ReadFile(filepath.Join(v.root, "teams/a/data/alice_example.com-ff8d9819/imagenet/train/a.bin"))
			if err != nil || len(b) != 3<<20 {
				t.Errorf("a.bin: %d bytes, %v", len(b), err)
			}
			got := elapsed.ReplaceAllString(stderr.String(), " in X")
			if tty {
				// The bar is drawn, then cleared before the summary.
				i := strings.Index(got, "Uploaded ")
				if i < 0 || !strings.Contains(got[:i], "\r") {
					t.Errorf("no progress bar on a terminal: %q", got)
				}
				got = got[:strings.Index(got, "\n")+1] + got[i:]
			}
			want := "Uploading " + local + " to pvc:team-data:/teams/a/data/alice_example.com-ff8d9819/imagenet\n" +
				"Uploaded 2 files, 3.0 MiB to pvc:team-data:/teams/a/data/alice_example.com-ff8d9819/imagenet in X\n" +
				"Jobs you submit read it at /data_dir/imagenet, or at /data_dir with --data-dir data/alice_example.com-ff8d9819/imagenet\n"
			if got != want {
				t.Errorf("stderr %q\nwant   %q", got, want)
			}
			var sum map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
				t.Fatal(err)
			}
			if sum["storage"] != "pvc:team-data:/teams/a" || sum["path"] != "data/alice_example.com-ff8d9819/imagenet" ||
				sum["location"] != "pvc:team-data:/teams/a/data/alice_example.com-ff8d9819/imagenet" || sum["pod"] != "easyai-upload-abcde" ||
				sum["files"] != 2.0 || sum["dirs"] != 2.0 || sum["bytes"] != float64(3<<20+11) || sum["job"] != nil {
				t.Errorf("summary %v", sum)
			}
			var created *corev1.Pod
			deleted := false
			for _, a := range kube.Actions() {
				switch a.GetVerb() {
				case "create":
					created = a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
				case "delete":
					deleted = deleted || a.(clienttesting.DeleteAction).GetName() == "easyai-upload-abcde"
				}
			}
			if created == nil || created.Labels[jobmodel.RoleLabel] != jobmodel.RoleUploader || len(created.OwnerReferences) != 0 ||
				created.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "team-data" || !deleted {
				t.Errorf("pod %+v, deleted %v", created, deleted)
			}
		})
	}
}

func TestUploadWithoutStorageExits2(t *testing.T) {
	f, _, _ := factory(t, false, runningPods(), "")
	err := run(newCmd(f, &volume{root: t.TempDir()}), dataset(t))
	if exit.Code(err) != exit.Usage || err.Error() != "no storage to upload to: give --storage pvc:CLAIM[:/prefix] or nfs:SERVER:/export[:/prefix], or set the storage setting (easyai config set storage pvc:CLAIM)" {
		t.Errorf("err %v (code %d)", err, exit.Code(err))
	}
}

func TestUploadIntoTheTeamsShareOnNFS(t *testing.T) {
	kube := runningPods()
	f, _, stderr := factory(t, false, kube, "pvc:ignored")
	v := &volume{root: t.TempDir()}
	local := filepath.Join(dataset(t), "labels.txt")
	if err := run(newCmd(f, v), local, "--to", "share", "--storage", "nfs:10.0.0.5:/export:/teams/nlp"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(v.root, "teams/nlp/share/labels.txt")); err != nil || len(b) != 11 {
		t.Errorf("labels.txt: %q %v", b, err)
	}
	if !strings.Contains(stderr.String(), "Uploaded 1 file, 11 B to nfs:10.0.0.5:/export/teams/nlp/share/labels.txt in ") ||
		!strings.HasSuffix(stderr.String(), "A job reads it at /data_dir with --data-dir share/labels.txt\n") {
		t.Errorf("stderr %q", stderr)
	}
	for _, a := range kube.Actions() {
		if a.GetVerb() == "create" {
			if nfs := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod).Spec.Volumes[0].NFS; nfs == nil || nfs.Server != "10.0.0.5" || nfs.Path != "/export" {
				t.Errorf("volume %+v", nfs)
			}
		}
	}
}

// job is a TFJob, with --storage when request says so.
func job(name, request string) runtime.Object {
	obj := jobclienttest.Job{Name: name, Created: jobclienttest.T0, Request: request,
		Roles:      []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 1}},
		Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning}}.Object()
	if strings.Contains(request, "jobDir") {
		ann := obj.GetAnnotations()
		ann[jobmodel.JobDirAnnotation] = name + "-x7k2p"
		obj.SetAnnotations(ann)
	}
	return obj
}

func TestUploadIntoAJobsShareDir(t *testing.T) {
	kube := runningPods()
	stored := job("mnist", `{"nodeSelector":{"pool":"gpu"},"storage":{"claim":"team-data","prefix":"teams/a","jobDir":"mnist-x7k2p","dataDir":"data/alice"}}`)
	f, stdout, _ := factory(t, false, kube, "", stored, job("plain", `{}`))
	v := &volume{root: t.TempDir()}
	local := filepath.Join(dataset(t), "labels.txt")
	if err := run(newCmd(f, v), local, "--to", "tf/mnist", "-o", "json"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(v.root, "teams/a/mnist-x7k2p/share_dir/labels.txt")); err != nil {
		t.Error(err)
	}
	var sum map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	if sum["job"] != "tf/mnist" || sum["path"] != "mnist-x7k2p/share_dir/labels.txt" || sum["storage"] != "pvc:team-data:/teams/a" {
		t.Errorf("summary %v", sum)
	}
	for _, a := range kube.Actions() {
		if a.GetVerb() == "create" {
			pod := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
			if pod.GenerateName != "mnist-upload-" || pod.Labels[jobmodel.NameLabel] != "mnist" || pod.Spec.NodeSelector["pool"] != "gpu" {
				t.Errorf("pod %+v", pod.ObjectMeta)
			}
		}
	}

	err := run(newCmd(f, v), local, "--to", "plain")
	if exit.Code(err) != exit.NotFound || err.Error() != "tf/plain was submitted without --storage: it has no share_dir to upload to" {
		t.Errorf("a job without storage: %v (code %d)", err, exit.Code(err))
	}
	err = run(newCmd(f, v), local, "--to", "mnist", "--storage", "pvc:other")
	if exit.Code(err) != exit.Usage || err.Error() != "--storage pvc:other: tf/mnist is on pvc:team-data:/teams/a; leave --storage out to upload to its share_dir" {
		t.Errorf("another storage: %v (code %d)", err, exit.Code(err))
	}
	err = run(newCmd(f, v), local, "--to", "missing")
	if exit.Code(err) != exit.NotFound {
		t.Errorf("a missing job: %v (code %d)", err, exit.Code(err))
	}
	pods, _ := kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{})
	if len(pods.Items) != 0 {
		t.Errorf("%d pods left", len(pods.Items))
	}
}
