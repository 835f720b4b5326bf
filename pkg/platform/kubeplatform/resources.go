package kubeplatform

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// activePods selects the pods that hold resources: not yet ended.
const activePods = "status.phase!=Succeeded,status.phase!=Failed"

// Resources is each node's allocatable GPUs, CPU and memory, what the pods
// on it request and the jobs they belong to: one LIST of nodes and one LIST
// of the pods that have not ended, across namespaces (both need
// cluster-wide read rights). The pods not yet on a node and asking for GPUs
// make the waiting jobs. When the cluster serves the metrics API, one more
// LIST reads each node's usage; without it (or without the right to read
// it) the usage is left out.
func (p *Platform) Resources(ctx context.Context, opts platform.ResourceRequest) (*platform.Resources, error) {
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
	t := newTally(nodes.Items, p.gpuResources())
	for i := range pods.Items {
		t.addPod(&pods.Items[i])
	}
	res := t.resources(p.nodeUsage(ctx))
	res.Quotas = p.quotas(ctx)
	return res, nil
}

// tally counts what the pods on each node request, and the pods that wait
// for a node.
type tally struct {
	gpus []corev1.ResourceName
	rows map[string]*platform.ResourceRow
	// jobs are the jobs with pods on each node, as a set.
	jobs    map[string]map[string]bool
	waiting map[string]*platform.WaitingJob
}

// newTally has a row for each node, with its allocatable resources.
func newTally(nodes []corev1.Node, gpus []corev1.ResourceName) *tally {
	t := &tally{gpus: gpus, rows: map[string]*platform.ResourceRow{}, jobs: map[string]map[string]bool{}, waiting: map[string]*platform.WaitingJob{}}
	for _, n := range nodes {
		alloc := n.Status.Allocatable
		row := &platform.ResourceRow{
			Name:    n.Name,
			GPUType: n.Labels["nvidia.com/gpu.product"],
			CPU:     platform.Amount{Capacity: quantity(alloc, corev1.ResourceCPU)},
			Memory:  platform.Amount{Capacity: quantity(alloc, corev1.ResourceMemory)},
		}
		for _, g := range gpus {
			if c := quantity(alloc, g); c > 0 || len(gpus) == 1 {
				row.GPUs.Capacity += c
				addGPUs(row, gpus, g, platform.Amount{Capacity: c})
			}
		}
		t.rows[n.Name] = row
		t.jobs[n.Name] = map[string]bool{}
	}
	return t
}

// addPod counts what pod requests on its node, or as waiting when it is on
// none; a pod on a node not listed is left out.
func (t *tally) addPod(pod *corev1.Pod) {
	req := podRequests(pod)
	if pod.Spec.NodeName == "" {
		addWaiting(t.waiting, pod, req, t.gpus)
		return
	}
	row, ok := t.rows[pod.Spec.NodeName]
	if !ok {
		return
	}
	for _, g := range t.gpus {
		if a := quantity(req, g); a > 0 {
			row.GPUs.Allocated += a
			addGPUs(row, t.gpus, g, platform.Amount{Allocated: a})
		}
	}
	row.CPU.Allocated += quantity(req, corev1.ResourceCPU)
	row.Memory.Allocated += quantity(req, corev1.ResourceMemory)
	row.Pods++
	if job := jobOfPod(pod); job != "" {
		t.jobs[pod.Spec.NodeName][job] = true
	}
}

// resources are the rows by name with their total, the largest free block
// of GPUs and the waiting jobs, largest ask first.
func (t *tally) resources(usage map[string]platform.Usage) *platform.Resources {
	res := &platform.Resources{What: "NODE", Total: platform.ResourceRow{Name: "total"}}
	for name, row := range t.rows {
		row.Jobs = slices.Sorted(maps.Keys(t.jobs[name]))
		if u, ok := usage[name]; ok {
			row.Usage = &u
		}
		res.Rows = append(res.Rows, *row)
		t.addToTotal(&res.Total, row)
	}
	sort.Slice(res.Rows, func(i, j int) bool { return res.Rows[i].Name < res.Rows[j].Name })
	for _, row := range res.Rows {
		if row.GPUs.Capacity > 0 && (res.LargestFree == nil || row.GPUs.Free() > res.LargestFree.GPUs) {
			res.LargestFree = &platform.FreeBlock{Name: row.Name, GPUs: row.GPUs.Free()}
		}
	}
	for _, w := range t.waiting {
		res.Waiting = append(res.Waiting, *w)
	}
	sort.Slice(res.Waiting, func(i, j int) bool {
		a, b := res.Waiting[i], res.Waiting[j]
		if a.GPUsPerPod != b.GPUsPerPod {
			return a.GPUsPerPod > b.GPUsPerPod
		}
		return a.Job < b.Job
	})
	return res
}

// addToTotal adds a node's row to the total.
func (t *tally) addToTotal(total, row *platform.ResourceRow) {
	total.GPUs.Add(row.GPUs)
	total.CPU.Add(row.CPU)
	total.Memory.Add(row.Memory)
	total.Pods += row.Pods
	for g, a := range row.GPUResources {
		addGPUs(total, t.gpus, corev1.ResourceName(g), a)
	}
	if row.Usage != nil {
		if total.Usage == nil {
			total.Usage = &platform.Usage{}
		}
		total.Usage.CPU += row.Usage.CPU
		total.Usage.Memory += row.Usage.Memory
	}
}

// gpuResources are the resources counted as GPUs: the configured ones, else
// nvidia.com/gpu.
func (p *Platform) gpuResources() []corev1.ResourceName {
	names := p.GPUResources
	if len(names) == 0 {
		names = []string{"nvidia.com/gpu"}
	}
	out := make([]corev1.ResourceName, len(names))
	for i, n := range names {
		out[i] = corev1.ResourceName(n)
	}
	return out
}

// addGPUs adds a to row's amount of resource g, kept by resource only when
// more than one resource is counted as GPUs.
func addGPUs(row *platform.ResourceRow, gpus []corev1.ResourceName, g corev1.ResourceName, a platform.Amount) {
	if len(gpus) < 2 {
		return
	}
	if row.GPUResources == nil {
		row.GPUResources = map[string]platform.Amount{}
	}
	cur := row.GPUResources[string(g)]
	cur.Add(a)
	row.GPUResources[string(g)] = cur
}

// addWaiting counts a pod not yet on a node under its job, when it asks for
// GPUs: what keeps a gang from starting is a replica larger than any free
// block.
func addWaiting(waiting map[string]*platform.WaitingJob, pod *corev1.Pod, req corev1.ResourceList, gpus []corev1.ResourceName) {
	var n float64
	for _, g := range gpus {
		n += quantity(req, g)
	}
	if n == 0 {
		return
	}
	job := jobOfPod(pod)
	if job == "" {
		job = pod.Namespace + "/pod/" + pod.Name
	}
	w := waiting[job]
	if w == nil {
		w = &platform.WaitingJob{Job: job}
		waiting[job] = w
	}
	w.Pods++
	w.GPUsPerPod = max(w.GPUsPerPod, n)
}

// jobOfPod is NAMESPACE/KIND/NAME of the job a pod belongs to, or
// NAMESPACE/NAME when its kind is not known; "" for a pod of no job.
func jobOfPod(pod *corev1.Pod) string {
	kind, name := jobmodel.JobOfLabels(pod.Labels)
	switch {
	case name == "":
		return ""
	case kind == "":
		return pod.Namespace + "/" + name
	}
	return pod.Namespace + "/" + kind + "/" + name
}

// NodeMetrics are the metrics API's node usage (metrics-server).
var NodeMetrics = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "nodes"}

// nodeUsage is each node's CPU and memory in use by the metrics API; empty
// when the cluster serves no metrics API or the user may not read it (the
// columns then show "-", never an error).
func (p *Platform) nodeUsage(ctx context.Context) map[string]platform.Usage {
	if p.Dynamic == nil {
		return nil
	}
	dyn, err := p.Dynamic()
	if err != nil {
		return nil
	}
	list, err := dyn.Resource(NodeMetrics).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	out := map[string]platform.Usage{}
	for _, item := range list.Items {
		usage, _, _ := unstructured.NestedStringMap(item.Object, "usage")
		cpu, cerr := resource.ParseQuantity(usage["cpu"])
		mem, merr := resource.ParseQuantity(usage["memory"])
		if cerr != nil || merr != nil {
			continue
		}
		out[item.GetName()] = platform.Usage{CPU: cpu.AsApproximateFloat64(), Memory: mem.AsApproximateFloat64()}
	}
	return out
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
