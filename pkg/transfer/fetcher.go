package transfer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// Defaults of a fetcher pod.
const (
	// DefaultFetcherImage is a tag: --fetcher-image (or the fetcher-image
	// setting) pins a digest or names a mirror.
	DefaultFetcherImage = "busybox:1.36"
	// FetcherUser is the numeric user the fetcher runs as (nobody): Pod
	// Security "restricted" wants a non-root user the kubelet can check.
	FetcherUser            int64 = 65534
	DefaultFetcherTimeout        = 2 * time.Minute
	DefaultFetcherDeadline       = 4 * time.Hour
	// FetcherContainer is the fetcher pod's one container.
	FetcherContainer = "fetch"
	// UploaderContainer is the uploader pod's one container.
	UploaderContainer = "upload"
	// VolumeRoot is where a helper pod mounts the whole storage volume
	// (submit --storage), its working directory: every path it is given is
	// relative to the volume's root.
	VolumeRoot = "/easyai-storage"
)

// Mount is a volume a helper pod mounts: one of the job's shared storage
// (submit --data), as the job's resolved values (its request annotation)
// hold it, or the storage of submit --storage (a claim or an NFS export).
type Mount struct {
	Claim string `json:"claim"`
	// NFS is an NFS export mounted directly, in place of Claim.
	NFS       *storage.NFS `json:"nfs,omitempty"`
	MountPath string       `json:"mountPath"`
	SubPath   string       `json:"subPath,omitempty"`
	ReadOnly  bool         `json:"readOnly,omitempty"`
}

// StorageMount is the whole volume of a storage, mounted at VolumeRoot.
func StorageMount(s storage.Spec) Mount {
	m := Mount{Claim: s.Claim, MountPath: VolumeRoot}
	if s.NFS != nil {
		m.Claim, m.NFS = "", &storage.NFS{Server: s.NFS.Server, Path: s.NFS.Path}
	}
	return m
}

// volume is the mount's volume source; readOnly also protects it from a
// writer (the kubelet mounts it read-only).
func (m Mount) volume(readOnly bool) corev1.VolumeSource {
	if m.NFS != nil {
		return corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: m.NFS.Server, Path: m.NFS.Path, ReadOnly: readOnly}}
	}
	return corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: m.Claim, ReadOnly: readOnly}}
}

// String names the volume for people: "claim results", "nfs 10.0.0.5:/export".
func (m Mount) String() string {
	if m.NFS != nil {
		return "nfs " + m.NFS.Server + ":" + m.NFS.Path
	}
	return "claim " + m.Claim
}

// request is the part of a job's resolved values a fetcher needs.
type request struct {
	WorkingDir string  `json:"workingDir"`
	Data       []Mount `json:"data"`
	Code       struct {
		Dir bool `json:"dir"`
	} `json:"code"`
	NodeSelector map[string]string   `json:"nodeSelector"`
	Tolerations  []corev1.Toleration `json:"tolerations"`
}

// Placement is where the job's pods were allowed to run (submit
// --node-selector and --toleration); the fetcher pod goes where they went,
// so it can reach the same storage and nodes.
type Placement struct {
	NodeSelector map[string]string
	Tolerations  []corev1.Toleration
}

// PlacementOf reads the job's placement from its request annotation (none:
// anywhere).
func PlacementOf(obj *unstructured.Unstructured) (Placement, error) {
	req, err := requestOf(obj)
	if err != nil {
		return Placement{}, err
	}
	return Placement{NodeSelector: req.NodeSelector, Tolerations: req.Tolerations}, nil
}

// requestOf reads what a fetcher needs of the job's request annotation;
// without one, the job has no storage and may run anywhere. One that cannot
// be read fails the download: where the job's files are is not known then.
func requestOf(obj *unstructured.Unstructured) (request, error) {
	var req request
	if _, err := jobmodel.ReadRequest(obj.GetAnnotations(), &req); err != nil {
		return request{}, fmt.Errorf("job %s: %w", obj.GetName(), err)
	}
	return req, nil
}

// ErrNotOnStorage is a path that no shared storage of the job holds.
var ErrNotOnStorage = errors.New("not on the job's shared storage")

// Found is where a remote path of a job is on its shared storage.
type Found struct {
	// Mount is what the fetcher mounts: a --data volume as the job's pods
	// mount it, or the whole volume of --storage at VolumeRoot.
	Mount Mount
	// Rel is the path relative to the mount path, the fetcher's working
	// directory.
	Rel string
	// Confined: Rel is a path of the whole volume, whose directories tar
	// enters without following a symlink (Source.Confined).
	Confined bool
	// Location names the path for people: "results:/mnt/results/x" (a
	// claim of --data and the path in the pods),
	// "pvc:team-data:/teams/a/mnist-x7k2p/model_dir/x".
	Location string
}

// storageDir is a directory the job's pods mount: its mount path, and
// where it is.
type storageDir struct {
	mountPath string
	found     Found
}

// StorageFor finds the shared storage of the job that holds the remote
// path p: a volume of submit --data, or a directory of submit --storage
// (/model_dir, /log_dir, /share_dir, /data_dir, /pre_model_dir, the working
// directory of --code dir, and /summary_dir, which is task's own). A
// relative p is taken from the job's working directory, when its values
// set one. The error wraps ErrNotOnStorage when no storage holds p.
func StorageFor(obj *unstructured.Unstructured, p, task string) (Found, error) {
	req, err := requestOf(obj)
	if err != nil {
		return Found{}, err
	}
	var dirs []storageDir
	for _, m := range req.Data {
		dirs = append(dirs, storageDir{mountPath: path.Clean(m.MountPath), found: Found{Mount: m}})
	}
	v, serr := storage.Of(obj)
	if serr == nil {
		dirs = append(dirs, storageDirs(v, req, task)...)
	}
	if len(dirs) == 0 {
		if serr != nil && !errors.Is(serr, storage.ErrNoStorage) {
			return Found{}, serr
		}
		return Found{}, fmt.Errorf("%w: the job has no --storage and no --data", ErrNotOnStorage)
	}
	if !path.IsAbs(p) {
		if !path.IsAbs(req.WorkingDir) {
			return Found{}, fmt.Errorf("%w: %q is relative to the container's working directory, which the job does not set; give an absolute path under %s", ErrNotOnStorage, p, mountPaths(dirs))
		}
		p = path.Join(req.WorkingDir, p)
	}
	p = path.Clean(p)
	best, rel := deepestMount(dirs, p)
	if best < 0 {
		if serr != nil && !errors.Is(serr, storage.ErrNoStorage) {
			return Found{}, fmt.Errorf("%w: %s is under none of %s (and %v)", ErrNotOnStorage, p, mountPaths(dirs), serr)
		}
		return Found{}, fmt.Errorf("%w: %s is under none of %s", ErrNotOnStorage, p, mountPaths(dirs))
	}
	f := dirs[best].found
	if f.Confined {
		// The directory's path on the volume, then the path below it.
		if rel != "." {
			f.Location += "/" + rel
		}
		f.Rel = path.Join(f.Rel, rel)
		return f, nil
	}
	f.Rel = rel
	f.Location = f.Mount.Claim + ":" + p
	return f, nil
}

// deepestMount is the directory of dirs with the longest mount path that
// holds p (clean and absolute), and p relative to that path ("." for the
// path itself); -1 when none holds it.
func deepestMount(dirs []storageDir, p string) (best int, rel string) {
	best = -1
	for i, d := range dirs {
		var r string
		switch {
		case p == d.mountPath:
			r = "."
		case d.mountPath == "/":
			r = strings.TrimPrefix(p, "/")
		case strings.HasPrefix(p, d.mountPath+"/"):
			r = strings.TrimPrefix(p, d.mountPath+"/")
		default:
			continue
		}
		if best < 0 || len(d.mountPath) > len(dirs[best].mountPath) {
			best, rel = i, r
		}
	}
	return best, rel
}

// storageDirs are the directories of a job's --storage, as mounted in its
// pods; /summary_dir is task's.
func storageDirs(v storage.Values, req request, task string) []storageDir {
	mount := StorageMount(v.Spec)
	var dirs []storageDir
	add := func(mountPath, sub string) {
		dirs = append(dirs, storageDir{mountPath: mountPath, found: Found{
			Mount: mount, Rel: v.OnVolume(sub), Confined: true, Location: v.Spec.Location(sub),
		}})
	}
	for _, d := range v.Dirs() {
		sub := d.SubPath
		if d.Env == storage.SummaryDir {
			if task == "" || !validTask(task) {
				continue
			}
			sub = strings.Replace(sub, storage.Task, task, 1)
		}
		add(d.MountPath, sub)
	}
	if req.Code.Dir && path.IsAbs(req.WorkingDir) {
		add(path.Clean(req.WorkingDir), path.Join(v.JobDir, "code"))
	}
	return dirs
}

// validTask is a replica's name that may stand in a path: ROLE-INDEX.
func validTask(task string) bool {
	return task != "." && task != ".." && !strings.ContainsAny(task, "/\\\x00")
}

func mountPaths(dirs []storageDir) string {
	paths := make([]string, len(dirs))
	for i, d := range dirs {
		paths[i] = d.mountPath
	}
	return strings.Join(paths, ", ")
}

// FetcherSpec is a helper pod that mounts a storage volume and sleeps
// until easyai execs tar in it: a fetcher (download, logs) mounts it
// read-only; an uploader (Upload) mounts it writable.
type FetcherSpec struct {
	// Job is the job the pod works for: the pod is in its namespace and
	// owned by it. nil: the pod is owned by nothing (an upload before the
	// job exists), in Namespace, named after JobName when given.
	Job       *unstructured.Unstructured
	Namespace string
	JobName   string
	Mount     Mount
	// Placement is the job's: the fetcher runs where its pods could.
	Placement Placement
	Image     string
	// Deadline bounds the pod's life (activeDeadlineSeconds and the expiry
	// annotation), should easyai not live to delete it.
	Deadline time.Duration
	Now      func() time.Time
	// Uploader makes the pod an uploader (RoleUploader): the volume is
	// mounted writable and the pod runs as root with only the capabilities
	// that writing into directories of other users needs (UploaderPod).
	Uploader bool
}

func (s FetcherSpec) namespace() string {
	if s.Job != nil {
		return s.Job.GetNamespace()
	}
	return s.Namespace
}

func (s FetcherSpec) jobName() string {
	if s.Job != nil {
		return s.Job.GetName()
	}
	return s.JobName
}

// role is the pod's role label and the word for it in messages.
func (s FetcherSpec) role() string {
	if s.Uploader {
		return jobmodel.RoleUploader
	}
	return jobmodel.RoleFetcher
}

func (s FetcherSpec) container() string {
	if s.Uploader {
		return UploaderContainer
	}
	return FetcherContainer
}

// FetcherPod is the pod of a fetcher, or of an uploader. Its working
// directory is the mount path, so tar is given paths relative to it.
func FetcherPod(s FetcherSpec) *corev1.Pod {
	seconds := max(int64(s.Deadline/time.Second), 1)
	pod := &corev1.Pod{
		ObjectMeta: s.podMeta(),
		Spec: corev1.PodSpec{
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   ptr(true),
				RunAsUser:      ptr(FetcherUser),
				RunAsGroup:     ptr(FetcherUser),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			RestartPolicy:                 corev1.RestartPolicyNever,
			ActiveDeadlineSeconds:         &seconds,
			TerminationGracePeriodSeconds: new(int64),
			AutomountServiceAccountToken:  new(bool),
			NodeSelector:                  s.Placement.NodeSelector,
			Tolerations:                   s.Placement.Tolerations,
			Containers:                    []corev1.Container{s.podContainer(seconds)},
			Volumes:                       []corev1.Volume{{Name: "data", VolumeSource: s.Mount.volume(!s.Uploader)}},
		},
	}
	if s.Uploader {
		uploaderSecurity(pod)
	}
	return pod
}

// podMeta names the pod after its job (at most 40 characters of the name;
// "easyai" without one), labels it easyai's fetcher or uploader of the
// job, says when it expires, and has the job own it when there is one: the
// garbage collector deletes the pod with its job.
func (s FetcherSpec) podMeta() metav1.ObjectMeta {
	name := s.jobName()
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	prefix := name
	if prefix == "" {
		prefix = "easyai"
	}
	if len(prefix) > 40 {
		prefix = strings.TrimRight(prefix[:40], "-.")
	}
	suffix := "-fetch-"
	if s.Uploader {
		suffix = "-upload-"
	}
	meta := metav1.ObjectMeta{
		GenerateName: prefix + suffix,
		Namespace:    s.namespace(),
		Labels:       map[string]string{jobmodel.ManagedByLabel: jobmodel.ManagedByValue, jobmodel.RoleLabel: s.role()},
		Annotations:  map[string]string{jobmodel.ExpiresAnnotation: now().Add(s.Deadline).UTC().Format(time.RFC3339)},
	}
	if name != "" {
		meta.Labels[jobmodel.NameLabel] = name
	}
	if s.Job != nil {
		meta.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: s.Job.GetAPIVersion(), Kind: s.Job.GetKind(), Name: name, UID: s.Job.GetUID(),
		}}
	}
	return meta
}

// podContainer is the pod's one container: it sleeps for seconds (the
// pod's life) in the mount path, under Pod Security "restricted", with a
// root file system nothing writes to; the volume is read-only but for an
// uploader.
func (s FetcherSpec) podContainer(seconds int64) corev1.Container {
	return corev1.Container{
		Name:       s.container(),
		Image:      s.Image,
		Command:    []string{"sleep", strconv.FormatInt(seconds, 10)},
		WorkingDir: s.Mount.MountPath,
		SecurityContext: &corev1.SecurityContext{
			RunAsNonRoot:             ptr(true),
			RunAsUser:                ptr(FetcherUser),
			AllowPrivilegeEscalation: ptr(false),
			ReadOnlyRootFilesystem:   ptr(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		VolumeMounts: []corev1.VolumeMount{{
			Name: "data", MountPath: s.Mount.MountPath, SubPath: s.Mount.SubPath, ReadOnly: !s.Uploader,
		}},
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("50m"),
				corev1.ResourceMemory: resource.MustParse("32Mi"),
			},
			Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
		},
	}
}

// UploaderCapabilities are all the uploader pod keeps: writing into
// directories of other users (DAC_OVERRIDE; the kubelet makes a sub-path's
// missing directories root-owned 0755, and jobs write as any user), and
// setting the mode and time of files it did not create (FOWNER). tar is
// told to keep no owner, so it needs no CHOWN.
var UploaderCapabilities = []corev1.Capability{"DAC_OVERRIDE", "FOWNER"}

// uploaderSecurity makes a fetcher pod an uploader's: user 0 with only
// UploaderCapabilities, no privilege escalation, the runtime's seccomp
// profile, a read-only root file system. Pod Security "baseline" admits
// it, "restricted" does not (it wants a non-root user).
func uploaderSecurity(pod *corev1.Pod) {
	pod.Spec.SecurityContext = &corev1.PodSecurityContext{
		RunAsUser:      ptr(int64(0)),
		RunAsGroup:     ptr(int64(0)),
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	c := &pod.Spec.Containers[0]
	c.SecurityContext = &corev1.SecurityContext{
		RunAsUser:                ptr(int64(0)),
		RunAsNonRoot:             ptr(false),
		AllowPrivilegeEscalation: ptr(false),
		ReadOnlyRootFilesystem:   ptr(true),
		Privileged:               ptr(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: UploaderCapabilities},
		SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
}

func ptr[T any](v T) *T { return &v }

// Fetcher is a running fetcher (or uploader) pod.
type Fetcher struct {
	Kube      kubernetes.Interface
	Namespace string
	Pod       string
	// Container is the pod's one container, where commands run.
	Container string
	// role is "fetcher" or "uploader", for messages.
	role string
	// deadline bounds the pod's life, should it not be deleted.
	deadline time.Duration
}

func (f *Fetcher) what() string {
	if f.role == "" {
		return jobmodel.RoleFetcher
	}
	return f.role
}

// StartFetcher creates the fetcher (or uploader) pod and waits, at most
// timeout, for it to run. It deletes the pod again when it does not run.
func StartFetcher(ctx context.Context, client kubernetes.Interface, s FetcherSpec, timeout time.Duration) (*Fetcher, error) {
	created, err := client.CoreV1().Pods(s.namespace()).Create(ctx, FetcherPod(s), metav1.CreateOptions{})
	if err != nil {
		what := "a fetcher pod"
		if s.Uploader {
			what = "an uploader pod"
		}
		if name := s.jobName(); name != "" {
			what += " for " + name
		}
		if apierrors.IsForbidden(err) && s.Uploader && strings.Contains(err.Error(), "violates PodSecurity") {
			return nil, exit.WithHint(fmt.Errorf("creating %s: %w", what, err),
				"the uploader runs as root (docs/storage.md, Uploading): Pod Security \"restricted\" refuses it; a namespace at \"baseline\" admits it")
		}
		return nil, fmt.Errorf("creating %s: %w", what, err)
	}
	f := &Fetcher{Kube: client, Namespace: created.Namespace, Pod: created.Name, Container: s.container(), role: s.role(), deadline: s.Deadline}
	if err := f.waitRunning(ctx, timeout); err != nil {
		_ = f.Delete(ctx)
		return nil, err
	}
	return f, nil
}

// waitRunning watches the pod until it runs.
func (f *Fetcher) waitRunning(ctx context.Context, timeout time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	selector := fields.OneTermEqualSelector("metadata.name", f.Pod).String()
	pods := f.Kube.CoreV1().Pods(f.Namespace)
	lw := &cache.ListWatch{
		ListFunc: func(opts metav1.ListOptions) (runtime.Object, error) {
			opts.FieldSelector = selector
			return pods.List(wctx, opts)
		},
		WatchFunc: func(opts metav1.ListOptions) (watch.Interface, error) {
			opts.FieldSelector = selector
			return pods.Watch(wctx, opts)
		},
	}
	var last *corev1.Pod
	_, err := watchtools.UntilWithSync(wctx, lw, &corev1.Pod{}, nil, func(ev watch.Event) (bool, error) {
		pod, ok := ev.Object.(*corev1.Pod)
		if !ok {
			return false, nil
		}
		if ev.Type == watch.Deleted {
			return false, fmt.Errorf("the %s pod %s was deleted before it ran", f.what(), f.Pod)
		}
		last = pod
		switch pod.Status.Phase {
		case corev1.PodRunning:
			return true, nil
		case corev1.PodFailed, corev1.PodSucceeded:
			return false, fmt.Errorf("the %s pod %s ended (%s) before it ran: %s", f.what(), f.Pod, pod.Status.Phase, kube.PendingReason(pod))
		}
		return false, nil
	})
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if wctx.Err() != nil {
		return exit.TimeoutErrorf("the %s pod %s did not run within %s: %s", f.what(), f.Pod, timeout, kube.PendingReason(last))
	}
	return err
}

// Delete deletes the pod now. It runs also when ctx was cancelled
// (Ctrl-C), with a bounded time of its own.
func (f *Fetcher) Delete(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	background := metav1.DeletePropagationBackground
	err := f.Kube.CoreV1().Pods(f.Namespace).Delete(ctx, f.Pod, metav1.DeleteOptions{GracePeriodSeconds: new(int64), PropagationPolicy: &background})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the %s pod %s: %w", f.what(), f.Pod, err)
	}
	return nil
}

// Stop deletes the pod (Delete); when it cannot, it says so on warnings
// (stderr): the pod then ends by itself at its deadline.
func (f *Fetcher) Stop(ctx context.Context, warnings io.Writer) {
	if err := f.Delete(ctx); err != nil {
		fmt.Fprintf(warnings, "Warning: %v; it ends by itself within %s\n", err, f.deadline)
	}
}
