package kubernetes

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// activePods selects the pods that hold resources: not yet ended.
const activePods = "status.phase!=Succeeded,status.phase!=Failed"

// Resources is each node's allocatable GPUs, CPU and memory and what the
// pods on it request: one LIST of nodes and one LIST of the pods that have
// not ended, across namespaces (both need cluster-wide read rights).
func (p *Platform) Resources(ctx context.Context, opts platform.ResourceOptions) (*platform.Resources, error) {
	kc, err := p.Kube()
	if err != nil {
		return nil, err
	}
	nodes, err := kc.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: opts.Selector})
	if err != nil {
		return nil, refused(err, "nodes")
	}
	pods, err := kc.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: activePods})
	if err != nil {
		return nil, refused(err, "pods in every namespace")
	}
	gpu := corev1.ResourceName(p.GPUResource)
	rows := map[string]*platform.ResourceRow{}
	res := &platform.Resources{What: "NODE", Total: platform.ResourceRow{Name: "total"}}
	for _, n := range nodes.Items {
		alloc := n.Status.Allocatable
		row := &platform.ResourceRow{
			Name:    n.Name,
			GPUType: n.Labels["nvidia.com/gpu.product"],
			GPUs:    platform.Amount{Capacity: quantity(alloc, gpu)},
			CPU:     platform.Amount{Capacity: quantity(alloc, corev1.ResourceCPU)},
			Memory:  platform.Amount{Capacity: quantity(alloc, corev1.ResourceMemory)},
		}
		rows[n.Name] = row
	}
	for i := range pods.Items {
		pod := &pods.Items[i]
		row, ok := rows[pod.Spec.NodeName]
		if !ok {
			continue
		}
		req := podRequests(pod)
		row.GPUs.Allocated += quantity(req, gpu)
		row.CPU.Allocated += quantity(req, corev1.ResourceCPU)
		row.Memory.Allocated += quantity(req, corev1.ResourceMemory)
		row.Pods++
	}
	for _, row := range rows {
		res.Rows = append(res.Rows, *row)
		res.Total.GPUs.Add(row.GPUs)
		res.Total.CPU.Add(row.CPU)
		res.Total.Memory.Add(row.Memory)
		res.Total.Pods += row.Pods
	}
	sort.Slice(res.Rows, func(i, j int) bool { return res.Rows[i].Name < res.Rows[j].Name })
	return res, nil
}

// quantity is the amount of r in list: GPUs and CPU cores as numbers,
// memory in bytes.
func quantity(list corev1.ResourceList, r corev1.ResourceName) float64 {
	q, ok := list[r]
	if !ok {
		return 0
	}
	return q.AsApproximateFloat64()
}

// podRequests is what a pod asks for, as the scheduler counts it: the sum
// of its containers, or its largest init container when larger, plus its
// overhead.
func podRequests(pod *corev1.Pod) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, c := range pod.Spec.Containers {
		addList(out, requestsOf(c))
	}
	for _, c := range pod.Spec.InitContainers {
		for name, q := range requestsOf(c) {
			if cur, ok := out[name]; !ok || q.Cmp(cur) > 0 {
				out[name] = q.DeepCopy()
			}
		}
	}
	addList(out, pod.Spec.Overhead)
	return out
}

// requestsOf is a container's requests, its limits standing in for
// requests it does not give (as the API server defaults them).
func requestsOf(c corev1.Container) corev1.ResourceList {
	out := corev1.ResourceList{}
	for name, q := range c.Resources.Limits {
		out[name] = q.DeepCopy()
	}
	for name, q := range c.Resources.Requests {
		out[name] = q.DeepCopy()
	}
	return out
}

func addList(into, add corev1.ResourceList) {
	for name, q := range add {
		cur, ok := into[name]
		if !ok {
			cur = resource.Quantity{}
		}
		cur.Add(q)
		into[name] = cur
	}
}

// refused is a LIST top node may not make: one line saying what the user
// may not read, and that a cluster-wide read is what top node needs.
func refused(err error, what string) error {
	if kube.Refused(err) {
		return exit.WithHint(fmt.Errorf("cannot list %s: forbidden", what),
			"top node reads every node and every pod that runs on them: ask your cluster admin for cluster-wide read access to nodes and pods")
	}
	return fmt.Errorf("listing %s: %w", what, err)
}
