package logs

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

// pagedPods answers LISTs of pods in pages of the limit asked for, as the
// API server does (the fake clientset ignores limit and continue), and
// records each request's limit and continue token. expire makes the LIST
// with that continue token fail with 410 Gone.
func pagedPods(t *testing.T, pods []*corev1.Pod, expire string) (*kubefake.Clientset, *[]string) {
	t.Helper()
	kube := kubefake.NewClientset()
	var asked []string
	kube.PrependReactor("list", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		r := a.(clienttesting.ListActionImpl).GetListOptions()
		asked = append(asked, fmt.Sprintf("limit=%d continue=%s selector=%s", r.Limit, r.Continue, r.LabelSelector))
		if r.Continue != "" && r.Continue == expire {
			return true, nil, apierrors.NewResourceExpired("the continue token is too old")
		}
		from := 0
		if r.Continue != "" {
			from, _ = strconv.Atoi(r.Continue)
		}
		to := len(pods)
		if r.Limit > 0 && from+int(r.Limit) < to {
			to = from + int(r.Limit)
		}
		list := &corev1.PodList{}
		list.ResourceVersion = "42"
		for _, p := range pods[from:to] {
			list.Items = append(list.Items, *p.DeepCopy())
		}
		if to < len(pods) {
			list.Continue = strconv.Itoa(to)
		}
		return true, list, nil
	})
	return kube, &asked
}

// bigPod is a worker's pod as the training-operator makes it: TF_CONFIG
// and the rest logs never reads included.
func bigPod(i int) *corev1.Pod {
	p := tfPod("worker", i, corev1.PodRunning)
	p.Spec.NodeName = "node-1"
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "training-operator"}}
	p.Spec.Volumes = []corev1.Volume{{Name: "data"}}
	p.Spec.InitContainers = []corev1.Container{{Name: "init", Env: []corev1.EnvVar{{Name: "A", Value: "b"}}}}
	p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "TF_CONFIG", Value: `{"cluster":{"worker":["..."]}}`}}
	p.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{Prefix: "X_"}}
	p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "train", RestartCount: 2}}
	return p
}

func TestListPodsReadsPageByPageAndKeepsWhatLogsReads(t *testing.T) {
	var pods []*corev1.Pod
	for i := range 2*podPage + 1 {
		pods = append(pods, bigPod(i))
	}
	kube, asked := pagedPods(t, pods, "")
	list, err := listPods(context.Background(), kube, "team-a", tfjob.New().PodSelector("mnist"))
	if err != nil {
		t.Fatal(err)
	}
	sel := " selector=" + tfjob.New().PodSelector("mnist")
	want := []string{"limit=100 continue=" + sel, "limit=100 continue=100" + sel, "limit=100 continue=200" + sel}
	if fmt.Sprint(*asked) != fmt.Sprint(want) {
		t.Errorf("requests: got %v, want %v", *asked, want)
	}
	if len(list.Items) != len(pods) || list.ResourceVersion != "42" {
		t.Fatalf("got %d pods at resourceVersion %q, want %d at 42", len(list.Items), list.ResourceVersion, len(pods))
	}
	for i, p := range list.Items {
		if p.Name != pods[i].Name || p.UID != pods[i].UID || p.Spec.NodeName != "node-1" || p.Status.Phase != corev1.PodRunning {
			t.Fatalf("pod %d: got %s (uid %s, node %q, %s), want %s as listed", i, p.Name, p.UID, p.Spec.NodeName, p.Status.Phase, pods[i].Name)
		}
		if p.Labels["training.kubeflow.org/replica-type"] == "" || len(p.Status.ContainerStatuses) != 1 || p.Status.ContainerStatuses[0].RestartCount != 2 {
			t.Fatalf("pod %d lost its labels or its container statuses: %+v", i, p)
		}
		if len(p.Spec.Containers) != 1 || p.Spec.Containers[0].Name != "train" || len(p.Spec.InitContainers) != 1 || p.Spec.InitContainers[0].Name != "init" {
			t.Fatalf("pod %d lost its containers: %+v", i, p.Spec)
		}
		c := p.Spec.Containers[0]
		if c.Env != nil || c.EnvFrom != nil || c.VolumeMounts != nil || p.Spec.InitContainers[0].Env != nil || p.Spec.Volumes != nil || p.ManagedFields != nil {
			t.Fatalf("pod %d keeps what logs never reads: %+v", i, p)
		}
	}
}

func TestListPodsStartsOverWhenItsContinueTokenExpired(t *testing.T) {
	var pods []*corev1.Pod
	for i := range podPage + 5 {
		pods = append(pods, bigPod(i))
	}
	kube, asked := pagedPods(t, pods, "100")
	list, err := listPods(context.Background(), kube, "team-a", tfjob.New().PodSelector("mnist"))
	if err != nil {
		t.Fatal(err)
	}
	sel := " selector=" + tfjob.New().PodSelector("mnist")
	want := []string{"limit=100 continue=" + sel, "limit=100 continue=100" + sel, "limit=0 continue=" + sel}
	if fmt.Sprint(*asked) != fmt.Sprint(want) {
		t.Errorf("requests: got %v, want %v", *asked, want)
	}
	if len(list.Items) != len(pods) {
		t.Errorf("got %d pods, want %d, each once", len(list.Items), len(pods))
	}
}

func TestListPodsFailsWithTheAPIServersError(t *testing.T) {
	kube := kubefake.NewClientset()
	kube.PrependReactor("list", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", fmt.Errorf("no"))
	})
	if _, err := listPods(context.Background(), kube, "team-a", tfjob.New().PodSelector("mnist")); !apierrors.IsForbidden(err) {
		t.Errorf("got %v, want the Forbidden error", err)
	}
}
