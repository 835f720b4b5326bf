package transfer

import (
	"context"
	"errors"
	"fmt"
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
)

// Mount is a volume of the job's shared storage (submit --data), as the
// job's resolved values (its request annotation) hold it.
type Mount struct {
	Claim     string `json:"claim"`
	MountPath string `json:"mountPath"`
	SubPath   string `json:"subPath,omitempty"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}

// request is the part of a job's resolved values a fetcher needs.
type request struct {
	WorkingDir   string              `json:"workingDir"`
	Data         []Mount             `json:"data"`
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

// StorageFor finds the shared storage of the job that holds the remote
// path p, and p relative to where it is mounted. A relative p is taken
// from the job's working directory, when its values set one. The error
// wraps ErrNotOnStorage when no storage holds p.
func StorageFor(obj *unstructured.Unstructured, p string) (Mount, string, error) {
	req, err := requestOf(obj)
	if err != nil {
		return Mount{}, "", err
	}
	if len(req.Data) == 0 {
		return Mount{}, "", fmt.Errorf("%w: the job has no --data storage", ErrNotOnStorage)
	}
	if !path.IsAbs(p) {
		if !path.IsAbs(req.WorkingDir) {
			return Mount{}, "", fmt.Errorf("%w: %q is relative to the container's working directory, which the job does not set; give an absolute path under %s", ErrNotOnStorage, p, mountPaths(req.Data))
		}
		p = path.Join(req.WorkingDir, p)
	}
	p = path.Clean(p)
	var best Mount
	var rel string
	found := false
	for _, m := range req.Data {
		mp := path.Clean(m.MountPath)
		var r string
		switch {
		case p == mp:
			r = "."
		case mp == "/":
			r = strings.TrimPrefix(p, "/")
		case strings.HasPrefix(p, mp+"/"):
			r = strings.TrimPrefix(p, mp+"/")
		default:
			continue
		}
		if !found || len(mp) > len(path.Clean(best.MountPath)) {
			best, rel, found = m, r, true
		}
	}
	if !found {
		return Mount{}, "", fmt.Errorf("%w: %s is under none of %s", ErrNotOnStorage, p, mountPaths(req.Data))
	}
	return best, rel, nil
}

func mountPaths(data []Mount) string {
	paths := make([]string, len(data))
	for i, m := range data {
		paths[i] = m.MountPath
	}
	return strings.Join(paths, ", ")
}

// FetcherSpec is the fetcher pod of a job: it mounts one of the job's
// shared storage volumes, read-only, and sleeps until the download execs
// tar in it.
type FetcherSpec struct {
	// Job is the job object: the pod is in its namespace and owned by it.
	Job   *unstructured.Unstructured
	Mount Mount
	// Placement is the job's: the fetcher runs where its pods could.
	Placement Placement
	Image     string
	// Deadline bounds the pod's life (activeDeadlineSeconds and the expiry
	// annotation), should easyai not live to delete it.
	Deadline time.Duration
	Now      func() time.Time
}

// FetcherPod is the pod of a fetcher. Its working directory is the mount
// path, so tar is given paths relative to it.
func FetcherPod(s FetcherSpec) *corev1.Pod {
	name := s.Job.GetName()
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	seconds := int64(s.Deadline / time.Second)
	if seconds < 1 {
		seconds = 1
	}
	prefix := name
	if len(prefix) > 40 {
		prefix = strings.TrimRight(prefix[:40], "-.")
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName: prefix + "-fetch-",
			Namespace:    s.Job.GetNamespace(),
			Labels: map[string]string{
				jobmodel.ManagedByLabel: jobmodel.ManagedByValue,
				jobmodel.NameLabel:      name,
				jobmodel.RoleLabel:      jobmodel.RoleFetcher,
			},
			Annotations: map[string]string{
				jobmodel.ExpiresAnnotation: now().Add(s.Deadline).UTC().Format(time.RFC3339),
			},
			// The garbage collector deletes the pod with its job.
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: s.Job.GetAPIVersion(),
				Kind:       s.Job.GetKind(),
				Name:       name,
				UID:        s.Job.GetUID(),
			}},
		},
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
			Containers: []corev1.Container{{
				Name:       FetcherContainer,
				Image:      s.Image,
				Command:    []string{"sleep", strconv.FormatInt(seconds, 10)},
				WorkingDir: s.Mount.MountPath,
				// Pod Security "restricted", and a root file system nothing
				// writes to: the fetcher only reads.
				SecurityContext: &corev1.SecurityContext{
					RunAsNonRoot:             ptr(true),
					RunAsUser:                ptr(FetcherUser),
					AllowPrivilegeEscalation: ptr(false),
					ReadOnlyRootFilesystem:   ptr(true),
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				},
				VolumeMounts: []corev1.VolumeMount{{
					Name: "data", MountPath: s.Mount.MountPath, SubPath: s.Mount.SubPath, ReadOnly: true,
				}},
				Resources: corev1.ResourceRequirements{
					Requests: corev1.ResourceList{
						corev1.ResourceCPU:    resource.MustParse("50m"),
						corev1.ResourceMemory: resource.MustParse("32Mi"),
					},
					Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
				},
			}},
			Volumes: []corev1.Volume{{
				Name: "data",
				VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{
					ClaimName: s.Mount.Claim, ReadOnly: true,
				}},
			}},
		},
	}
}

func ptr[T any](v T) *T { return &v }

// Fetcher is a running fetcher pod.
type Fetcher struct {
	Kube      kubernetes.Interface
	Namespace string
	Pod       string
}

// StartFetcher creates the fetcher pod and waits, at most timeout, for it
// to run. It deletes the pod again when it does not run.
func StartFetcher(ctx context.Context, client kubernetes.Interface, s FetcherSpec, timeout time.Duration) (*Fetcher, error) {
	created, err := client.CoreV1().Pods(s.Job.GetNamespace()).Create(ctx, FetcherPod(s), metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("creating a fetcher pod for %s: %w", s.Job.GetName(), err)
	}
	f := &Fetcher{Kube: client, Namespace: created.Namespace, Pod: created.Name}
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
			return false, fmt.Errorf("the fetcher pod %s was deleted before it ran", f.Pod)
		}
		last = pod
		switch pod.Status.Phase {
		case corev1.PodRunning:
			return true, nil
		case corev1.PodFailed, corev1.PodSucceeded:
			return false, fmt.Errorf("the fetcher pod %s ended (%s) before it ran: %s", f.Pod, pod.Status.Phase, kube.PendingReason(pod))
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
		return exit.TimeoutErrorf("the fetcher pod %s did not run within %s: %s", f.Pod, timeout, kube.PendingReason(last))
	}
	return err
}

// Delete deletes the fetcher pod now. It runs also when ctx was cancelled
// (Ctrl-C), with a bounded time of its own.
func (f *Fetcher) Delete(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	background := metav1.DeletePropagationBackground
	err := f.Kube.CoreV1().Pods(f.Namespace).Delete(ctx, f.Pod, metav1.DeleteOptions{GracePeriodSeconds: new(int64), PropagationPolicy: &background})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the fetcher pod %s: %w", f.Pod, err)
	}
	return nil
}
