package transfer

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// volumeShell runs a helper pod's commands with this machine's sh, tar,
// find and stat in root, the volume, as kwok does: stdin is never closed,
// so a command that waits for its end hangs (and fails the test). The
// extraction i (from 0) gets only breaks[i] bytes of its stdin, when
// given, and then its end, as a kubelet passes on a connection that
// dropped: tar unpacks what came and fails, and the stream "breaks".
type volumeShell struct {
	root   string
	breaks []int
	// bin, when set, is the only directory of PATH (busyboxBin).
	bin string
	// finish is how long an extraction takes after tar is done, before
	// the stream ends (a slow flush to a network volume).
	finish time.Duration

	mu       sync.Mutex
	commands [][]string
	// stdins are the bytes each extraction was given.
	stdins  [][]byte
	copying sync.WaitGroup
}

// archives are the bytes each extraction was given, once every stream
// was read.
func (v *volumeShell) archives() [][]byte {
	v.copying.Wait()
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.stdins
}

func (v *volumeShell) Exec(ctx context.Context, _, _, _ string, command []string, s remote.Streams) error {
	v.mu.Lock()
	v.commands = append(v.commands, command)
	extraction := -1
	if strings.Contains(strings.Join(command, " "), "tar -x") {
		extraction = len(v.stdins)
		v.stdins = append(v.stdins, nil)
	}
	v.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	name := command[0]
	if v.bin != "" {
		name = filepath.Join(v.bin, name)
	}
	cmd := exec.CommandContext(ctx, name, command[1:]...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = v.root, s.Stdout, s.Stderr
	if v.bin != "" {
		cmd.Env = []string{"PATH=" + v.bin}
	}
	if s.Stdin == nil {
		return cmd.Run()
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	limit := -1
	if extraction >= 0 && extraction < len(v.breaks) {
		limit = v.breaks[extraction]
	}
	v.copying.Add(1)
	go func() {
		defer v.copying.Done()
		var got bytes.Buffer
		src := s.Stdin
		if limit >= 0 {
			src = io.LimitReader(src, int64(limit))
		}
		_, _ = io.Copy(io.MultiWriter(in, &got), src)
		v.mu.Lock()
		v.stdins[extraction] = got.Bytes()
		v.mu.Unlock()
		if limit >= 0 {
			in.Close()
		}
		// Else, as kwok: the end of stdin is not passed on.
	}()
	err = cmd.Wait()
	if ctx.Err() != nil {
		return fmt.Errorf("%v: the command waited for the end of its stdin", ctx.Err())
	}
	if extraction >= 0 && v.finish > 0 {
		select {
		case <-time.After(v.finish):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if limit >= 0 {
		return errors.New("error writing to stream: connection reset by peer")
	}
	return err
}

// entries names the archive's entries.
func archiveNames(t *testing.T, data []byte) []string {
	t.Helper()
	var names []string
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return names
		}
		if err != nil {
			t.Fatalf("archive: %v", err)
		}
		names = append(names, hdr.Name)
	}
}

// localTreeFixture is a directory to upload: nested files, an empty one, a
// larger one, a symlink inside the tree and two leaving it, and a named
// pipe.
func localTreeFixture(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "dataset")
	files := map[string][]byte{
		"train/part-0.bin": blob(300<<10, 1),
		"train/part-1.bin": blob(200<<10, 2),
		"README":           []byte("a dataset\n"),
		"empty":            nil,
		"deep/a/b/c.txt":   []byte("deep\n"),
		"with space.txt":   []byte("odd\n"),
	}
	for rel, data := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "secret"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"latest":       "train/part-1.bin",
		"deep/a/up":    "../../README",
		"escape":       "../secret",
		"deep/escape2": "../../secret",
		"absolute":     filepath.Join(base, "secret"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "README"), 0o4755); err != nil {
		t.Fatal(err)
	}
	return root
}

// treeOf lists a directory: "NAME: SIZE" of files, "NAME/" of directories,
// "NAME -> TARGET" of symlinks.
func treeOf(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out = append(out, rel+"/")
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out = append(out, rel+" -> "+target)
		default:
			out = append(out, fmt.Sprintf("%s: %d", rel, info.Size()))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// runningPods is a clientset whose created pods get a name from their
// generateName and run at once.
func runningPods() *kubefake.Clientset {
	kube := kubefake.NewClientset()
	kube.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pod := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		if pod.Name == "" {
			pod.Name = pod.GenerateName + "x7k2p"
		}
		pod.Status.Phase = corev1.PodRunning
		return false, nil, nil
	})
	return kube
}

// busyboxBin is a directory of busybox's applets, as the default image of
// helper pods has them; the test is skipped without busybox.
func busyboxBin(t *testing.T) string {
	t.Helper()
	busybox, err := exec.LookPath("busybox")
	if err != nil {
		t.Skip("no busybox on this machine")
	}
	bin := t.TempDir()
	for _, applet := range []string{"sh", "tar", "head", "find", "stat", "mkdir", "rm", "cat", "tail", "du", "pwd", "printf"} {
		if err := os.Symlink(busybox, filepath.Join(bin, applet)); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

func uploadVolume(t *testing.T, shell *volumeShell) Volume {
	t.Helper()
	kube := runningPods()
	return Volume{Kube: kube, Executor: shell, Namespace: "team-a", Storage: storage.Spec{Claim: "team-data"}, Image: "busybox:1.36"}
}

func noPodsLeft(t *testing.T, v Volume) {
	t.Helper()
	pods, err := v.Kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{})
	if err != nil || len(pods.Items) != 0 {
		t.Errorf("pods left: %v %v", pods, err)
	}
}

func TestUploadCopiesATreeIntoTheSubPath(t *testing.T) {
	t.Run("GNU", func(t *testing.T) { testUploadCopiesATree(t, "") })
	t.Run("busybox", func(t *testing.T) { testUploadCopiesATree(t, busyboxBin(t)) })
}

func testUploadCopiesATree(t *testing.T, bin string) {
	local := localTreeFixture(t)
	shell := &volumeShell{root: t.TempDir(), bin: bin}
	var warnings bytes.Buffer
	v := uploadVolume(t, shell)
	res, err := Upload(context.Background(), UploadRequest{
		Volume: v, SubPath: "teams/a/data/alice", Local: local, Into: "dataset", Warnings: &warnings,
	})
	if err != nil {
		t.Fatalf("%v; warnings %s", err, warnings.String())
	}
	got := treeOf(t, filepath.Join(shell.root, "teams/a/data/alice/dataset"))
	want := []string{
		"README: 10", "deep/", "deep/a/", "deep/a/b/", "deep/a/b/c.txt: 5", "deep/a/up -> ../../README",
		"empty: 0", "latest -> train/part-1.bin", "train/", "train/part-0.bin: 307200", "train/part-1.bin: 204800", "with space.txt: 4",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("uploaded tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	same(t, filepath.Join(local, "train/part-0.bin"), filepath.Join(shell.root, "teams/a/data/alice/dataset/train/part-0.bin"))
	if info, err := os.Stat(filepath.Join(shell.root, "teams/a/data/alice/dataset/README")); err != nil || info.Mode()&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky) != 0 {
		t.Errorf("README: %v %v: the setuid bit was kept", info.Mode(), err)
	}
	if entries := treeOf(t, shell.root); len(entries) != 5+12 {
		t.Errorf("the volume holds more than the upload: %q", entries)
	}
	if res.Files != 6 || res.Dirs != 5 || res.Links != 2 || res.Refused != 4 || res.Bytes != 300<<10+200<<10+10+5+4 || res.Retries != 0 || res.Pod != "easyai-upload-x7k2p" {
		t.Errorf("result %+v", res)
	}
	for _, want := range []string{
		`escape: a symbolic link to "../secret", outside the uploaded tree: not uploaded`,
		`deep/escape2: a symbolic link to "../../secret", outside the uploaded tree: not uploaded`,
		`absolute: a symbolic link to "` + filepath.Join(filepath.Dir(local), "secret") + `", an absolute path: not uploaded`,
		`pipe: a named pipe: not uploaded`,
	} {
		if !strings.Contains(warnings.String(), want) {
			t.Errorf("warnings %q\nwant %q", warnings.String(), want)
		}
	}
	if len(shell.archives()) != 1 || len(shell.archives()[0])%recordSize != 0 {
		t.Errorf("the archive is not whole records: %d", len(shell.archives()[0]))
	}
	noPodsLeft(t, v)
	var created *corev1.Pod
	for _, a := range v.Kube.(*kubefake.Clientset).Actions() {
		if a.GetVerb() == "create" {
			created = a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		}
	}
	if created == nil || created.Labels[jobmodel.RoleLabel] != jobmodel.RoleUploader || created.Spec.Containers[0].Image != "busybox:1.36" {
		t.Errorf("uploader %+v", created)
	}
}

func same(t *testing.T, a, b string) {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Errorf("%s and %s differ", a, b)
	}
}

func TestUploadOfAFileAndOfADirectorysContent(t *testing.T) {
	local := localTreeFixture(t)
	shell := &volumeShell{root: t.TempDir()}
	v := uploadVolume(t, shell)
	if _, err := Upload(context.Background(), UploadRequest{Volume: v, SubPath: "share", Local: filepath.Join(local, "README")}); err != nil {
		t.Fatal(err)
	}
	if _, err := Upload(context.Background(), UploadRequest{Volume: v, SubPath: "job-x7k2p/code", Local: filepath.Join(local, "deep")}); err != nil {
		t.Fatal(err)
	}
	got := treeOf(t, shell.root)
	// deep/a/up points to ../../README: outside the directory uploaded.
	want := []string{"job-x7k2p/", "job-x7k2p/code/", "job-x7k2p/code/a/", "job-x7k2p/code/a/b/", "job-x7k2p/code/a/b/c.txt: 5", "share/", "share/README: 10"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("volume:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A stream that breaks inside the second file is resumed: the files that
// arrived whole are listed and not sent again.
func TestABrokenUploadResumesWithTheFilesMissing(t *testing.T) {
	t.Run("GNU", func(t *testing.T) { testABrokenUploadResumes(t, "") })
	t.Run("busybox", func(t *testing.T) { testABrokenUploadResumes(t, busyboxBin(t)) })
}

func testABrokenUploadResumes(t *testing.T, bin string) {
	local := t.TempDir()
	for i, size := range []int{64 << 10, 64 << 10, 64 << 10} {
		if err := os.WriteFile(filepath.Join(local, fmt.Sprintf("f%d.bin", i)), blob(size, byte(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shell := &volumeShell{root: t.TempDir(), breaks: []int{100 << 10}, bin: bin}
	var warnings bytes.Buffer
	res, err := Upload(context.Background(), UploadRequest{
		Volume: uploadVolume(t, shell), SubPath: "data/alice", Local: local, Into: "run", Retries: 2, Backoff: time.Millisecond, Warnings: &warnings,
	})
	if err != nil {
		t.Fatalf("%v; warnings %s", err, warnings.String())
	}
	for i := range 3 {
		name := fmt.Sprintf("f%d.bin", i)
		same(t, filepath.Join(local, name), filepath.Join(shell.root, "data/alice/run", name))
	}
	if len(shell.archives()) != 2 {
		t.Fatalf("%d extractions, want 2", len(shell.archives()))
	}
	if got := archiveNames(t, shell.archives()[1]); strings.Join(got, ",") != "run,run/f1.bin,run/f2.bin" {
		t.Errorf("the resumed stream sent %q", got)
	}
	if res.Retries != 1 || res.Files != 3 || res.Bytes != 3*64<<10 {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(warnings.String(), "Warning: the stream to easyai-upload-x7k2p:data/alice broke (error writing to stream: connection reset by peer); resuming in 1ms (retry 1 of 2)") {
		t.Errorf("warnings %q", warnings.String())
	}
	var listed bool
	for _, c := range shell.commands {
		listed = listed || strings.Contains(strings.Join(c, " "), "stat -c")
	}
	if !listed {
		t.Error("the target was not listed before resuming")
	}
}

// Retries are bounded: a stream that always breaks fails the upload.
func TestAnUploadThatKeepsBreakingFails(t *testing.T) {
	local := t.TempDir()
	if err := os.WriteFile(filepath.Join(local, "big.bin"), blob(256<<10, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	shell := &volumeShell{root: t.TempDir(), breaks: []int{10 << 10, 10 << 10, 10 << 10}}
	v := uploadVolume(t, shell)
	res, err := Upload(context.Background(), UploadRequest{Volume: v, SubPath: "data", Local: local, Retries: 2, Backoff: time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "connection reset by peer") || res.Retries != 2 || len(shell.archives()) != 3 {
		t.Errorf("err %v, result %+v, %d streams", err, res, len(shell.archives()))
	}
	noPodsLeft(t, v)
}

// Nothing is written through a symlink among the target's directories,
// nor outside the volume.
func TestUploadRefusesATargetThroughASymlink(t *testing.T) {
	t.Run("GNU", func(t *testing.T) { testUploadRefusesASymlinkedTarget(t, "") })
	t.Run("busybox", func(t *testing.T) { testUploadRefusesASymlinkedTarget(t, busyboxBin(t)) })
}

func testUploadRefusesASymlinkedTarget(t *testing.T, bin string) {
	local := localTreeFixture(t)
	base := t.TempDir()
	root, outside := filepath.Join(base, "volume"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "teams"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "teams", "a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("teams", filepath.Join(root, "inside")); err != nil {
		t.Fatal(err)
	}
	shell := &volumeShell{root: root, bin: bin}
	v := uploadVolume(t, shell)
	for sub, want := range map[string]string{
		"teams/a/data":   "easyai-upload-x7k2p:teams/a/data: teams/a is a symbolic link: not followed",
		"inside/b":       "easyai-upload-x7k2p:inside/b: inside is a symbolic link: not followed",
		"../outside":     `the target "../outside": not a clean relative path below the volume's root`,
		"/etc":           `the target "/etc": not a clean relative path below the volume's root`,
		"teams/./a/data": `the target "teams/./a/data": not a clean relative path below the volume's root`,
	} {
		_, err := Upload(context.Background(), UploadRequest{Volume: v, SubPath: sub, Local: local, Retries: 3, Backoff: time.Millisecond})
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v\nwant %s", sub, err, want)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside the volume: %v", entries)
	}
	if got := treeOf(t, root); strings.Join(got, ",") != "inside -> teams,teams/,teams/a -> "+outside {
		t.Errorf("the volume: %q", got)
	}
}

func TestUploadLimits(t *testing.T) {
	local := localTreeFixture(t)
	shell := &volumeShell{root: t.TempDir()}
	v := uploadVolume(t, shell)
	_, err := Upload(context.Background(), UploadRequest{Volume: v, SubPath: "data", Local: local, MaxBytes: 1000})
	if err == nil || !strings.Contains(err.Error(), "more than the 1000 bytes allowed") {
		t.Errorf("max bytes: %v", err)
	}
	_, err = Upload(context.Background(), UploadRequest{Volume: v, SubPath: "data", Local: local, MaxFiles: 3})
	if err == nil || !strings.Contains(err.Error(), "has more than 3 entries") {
		t.Errorf("max files: %v", err)
	}
	_, err = Upload(context.Background(), UploadRequest{Volume: v, SubPath: "data", Local: filepath.Join(local, "missing")})
	if err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("missing: %v", err)
	}
	if len(shell.commands) != 0 {
		t.Errorf("a pod ran: %v", shell.commands)
	}
	noPodsLeft(t, v)
}

func TestRemoveDeletesTheSubPath(t *testing.T) {
	t.Run("GNU", func(t *testing.T) { testRemove(t, "") })
	t.Run("busybox", func(t *testing.T) { testRemove(t, busyboxBin(t)) })
}

func testRemove(t *testing.T, bin string) {
	root := t.TempDir()
	for _, d := range []string{"job-x7k2p/code/a", "job-x7k2p/model_dir", "outside"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../outside", filepath.Join(root, "job-x7k2p/code/link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("job-x7k2p", filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	shell := &volumeShell{root: root, bin: bin}
	v := uploadVolume(t, shell)
	if err := Remove(context.Background(), v, "alias/code"); err == nil || !strings.Contains(err.Error(), "alias is a symbolic link: not followed") {
		t.Errorf("through a symlink: %v", err)
	}
	if err := Remove(context.Background(), v, "job-x7k2p/code"); err != nil {
		t.Fatal(err)
	}
	if err := Remove(context.Background(), v, "gone/code"); err != nil {
		t.Errorf("a missing path: %v", err)
	}
	if got := treeOf(t, root); strings.Join(got, ",") != "alias -> job-x7k2p,job-x7k2p/,job-x7k2p/model_dir/,outside/" {
		t.Errorf("after remove: %q", got)
	}
	noPodsLeft(t, v)
}

func TestOutsideTree(t *testing.T) {
	for _, tt := range []struct{ rel, target, why string }{
		{"a", "b", ""},
		{"d/a", "../b", ""},
		{"d/a", "../../b", "outside the uploaded tree"},
		{"a", "..", "outside the uploaded tree"},
		{"a", ".", ""},
		{"d/e/a", "../../x/../y", ""},
		{"a", "/etc/passwd", "an absolute path"},
		{"a", "", "empty"},
	} {
		if got := outsideTree(tt.rel, tt.target); got != tt.why {
			t.Errorf("%s -> %s: %q, want %q", tt.rel, tt.target, got, tt.why)
		}
	}
}

func TestParseListing(t *testing.T) {
	out := "12 ./run/a.bin\n0 ./run/with space\nx ./bad\n5 no-dot\n7 ./run/../../up\n-1 ./neg\n3 ./\n"
	got := parseListing([]byte(out))
	if len(got) != 2 || got["run/a.bin"] != 12 || got["run/with space"] != 0 {
		t.Errorf("listing %v", got)
	}
}

func TestUploaderPod(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	pod := FetcherPod(FetcherSpec{
		Namespace: "team-a", JobName: "mnist", Mount: StorageMount(storage.Spec{NFS: &storage.NFS{Server: "10.0.0.5", Path: "/export"}, Prefix: "teams/a"}),
		Image: "busybox:1.36", Deadline: time.Hour, Now: func() time.Time { return now }, Uploader: true,
	})
	if pod.GenerateName != "mnist-upload-" || pod.Namespace != "team-a" || len(pod.OwnerReferences) != 0 {
		t.Errorf("name %q in %q, owners %v", pod.GenerateName, pod.Namespace, pod.OwnerReferences)
	}
	if pod.Labels[jobmodel.RoleLabel] != jobmodel.RoleUploader || pod.Labels[jobmodel.NameLabel] != "mnist" || pod.Labels[jobmodel.ManagedByLabel] != jobmodel.ManagedByValue {
		t.Errorf("labels %v", pod.Labels)
	}
	if pod.Annotations[jobmodel.ExpiresAnnotation] != "2025-03-01T13:00:00Z" || *pod.Spec.ActiveDeadlineSeconds != 3600 {
		t.Errorf("expiry %v", pod.Annotations)
	}
	c := pod.Spec.Containers[0]
	vm, vol := c.VolumeMounts[0], pod.Spec.Volumes[0]
	if c.Name != UploaderContainer || c.WorkingDir != VolumeRoot || vm.MountPath != VolumeRoot || vm.SubPath != "" || vm.ReadOnly ||
		vol.NFS == nil || vol.NFS.Server != "10.0.0.5" || vol.NFS.Path != "/export" || vol.NFS.ReadOnly {
		t.Errorf("container %+v, volume %+v", c, vol)
	}
	sc := c.SecurityContext
	if *sc.RunAsUser != 0 || *sc.AllowPrivilegeEscalation || !*sc.ReadOnlyRootFilesystem || *sc.Privileged ||
		len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" ||
		fmt.Sprint(sc.Capabilities.Add) != "[DAC_OVERRIDE FOWNER]" || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("securityContext %+v", sc)
	}
	// Without a job name.
	pod = FetcherPod(FetcherSpec{Namespace: "team-a", Mount: StorageMount(storage.Spec{Claim: "team-data"}), Deadline: time.Hour, Uploader: true})
	if pod.GenerateName != "easyai-upload-" || pod.Labels[jobmodel.NameLabel] != "" || pod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "team-data" || pod.Spec.Volumes[0].PersistentVolumeClaim.ReadOnly {
		t.Errorf("pod %+v", pod.ObjectMeta)
	}
}

// A download from a whole storage volume enters its sub-path only when
// none of its directories is a symlink.
func TestAConfinedDownloadRefusesASymlinkedDirectory(t *testing.T) {
	t.Run("GNU", func(t *testing.T) { testConfinedDownload(t, "") })
	t.Run("busybox", func(t *testing.T) { testConfinedDownload(t, busyboxBin(t)) })
}

func testConfinedDownload(t *testing.T, bin string) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "volume"), filepath.Join(base, "outside")
	if err := os.MkdirAll(filepath.Join(root, "job/model_dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "job/model_dir/w.bin"), []byte("weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "job/log_dir")); err != nil {
		t.Fatal(err)
	}
	shell := &volumeShell{root: root, bin: bin}
	dest := t.TempDir()
	_, err := Download(context.Background(), Request{Executor: shell, Source: Source{Pod: "f", Dir: "job", Name: "model_dir", Confined: true}, LocalDir: dest, Into: "model_dir"})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "model_dir/w.bin")); err != nil || string(b) != "weights" {
		t.Errorf("w.bin: %q %v", b, err)
	}
	_, err = Download(context.Background(), Request{Executor: shell, Source: Source{Pod: "f", Dir: "job/log_dir", Name: ".", Confined: true}, LocalDir: dest})
	if err == nil || err.Error() != "f:job/log_dir: job/log_dir is a symbolic link: not followed" {
		t.Errorf("through a symlink: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "secret")); err == nil {
		t.Error("read through the symlink")
	}
}

// FuzzParseListing reads any listing a helper pod sends back: names stay
// relative and below the target, sizes are not negative.
func FuzzParseListing(f *testing.F) {
	for _, seed := range []string{
		"12 ./run/a.bin\n0 ./run/with space\n",
		"7 ./run/../../up\n", "5 ./\n", "x ./y\n", "1 ./a\n2 ./a\n", "3 ./a\nb\n4 ./c", "-0 ./z\n", "9 .//abs\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		for name, size := range parseListing(out) {
			if size < 0 || name == "" || name == "." || filepath.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") || filepath.Clean(name) != name {
				t.Fatalf("%q: %q: %d", out, name, size)
			}
		}
	})
}

// The archive's length is known before it is written (the remote side
// reads that much): long and non-ASCII names, links, empty and odd-sized
// files, and files that changed size since the scan.
func TestArchiveSizeIsWhatIsWritten(t *testing.T) {
	local := t.TempDir()
	long := strings.Repeat("long-name-", 20)
	files := map[string][]byte{
		"a":                        nil,
		"b":                        blob(511, 1),
		"c":                        blob(513, 2),
		"d/" + long + "/x":         blob(10240, 3),
		"ünïcödé/名前.txt":           []byte("hi"),
		"shrinks":                  blob(5000, 4),
		"grows":                    blob(700, 5),
		strings.Repeat("n", 99):    []byte("99"),
		strings.Repeat("m", 101):   []byte("101"),
		"with\nnewline and\ttab":   []byte("x"),
		"d/" + long + "/deeper/yy": blob(1, 6),
	}
	for rel, data := range files {
		p := filepath.Join(local, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(long+"/../"+long, filepath.Join(local, "d", "link")); err != nil {
		t.Fatal(err)
	}
	var warnings bytes.Buffer
	warn := func(format string, args ...any) { fmt.Fprintf(&warnings, format+"\n", args...) }
	tree, err := scanLocal(local, "up", -1, warn)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(local, "shrinks"), blob(10, 4), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(local, "grows"), blob(7000, 5), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, send := range []func(localEntry) bool{
		func(localEntry) bool { return true },
		func(e localEntry) bool { return e.typ != tar.TypeReg || len(e.name)%2 == 0 },
	} {
		want, err := archiveSize(tree.entries, send)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		a := &archiveWriter{sent: func(int64) {}, warn: warn}
		if err := a.write(&buf, tree.entries, send); err != nil {
			t.Fatal(err)
		}
		if int64(buf.Len()) != want || want%recordSize != 0 || !a.ended {
			t.Errorf("archive of %d bytes, predicted %d", buf.Len(), want)
		}
	}
	for _, want := range []string{"shrinks shrank while it was uploaded", "grows grew while it was uploaded: its copy has its first 700 bytes"} {
		if !strings.Contains(warnings.String(), want) {
			t.Errorf("warnings %q, want %q", warnings.String(), want)
		}
	}
}

// blockingShell takes the stream and never ends, until its context does.
type blockingShell struct{ started chan struct{} }

func (b *blockingShell) Exec(ctx context.Context, _, _, _ string, _ []string, s remote.Streams) error {
	close(b.started)
	if s.Stdin != nil {
		go func() { _, _ = io.Copy(io.Discard, s.Stdin) }()
	}
	<-ctx.Done()
	return ctx.Err()
}

// Ctrl-C during an upload deletes the uploader pod.
func TestACancelledUploadDeletesItsPod(t *testing.T) {
	local := localTreeFixture(t)
	b := &blockingShell{started: make(chan struct{})}
	v := uploadVolume(t, nil)
	v.Executor = b
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-b.started
		cancel()
	}()
	_, err := Upload(ctx, UploadRequest{Volume: v, SubPath: "data", Local: local, Retries: 3, Backoff: time.Millisecond})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	noPodsLeft(t, v)
}

// The idle timeout is for a stream that takes no byte: once the archive is
// all sent, a tar that takes longer than it to finish (a slow flush) is
// waited for, neither broken off nor taken for an interruption.
func TestASlowFinishAfterTheLastByteIsNotIdle(t *testing.T) {
	local := t.TempDir()
	if err := os.WriteFile(filepath.Join(local, "f.bin"), blob(64<<10, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	shell := &volumeShell{root: t.TempDir(), finish: 600 * time.Millisecond}
	var warnings bytes.Buffer
	res, err := Upload(context.Background(), UploadRequest{Volume: uploadVolume(t, shell), SubPath: "data", Local: local,
		Retries: 1, Backoff: time.Millisecond, IdleTimeout: 150 * time.Millisecond, Warnings: &warnings})
	if err != nil || res.Retries != 0 || warnings.Len() > 0 {
		t.Errorf("upload: %v (exit %d), result %+v, warnings %q; want it done at once", err, exit.Code(err), res, warnings.String())
	}
	same(t, filepath.Join(local, "f.bin"), filepath.Join(shell.root, "data", "f.bin"))
}

// A symbolic link someone else planted at or below the names the upload
// writes (data/alice/dataset -> ../../other) is removed before tar runs,
// so nothing is written through it: with GNU tar and with busybox tar,
// which writes through an existing link.
func TestUploadReplacesPlantedSymlinks(t *testing.T) {
	t.Run("GNU", func(t *testing.T) { testUploadReplacesPlantedSymlinks(t, "") })
	t.Run("busybox", func(t *testing.T) { testUploadReplacesPlantedSymlinks(t, busyboxBin(t)) })
}

func testUploadReplacesPlantedSymlinks(t *testing.T, bin string) {
	local := filepath.Join(t.TempDir(), "dataset")
	for name, content := range map[string]string{"a.txt": "mine\n", "sub/b.txt": "mine too\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(local, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(local, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	single := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(single, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	other := filepath.Join(root, "data", "bob")
	if err := os.MkdirAll(filepath.Join(other, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("bob's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	alice := filepath.Join(root, "data", "alice")
	if err := os.MkdirAll(filepath.Join(alice, "kept"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"dataset":      "../bob",           // the target's own name
		"notes.txt":    "../bob/notes.txt", // a file uploaded by name
		"kept/sub":     "../../bob/sub",    // below a name the upload writes
		"unrelated.ln": "../bob",           // not a name of the upload: left alone
	} {
		if err := os.Symlink(target, filepath.Join(alice, link)); err != nil {
			t.Fatal(err)
		}
	}
	shell := &volumeShell{root: root, bin: bin}
	v := uploadVolume(t, shell)
	for _, up := range []UploadRequest{
		{Volume: v, SubPath: "data/alice", Local: local, Into: "dataset"},
		{Volume: v, SubPath: "data/alice", Local: single, Into: "notes.txt"},
		{Volume: v, SubPath: "data/alice", Local: local, Into: "kept"},
	} {
		if _, err := Upload(context.Background(), up); err != nil {
			t.Fatalf("upload of %s into %s: %v", up.Local, up.Into, err)
		}
	}
	if got := tree(t, other); strings.Join(got, ",") != "notes.txt: 6,sub/" {
		t.Errorf("bob's directory now holds %q; want it untouched", got)
	}
	if data, _ := os.ReadFile(filepath.Join(other, "notes.txt")); string(data) != "bob's\n" {
		t.Errorf("bob's notes now hold %q", data)
	}
	for path, want := range map[string]string{"dataset/a.txt": "mine\n", "dataset/sub/b.txt": "mine too\n", "notes.txt": "my notes\n", "kept/sub/b.txt": "mine too\n"} {
		if data, err := os.ReadFile(filepath.Join(alice, path)); err != nil || string(data) != want {
			t.Errorf("data/alice/%s: %q, %v; want %q", path, data, err, want)
		}
	}
	if target, err := os.Readlink(filepath.Join(alice, "unrelated.ln")); err != nil || target != "../bob" {
		t.Errorf("a link the upload does not write was changed: %q, %v", target, err)
	}

	// A directory's content into the sub-path itself (--code dir: into the
	// job's code directory): the links below it go.
	code := filepath.Join(root, "jobs", "j-abcde", "code")
	if err := os.MkdirAll(code, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../data/bob/sub", filepath.Join(code, "sub")); err != nil {
		t.Fatal(err)
	}
	if _, err := Upload(context.Background(), UploadRequest{Volume: v, SubPath: "jobs/j-abcde/code", Local: local}); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, other); strings.Join(got, ",") != "notes.txt: 6,sub/" {
		t.Errorf("after the code upload, bob's directory holds %q", got)
	}
	if data, err := os.ReadFile(filepath.Join(code, "sub", "b.txt")); err != nil || string(data) != "mine too\n" {
		t.Errorf("code/sub/b.txt: %q, %v", data, err)
	}
}
