package kubeplatform

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/platform"
)

const gib = 1 << 30

func node(name string, labels map[string]string, gpus, cpu, memory string) *corev1.Node {
	alloc := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
	}
	if gpus != "" {
		alloc["nvidia.com/gpu"] = resource.MustParse(gpus)
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status:     corev1.NodeStatus{Allocatable: alloc, Capacity: alloc},
	}
}

// resources is a ResourceList of name=quantity pairs.
func resources(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func pod(ns, name, nodeName string, containers ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       corev1.PodSpec{NodeName: nodeName, Containers: containers},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

// labelled is pod with labels of key, value pairs.
func labelled(p *corev1.Pod, pairs ...string) *corev1.Pod {
	p.Labels = map[string]string{}
	for i := 0; i < len(pairs); i += 2 {
		p.Labels[pairs[i]] = pairs[i+1]
	}
	return p
}

func container(requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: "c", Image: "i", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func platformOn(kc kubernetes.Interface) *Platform {
	return &Platform{
		Kube:         func() (kubernetes.Interface, error) { return kc, nil },
		GPUResources: []string{"nvidia.com/gpu"},
	}
}

func TestResources(t *testing.T) {
	gpuLabels := map[string]string{"nvidia.com/gpu.product": "A100-SXM4-80GB", "pool": "gpu"}
	withInit := pod("team-b", "init", "gpu-b", container(resources("cpu", "1", "memory", "1Gi"), nil))
	withInit.Spec.InitContainers = []corev1.Container{
		// Larger than the containers' CPU: counted instead of it.
		container(resources("cpu", "3"), nil),
		// Smaller than their memory: not counted.
		container(resources("memory", "512Mi"), nil),
	}
	withOverhead := pod("team-b", "overhead", "gpu-b", container(resources("cpu", "500m"), nil))
	withOverhead.Spec.Overhead = resources("cpu", "250m", "memory", "128Mi")
	kc := kubefake.NewClientset(
		node("gpu-a", gpuLabels, "8", "64", "512Gi"),
		node("gpu-b", gpuLabels, "8", "64", "512Gi"),
		node("cpu-a", map[string]string{"pool": "cpu"}, "", "32", "128Gi"),
		// Two containers with requests; both pods of one job easyai submitted.
		labelled(pod("team-a", "train-0", "gpu-a",
			container(resources("nvidia.com/gpu", "4", "cpu", "8", "memory", "64Gi"), resources("nvidia.com/gpu", "4", "cpu", "16", "memory", "64Gi")),
			container(resources("cpu", "500m", "memory", "1Gi"), nil)), "easyai.io/job-name", "mnist", "easyai.io/kind", "tf"),
		// Limits only: the API server makes them the requests.
		labelled(pod("team-a", "train-1", "gpu-a", container(nil, resources("nvidia.com/gpu", "2", "cpu", "4", "memory", "32Gi"))),
			"easyai.io/job-name", "mnist", "easyai.io/kind", "tf"),
		// A job of the training-operator's that easyai did not submit.
		labelled(pod("team-b", "other-0", "gpu-b", container(resources("cpu", "100m"), nil)), "training.kubeflow.org/job-name", "other"),
		withInit,
		withOverhead,
		// No requests at all: counted as a pod only.
		pod("team-c", "idle", "cpu-a", container(nil, nil)),
		// Not scheduled yet, and on a node that is not listed; only those
		// asking for GPUs wait for them.
		pod("team-c", "pending", "", container(resources("cpu", "1"), nil)),
		labelled(pod("team-c", "big-0", "", container(resources("nvidia.com/gpu", "8"), nil)), "volcano.sh/job-name", "big"),
		labelled(pod("team-c", "big-1", "", container(resources("nvidia.com/gpu", "8"), nil)), "volcano.sh/job-name", "big"),
		labelled(pod("team-c", "small-0", "", container(resources("nvidia.com/gpu", "1"), nil)), "easyai.io/job-name", "small"),
		pod("team-c", "elsewhere", "gone", container(resources("cpu", "1"), nil)),
	)
	res, err := platformOn(kc).Resources(context.Background(), platform.ResourceRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := []platform.ResourceRow{
		{Name: "cpu-a", CPU: platform.Amount{Capacity: 32}, Memory: platform.Amount{Capacity: 128 * gib}, Pods: 1},
		{Name: "gpu-a", GPUType: "A100-SXM4-80GB", Pods: 2,
			GPUs:   platform.Amount{Capacity: 8, Allocated: 6},
			CPU:    platform.Amount{Capacity: 64, Allocated: 12.5},
			Memory: platform.Amount{Capacity: 512 * gib, Allocated: 97 * gib},
			Jobs:   []string{"team-a/tf/mnist"}},
		{Name: "gpu-b", GPUType: "A100-SXM4-80GB", Pods: 3,
			Jobs:   []string{"team-b/other"},
			CPU:    platform.Amount{Capacity: 64, Allocated: 3 + 0.5 + 0.25 + 0.1},
			Memory: platform.Amount{Capacity: 512 * gib, Allocated: 1*gib + 128<<20},
			GPUs:   platform.Amount{Capacity: 8}},
	}
	if res.What != "NODE" || len(res.Rows) != len(want) {
		t.Fatalf("resources %+v", res)
	}
	for i := range want {
		if !reflect.DeepEqual(res.Rows[i], want[i]) {
			t.Errorf("row %d: %+v\nwant %+v", i, res.Rows[i], want[i])
		}
	}
	total := platform.ResourceRow{Name: "total", Pods: 6,
		GPUs:   platform.Amount{Capacity: 16, Allocated: 6},
		CPU:    platform.Amount{Capacity: 160, Allocated: 16.35},
		Memory: platform.Amount{Capacity: 1152 * gib, Allocated: 98*gib + 128<<20}}
	if !reflect.DeepEqual(res.Total, total) {
		t.Errorf("total %+v\nwant %+v", res.Total, total)
	}
	// The largest block is on gpu-b, 8 GPUs: the job asking 8 per pod
	// could start there one pod at a time, which is what a gang cannot.
	if res.LargestFree == nil || *res.LargestFree != (platform.FreeBlock{Name: "gpu-b", GPUs: 8}) {
		t.Errorf("largest free block %+v", res.LargestFree)
	}
	wantWaiting := []platform.WaitingJob{{Job: "team-c/big", Pods: 2, GPUsPerPod: 8}, {Job: "team-c/small", Pods: 1, GPUsPerPod: 1}}
	if !reflect.DeepEqual(res.Waiting, wantWaiting) {
		t.Errorf("waiting %+v\nwant %+v", res.Waiting, wantWaiting)
	}
	// One LIST of nodes and one of the pods that hold resources, across
	// namespaces.
	var lists []string
	for _, a := range kc.Actions() {
		l, ok := a.(clienttesting.ListAction)
		if !ok {
			t.Errorf("unexpected request %s %s", a.GetVerb(), a.GetResource().Resource)
			continue
		}
		lists = append(lists, l.GetResource().Resource+" in "+l.GetNamespace()+" fields "+l.GetListRestrictions().Fields.String())
	}
	if got := strings.Join(lists, "; "); got != "nodes in  fields ; pods in  fields status.phase!=Failed,status.phase!=Succeeded" {
		t.Errorf("requests: %s", got)
	}
}

func TestResourcesOfSelectedNodes(t *testing.T) {
	kc := kubefake.NewClientset(
		node("gpu-a", map[string]string{"pool": "gpu"}, "8", "64", "512Gi"),
		node("cpu-a", map[string]string{"pool": "cpu"}, "", "32", "128Gi"),
		pod("team-a", "train-0", "gpu-a", container(resources("nvidia.com/gpu", "1", "cpu", "2"), nil)),
		// On a node the selector leaves out: ignored.
		pod("team-a", "prep-0", "cpu-a", container(resources("cpu", "30"), nil)),
	)
	res, err := platformOn(kc).Resources(context.Background(), platform.ResourceRequest{Selector: "pool=gpu"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Rows[0].Name != "gpu-a" || res.Rows[0].Pods != 1 || res.Rows[0].CPU.Allocated != 2 {
		t.Fatalf("rows %+v", res.Rows)
	}
	if res.Total.CPU != (platform.Amount{Capacity: 64, Allocated: 2}) || res.Total.Pods != 1 || res.Total.GPUs != (platform.Amount{Capacity: 8, Allocated: 1}) {
		t.Errorf("total %+v", res.Total)
	}
	if got := kc.Actions()[0].(clienttesting.ListAction).GetListRestrictions().Labels.String(); got != "pool=gpu" {
		t.Errorf("the nodes' LIST selected %q", got)
	}
}

func TestResourcesOfNoNodes(t *testing.T) {
	res, err := platformOn(kubefake.NewClientset()).Resources(context.Background(), platform.ResourceRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 || !reflect.DeepEqual(res.Total, platform.ResourceRow{Name: "total"}) || res.LargestFree != nil || res.Waiting != nil {
		t.Errorf("resources %+v", res)
	}
}

// TestResourcesRefused: a user whose rights end at a namespace gets one
// line saying what is missing, exit 1 and a hint.
func TestResourcesRefused(t *testing.T) {
	for _, tt := range []struct {
		resource, err string
	}{
		{"nodes", "cannot list nodes: forbidden"},
		{"pods", "cannot list pods in every namespace: forbidden"},
	} {
		kc := kubefake.NewClientset(node("gpu-a", nil, "8", "64", "512Gi"))
		kc.PrependReactor("list", tt.resource, func(clienttesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: tt.resource}, "",
				errors.New(`User "carol" cannot list resource "`+tt.resource+`" in API group "" at the cluster scope`))
		})
		_, err := platformOn(kc).Resources(context.Background(), platform.ResourceRequest{})
		if err == nil || err.Error() != tt.err || exit.Code(err) != exit.Error || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s refused: %v (exit %d), want exit 1 and %q", tt.resource, err, exit.Code(err), tt.err)
		}
		if hint := exit.Hint(err); !strings.Contains(hint, "cluster-wide read access to nodes and pods") {
			t.Errorf("%s refused: hint %q", tt.resource, hint)
		}
	}

	// Any other failure says what was being listed.
	kc := kubefake.NewClientset()
	kc.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("the API server is restarting")
	})
	_, err := platformOn(kc).Resources(context.Background(), platform.ResourceRequest{})
	if err == nil || !strings.HasPrefix(err.Error(), "listing nodes: ") || !strings.Contains(err.Error(), "restarting") {
		t.Errorf("an unavailable API server: %v", err)
	}
}

// TestResourcesUsageAndGPUResources: the metrics API's usage per node and
// in the total; several resources counted as GPUs, kept by resource.
func TestResourcesUsageAndGPUResources(t *testing.T) {
	mig := node("mig-a", nil, "", "16", "64Gi")
	mig.Status.Allocatable["nvidia.com/mig-1g.10gb"] = resource.MustParse("7")
	kc := kubefake.NewClientset(
		node("gpu-a", nil, "8", "64", "512Gi"), mig,
		pod("team-a", "a", "gpu-a", container(resources("nvidia.com/gpu", "2"), nil)),
		pod("team-a", "b", "mig-a", container(resources("nvidia.com/mig-1g.10gb", "3"), nil)),
	)
	metrics := func(name, cpu, memory string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "metrics.k8s.io/v1beta1", "kind": "NodeMetrics",
			"metadata": map[string]any{"name": name},
			"usage":    map[string]any{"cpu": cpu, "memory": memory},
		}}
	}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{NodeMetrics: "NodeMetricsList"})
	for _, m := range []*unstructured.Unstructured{metrics("gpu-a", "1500m", "2Gi"), metrics("mig-a", "250m", "1Gi")} {
		// The resource is "nodes", which the fake would not guess from the kind.
		if err := dyn.Tracker().Create(NodeMetrics, m, ""); err != nil {
			t.Fatal(err)
		}
	}
	p := platformOn(kc)
	p.GPUResources = []string{"nvidia.com/gpu", "nvidia.com/mig-1g.10gb"}
	p.Dynamic = func() (dynamic.Interface, error) { return dyn, nil }
	res, err := p.Resources(context.Background(), platform.ResourceRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 2 {
		t.Fatalf("rows %+v", res.Rows)
	}
	gpu, migRow := res.Rows[0], res.Rows[1]
	if gpu.GPUs != (platform.Amount{Capacity: 8, Allocated: 2}) || migRow.GPUs != (platform.Amount{Capacity: 7, Allocated: 3}) {
		t.Errorf("GPUs %+v and %+v", gpu.GPUs, migRow.GPUs)
	}
	wantMig := map[string]platform.Amount{"nvidia.com/mig-1g.10gb": {Capacity: 7, Allocated: 3}}
	if !reflect.DeepEqual(migRow.GPUResources, wantMig) {
		t.Errorf("mig-a by resource %+v", migRow.GPUResources)
	}
	wantTotal := map[string]platform.Amount{"nvidia.com/gpu": {Capacity: 8, Allocated: 2}, "nvidia.com/mig-1g.10gb": {Capacity: 7, Allocated: 3}}
	if !reflect.DeepEqual(res.Total.GPUResources, wantTotal) || res.Total.GPUs != (platform.Amount{Capacity: 15, Allocated: 5}) {
		t.Errorf("total %+v", res.Total)
	}
	if gpu.Usage == nil || *gpu.Usage != (platform.Usage{CPU: 1.5, Memory: 2 * gib}) || res.Total.Usage == nil || res.Total.Usage.CPU != 1.75 {
		t.Errorf("usage %+v, total %+v", gpu.Usage, res.Total.Usage)
	}

	// Without the metrics API: no usage, and no error.
	broken := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{NodeMetrics: "NodeMetricsList"})
	broken.PrependReactor("list", "nodes", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Group: "metrics.k8s.io", Resource: "nodes"}, "")
	})
	p.Dynamic = func() (dynamic.Interface, error) { return broken, nil }
	res, err = p.Resources(context.Background(), platform.ResourceRequest{})
	if err != nil || res.Rows[0].Usage != nil || res.Total.Usage != nil {
		t.Errorf("without metrics: %v, usage %+v", err, res)
	}
}
