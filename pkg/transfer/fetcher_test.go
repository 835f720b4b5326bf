package transfer

import (
	"context"
	"errors"
	"path"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/storage"
)

func tfJob(request string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion("kubeflow.org/v1")
	obj.SetKind("TFJob")
	obj.SetName("mnist")
	obj.SetNamespace("team-a")
	obj.SetUID("uid-mnist")
	if request != "" {
		obj.SetAnnotations(map[string]string{jobmodel.RequestAnnotation: request})
	}
	return obj
}

func TestStorageFor(t *testing.T) {
	req := `{"workingDir":"/mnt/data/code","data":[{"claim":"data","mountPath":"/mnt/data"},{"claim":"ckpt","mountPath":"/mnt/data/ckpt","subPath":"run-3","readOnly":true}]}`
	for _, tt := range []struct {
		path, claim, rel string
	}{
		{"/mnt/data", "data", "."},
		{"/mnt/data/", "data", "."},
		{"/mnt/data/out/x.txt", "data", "out/x.txt"},
		{"/mnt/data/ckpt/step-9", "ckpt", "step-9"},
		{"outputs", "data", "code/outputs"},
		{".", "data", "code"},
	} {
		f, err := StorageFor(tfJob(req), tt.path, "worker-0")
		if err != nil || f.Mount.Claim != tt.claim || f.Rel != tt.rel || f.Confined || f.Location != tt.claim+":"+path.Join("/mnt/data/code", tt.path) && f.Location != tt.claim+":"+path.Clean(tt.path) {
			t.Errorf("%s: %+v %v; want claim %s, %q", tt.path, f, err, tt.claim, tt.rel)
		}
	}
	for _, tt := range []struct{ request, path, err string }{
		{req, "/mnt/database", "/mnt/database is under none of /mnt/data, /mnt/data/ckpt"},
		{req, "/etc", "/etc is under none of"},
		{"", "/mnt/data", "the job has no --storage and no --data"},
		{`{"data":[{"claim":"data","mountPath":"/mnt/data"}]}`, "outputs", `"outputs" is relative to the container's working directory, which the job does not set; give an absolute path under /mnt/data`},
	} {
		_, err := StorageFor(tfJob(tt.request), tt.path, "worker-0")
		if !errors.Is(err, ErrNotOnStorage) || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v, want %q", tt.path, err, tt.err)
		}
	}
}

// withStorage is a job submitted with --storage: its request and its job
// directory annotation.
func withStorage(request string) *unstructured.Unstructured {
	obj := tfJob(request)
	ann := obj.GetAnnotations()
	ann[jobmodel.JobDirAnnotation] = "mnist-x7k2p"
	obj.SetAnnotations(ann)
	return obj
}

// The directories of --storage are found on the whole volume, mounted at
// VolumeRoot; /summary_dir is the task's own.
func TestStorageForTheStoragesDirectories(t *testing.T) {
	obj := withStorage(`{"workingDir":"/workspace","code":{"dir":true},"data":[{"claim":"ckpt","mountPath":"/model_dir/ckpt"}],` +
		`"storage":{"claim":"team-data","prefix":"teams/a","jobDir":"mnist-x7k2p","dataDir":"data/alice","preJobDir":"base-b2c3d","persistLogs":true}}`)
	for _, tt := range []struct{ path, task, rel, location string }{
		{"/model_dir", "worker-0", "teams/a/mnist-x7k2p/model_dir", "pvc:team-data:/teams/a/mnist-x7k2p/model_dir"},
		{"/model_dir/step-9/w.pt", "", "teams/a/mnist-x7k2p/model_dir/step-9/w.pt", "pvc:team-data:/teams/a/mnist-x7k2p/model_dir/step-9/w.pt"},
		{"/model_dir/.hidden", "", "teams/a/mnist-x7k2p/model_dir/.hidden", "pvc:team-data:/teams/a/mnist-x7k2p/model_dir/.hidden"},
		{"/log_dir/", "", "teams/a/mnist-x7k2p/log_dir", "pvc:team-data:/teams/a/mnist-x7k2p/log_dir"},
		{"/share_dir/x", "", "teams/a/mnist-x7k2p/share_dir/x", "pvc:team-data:/teams/a/mnist-x7k2p/share_dir/x"},
		{"/data_dir", "", "teams/a/data/alice", "pvc:team-data:/teams/a/data/alice"},
		{"/pre_model_dir", "", "teams/a/base-b2c3d/model_dir", "pvc:team-data:/teams/a/base-b2c3d/model_dir"},
		{"/summary_dir", "worker-1", "teams/a/mnist-x7k2p/worker-1/summary_dir", "pvc:team-data:/teams/a/mnist-x7k2p/worker-1/summary_dir"},
		{"/summary_dir/events", "ps-0", "teams/a/mnist-x7k2p/ps-0/summary_dir/events", "pvc:team-data:/teams/a/mnist-x7k2p/ps-0/summary_dir/events"},
		{"outputs", "", "teams/a/mnist-x7k2p/code/outputs", "pvc:team-data:/teams/a/mnist-x7k2p/code/outputs"},
	} {
		f, err := StorageFor(obj, tt.path, tt.task)
		if err != nil || !f.Confined || f.Rel != tt.rel || f.Location != tt.location || f.Mount.Claim != "team-data" || f.Mount.MountPath != VolumeRoot || f.Mount.SubPath != "" {
			t.Errorf("%s (%s): %+v %v\nwant %s at %s", tt.path, tt.task, f, err, tt.rel, tt.location)
		}
	}
	// A --data volume mounted below a storage directory is more precise.
	if f, err := StorageFor(obj, "/model_dir/ckpt/a", ""); err != nil || f.Confined || f.Mount.Claim != "ckpt" || f.Rel != "a" {
		t.Errorf("--data below /model_dir: %+v %v", f, err)
	}
	// Without a task there is no /summary_dir.
	if _, err := StorageFor(obj, "/summary_dir", ""); !errors.Is(err, ErrNotOnStorage) {
		t.Errorf("/summary_dir without a task: %v", err)
	}
	nfs := withStorage(`{"storage":{"nfs":{"server":"10.0.0.5","path":"/export"},"jobDir":"mnist-x7k2p","dataDir":"data/alice"}}`)
	f, err := StorageFor(nfs, "/model_dir", "")
	if err != nil || f.Mount.NFS == nil || f.Mount.NFS.Server != "10.0.0.5" || f.Rel != "mnist-x7k2p/model_dir" || f.Location != "nfs:10.0.0.5:/export/mnist-x7k2p/model_dir" {
		t.Errorf("nfs: %+v %v", f, err)
	}
	// Annotations that disagree are an error, not "no storage".
	broken := tfJob(`{"storage":{"claim":"team-data","jobDir":"mnist-x7k2p","dataDir":"data/alice"}}`)
	if _, err := StorageFor(broken, "/model_dir", ""); err == nil || errors.Is(err, storage.ErrNoStorage) || !strings.Contains(err.Error(), jobmodel.JobDirAnnotation) {
		t.Errorf("annotations that disagree: %v", err)
	}
}

func TestFetcherPod(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	pod := FetcherPod(FetcherSpec{
		Job: tfJob(""), Mount: Mount{Claim: "ckpt", MountPath: "/mnt/ckpt", SubPath: "run-3"},
		Image: "busybox:1.36", Deadline: time.Hour, Now: func() time.Time { return now },
	})
	if pod.GenerateName != "mnist-fetch-" || pod.Namespace != "team-a" {
		t.Errorf("name %q in %q", pod.GenerateName, pod.Namespace)
	}
	if pod.Labels[jobmodel.NameLabel] != "mnist" || pod.Labels[jobmodel.RoleLabel] != jobmodel.RoleFetcher || pod.Labels[jobmodel.ManagedByLabel] != jobmodel.ManagedByValue {
		t.Errorf("labels %v", pod.Labels)
	}
	if pod.Annotations[jobmodel.ExpiresAnnotation] != "2025-03-01T13:00:00Z" || *pod.Spec.ActiveDeadlineSeconds != 3600 {
		t.Errorf("expiry %v, deadline %d", pod.Annotations, *pod.Spec.ActiveDeadlineSeconds)
	}
	owner := pod.OwnerReferences
	if len(owner) != 1 || owner[0].APIVersion != "kubeflow.org/v1" || owner[0].Kind != "TFJob" || owner[0].Name != "mnist" || owner[0].UID != "uid-mnist" {
		t.Errorf("owner %+v", owner)
	}
	c := pod.Spec.Containers[0]
	if c.Name != FetcherContainer || c.Image != "busybox:1.36" || c.WorkingDir != "/mnt/ckpt" || strings.Join(c.Command, " ") != "sleep 3600" {
		t.Errorf("container %+v", c)
	}
	vm := c.VolumeMounts[0]
	v := pod.Spec.Volumes[0]
	if vm.MountPath != "/mnt/ckpt" || vm.SubPath != "run-3" || !vm.ReadOnly || v.PersistentVolumeClaim.ClaimName != "ckpt" || !v.PersistentVolumeClaim.ReadOnly {
		t.Errorf("mount %+v, volume %+v", vm, v)
	}
	if pod.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restart policy %s", pod.Spec.RestartPolicy)
	}
}

// fakeKube is a clientset whose created pods get a name from their
// generateName and then the status that status returns.
func fakeKube(t *testing.T, status func() corev1.PodStatus) *kubefake.Clientset {
	kube := kubefake.NewClientset()
	kube.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pod := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		if pod.Name == "" {
			pod.Name = pod.GenerateName + "x7k2p"
		}
		return false, nil, nil
	})
	if status != nil {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			for ctx.Err() == nil {
				// The fake's watch does not replay from a resourceVersion: the
				// status changes once the watch is there.
				watching := false
				for _, a := range kube.Actions() {
					watching = watching || a.GetVerb() == "watch"
				}
				pods, err := kube.CoreV1().Pods("team-a").List(ctx, metav1.ListOptions{})
				if watching && err == nil && len(pods.Items) == 1 {
					time.Sleep(50 * time.Millisecond)
					p := pods.Items[0]
					p.Status = status()
					if _, err := kube.CoreV1().Pods("team-a").UpdateStatus(ctx, &p, metav1.UpdateOptions{}); err != nil {
						t.Errorf("update status: %v", err)
					}
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	return kube
}

func spec() FetcherSpec {
	return FetcherSpec{Job: tfJob(""), Mount: Mount{Claim: "data", MountPath: "/mnt/data"}, Image: "busybox:1.36", Deadline: time.Hour}
}

func TestStartFetcherWaitsForItToRun(t *testing.T) {
	kube := fakeKube(t, func() corev1.PodStatus { return corev1.PodStatus{Phase: corev1.PodRunning} })
	f, err := StartFetcher(context.Background(), kube, spec(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if f.Pod != "mnist-fetch-x7k2p" || f.Namespace != "team-a" {
		t.Errorf("fetcher %+v", f)
	}
	watched := false
	for _, a := range kube.Actions() {
		watched = watched || (a.GetVerb() == "watch" && a.GetResource().Resource == "pods")
	}
	if !watched {
		t.Error("the pod was not watched")
	}
	if err := f.Delete(context.Background()); err != nil {
		t.Fatal(err)
	}
	if pods, _ := kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{}); len(pods.Items) != 0 {
		t.Errorf("%d pods left", len(pods.Items))
	}
}

func TestStartFetcherReportsWhyItDoesNotRun(t *testing.T) {
	kube := fakeKube(t, func() corev1.PodStatus {
		return corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
			Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
			Message: `0/4 nodes are available: persistentvolumeclaim "data" not found.`,
		}}}
	})
	_, err := StartFetcher(context.Background(), kube, spec(), 500*time.Millisecond)
	want := `the fetcher pod mnist-fetch-x7k2p did not run within 500ms: Unschedulable: 0/4 nodes are available: persistentvolumeclaim "data" not found.`
	if exit.Code(err) != exit.Timeout || err.Error() != want {
		t.Errorf("err %v (code %d)\nwant %s", err, exit.Code(err), want)
	}
	if pods, _ := kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{}); len(pods.Items) != 0 {
		t.Errorf("the pod that did not run was left: %d pods", len(pods.Items))
	}
}

func TestStartFetcherDeletesThePodWhenCancelled(t *testing.T) {
	kube := fakeKube(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	_, err := StartFetcher(ctx, kube, spec(), time.Minute)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	if pods, _ := kube.CoreV1().Pods("team-a").List(context.Background(), metav1.ListOptions{}); len(pods.Items) != 0 {
		t.Errorf("%d pods left after Ctrl-C", len(pods.Items))
	}
}

func TestTheFetcherRunsWhereTheJobsPodsCould(t *testing.T) {
	obj := tfJob(`{"nodeSelector":{"pool":"gpu"},"tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]}`)
	placement, err := PlacementOf(obj)
	if err != nil {
		t.Fatal(err)
	}
	pod := FetcherPod(FetcherSpec{Job: obj, Mount: Mount{Claim: "ckpt", MountPath: "/mnt/ckpt"}, Placement: placement, Image: "busybox", Deadline: time.Hour})
	if pod.Spec.NodeSelector["pool"] != "gpu" || len(pod.Spec.Tolerations) != 1 || pod.Spec.Tolerations[0].Key != "nvidia.com/gpu" ||
		pod.Spec.Tolerations[0].Effect != corev1.TaintEffectNoSchedule {
		t.Errorf("node selector %v, tolerations %+v", pod.Spec.NodeSelector, pod.Spec.Tolerations)
	}
	if p, err := PlacementOf(tfJob("")); err != nil || p.NodeSelector != nil || p.Tolerations != nil {
		t.Errorf("a job without a request: %+v, %v", p, err)
	}
}

// TestFetcherPodIsRestricted: the fetcher passes Pod Security "restricted"
// (its checks as of Kubernetes 1.30: non-root with a numeric user, no
// privilege escalation, every capability dropped, the runtime's seccomp
// profile, only a claim as volume), and its root file system is read-only.
func TestFetcherPodIsRestricted(t *testing.T) {
	pod := FetcherPod(spec())
	ps := pod.Spec.SecurityContext
	if ps == nil || ps.RunAsNonRoot == nil || !*ps.RunAsNonRoot || ps.RunAsUser == nil || *ps.RunAsUser == 0 ||
		ps.SeccompProfile == nil || ps.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Fatalf("pod securityContext %+v", ps)
	}
	if pod.Spec.HostNetwork || pod.Spec.HostPID || pod.Spec.HostIPC {
		t.Error("host namespaces")
	}
	for _, v := range pod.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			t.Errorf("volume %s is not a claim", v.Name)
		}
	}
	for _, c := range pod.Spec.Containers {
		sc := c.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.Privileged != nil && *sc.Privileged ||
			sc.Capabilities == nil || len(sc.Capabilities.Add) != 0 || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" ||
			sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != FetcherUser ||
			sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault ||
			sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("container %s securityContext %+v", c.Name, sc)
		}
		for _, p := range c.Ports {
			if p.HostPort != 0 {
				t.Errorf("host port %d", p.HostPort)
			}
		}
	}
}

// TestDeepestMount: the longest mount path holding the path wins; "/"
// holds everything; a path under none is -1.
func TestDeepestMount(t *testing.T) {
	dirs := []storageDir{{mountPath: "/data"}, {mountPath: "/data/ckpt"}, {mountPath: "/mnt"}}
	for _, tt := range []struct {
		dirs []storageDir
		p    string
		best int
		rel  string
	}{
		{dirs, "/data/ckpt/run-3", 1, "run-3"},
		{dirs, "/data/ckpts", 0, "ckpts"},
		{dirs, "/mnt", 2, "."},
		{dirs, "/srv/x", -1, ""},
		{append(dirs, storageDir{mountPath: "/"}), "/srv/x", 3, "srv/x"},
	} {
		if best, rel := deepestMount(tt.dirs, tt.p); best != tt.best || rel != tt.rel {
			t.Errorf("%s: %d %q, want %d %q", tt.p, best, rel, tt.best, tt.rel)
		}
	}
}
