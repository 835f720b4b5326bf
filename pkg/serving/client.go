package serving

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Client reads and changes the servings of a cluster.
type Client struct {
	Kube kubernetes.Interface
	// Dynamic reads and writes KServe's InferenceServices (nil: servings
	// on Deployments only).
	Dynamic dynamic.Interface
	// GPUResources are the extended resources counted as GPUs (none:
	// nvidia.com/gpu).
	GPUResources []string
	Now          func() time.Time

	// noInferenceServices: the cluster answered that it serves none, or the
	// user may not list them; not asked again (--wait polls every second).
	noInferenceServices bool
}

func createOptions(dryRun bool) metav1.CreateOptions {
	opts := metav1.CreateOptions{FieldManager: "easyai"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return opts
}

// Create makes the serving's workload (its Deployment, or the
// InferenceService KServe makes one of), then its Service owned by it (so
// that deleting the workload deletes it). When the Service cannot be made
// the workload is deleted again: nothing is left half-made. dryRun has
// the API server check both without storing them.
func (c *Client) Create(ctx context.Context, objs *Objects, dryRun bool) (*Objects, error) {
	b := c.deployments()
	if objs.Workload.GetKind() == InferenceServiceKind {
		b = c.inferenceServices()
	}
	w, err := b.fromObject(objs.Workload)
	if err != nil {
		return nil, err
	}
	var svc corev1.Service
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs.Service.Object, &svc); err != nil {
		return nil, err
	}
	ns, name := objs.Workload.GetNamespace(), w.labels()[Label]
	exists := exit.UsageErrorf("serving %s already exists in namespace %s (easyai serve delete %s, or choose another name)", name, ns, name)
	if _, err := c.versions(ctx, ns, name); err == nil {
		return nil, exists
	} else if !exit.IsNotFound(err) {
		return nil, err
	}
	made, err := b.create(ctx, w, dryRun)
	switch {
	case apierrors.IsAlreadyExists(err):
		return nil, exists
	case err != nil:
		return nil, fmt.Errorf("creating the %s of serving %s: %w", b.kind(), name, err)
	}
	if !dryRun {
		svc.OwnerReferences = []metav1.OwnerReference{made.controllerRef()}
	}
	madeSvc, err := c.Kube.CoreV1().Services(ns).Create(ctx, &svc, createOptions(dryRun))
	if err != nil {
		if !dryRun {
			_ = b.delete(context.WithoutCancel(ctx), ns, made.name())
		}
		if apierrors.IsAlreadyExists(err) {
			return nil, exit.UsageErrorf("a Service %s already exists in namespace %s: the serving needs its name (nothing was created)", svc.Name, ns)
		}
		return nil, fmt.Errorf("creating the Service of serving %s (nothing was left created): %w", name, err)
	}
	out := &Objects{}
	if out.Workload, err = made.object(); err != nil {
		return nil, err
	}
	if out.Service, err = toObject(madeSvc, "v1", "Service"); err != nil {
		return nil, err
	}
	return out, nil
}

// withPending adds to ds, the Deployments of selector's servings, a
// stand-in for each InferenceService of those servings that KServe has not
// made a Deployment of yet: nameless, controlled by it, with its labels,
// annotations, replicas and containers, and no status. Without it a
// serving on KServe would be missing, or miss its canary, for the moments
// after create or update. A cluster without KServe, or a user who may not
// read InferenceServices, has none.
func (c *Client) withPending(ctx context.Context, namespace, selector string, ds []appsv1.Deployment) ([]appsv1.Deployment, error) {
	if c.Dynamic == nil || c.noInferenceServices {
		return ds, nil
	}
	list, err := c.Dynamic.Resource(InferenceServices).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if apierrors.IsNotFound(err) || apierrors.IsForbidden(err) {
		c.noInferenceServices = true
		return ds, nil
	}
	if err != nil {
		return nil, err
	}
	made := map[string]bool{}
	for i := range ds {
		if b, object := c.workloadOf(&ds[i]); b.kind() == InferenceServiceKind {
			made[ds[i].Namespace+"/"+object] = true
		}
	}
	for i := range list.Items {
		u := &list.Items[i]
		if made[u.GetNamespace()+"/"+u.GetName()] {
			continue
		}
		w := isvcWorkload{u}
		n := w.replicas()
		d := appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: u.GetNamespace(), Labels: u.GetLabels(), Annotations: u.GetAnnotations(),
			CreationTimestamp: u.GetCreationTimestamp(), OwnerReferences: []metav1.OwnerReference{w.controllerRef()}}}
		d.Spec.Replicas = &n
		raw, _, _ := unstructured.NestedSlice(u.Object, "spec", "predictor", "containers")
		for _, r := range raw {
			var ct corev1.Container
			if m, ok := r.(map[string]any); ok && runtime.DefaultUnstructuredConverter.FromUnstructured(m, &ct) == nil {
				d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, ct)
			}
		}
		ds = append(ds, d)
	}
	return ds, nil
}

func ptr[T any](v T) *T { return &v }

// Version is one version of a serving: a Deployment.
type Version struct {
	Name string `json:"name"`
	// Object is what easyai changes to change the version
	// (deployment/NAME-vN, or inferenceservice/NAME-vN on KServe);
	// Deployment is the Deployment that runs its pods.
	Object     string `json:"object"`
	Deployment string `json:"deployment"`
	Image      string `json:"image"`
	// Weight is the share of the traffic, in percent: the version's ready
	// replicas among every version's (a Service spreads over ready pods).
	Weight   int   `json:"weight"`
	Replicas int32 `json:"replicas"`
	Ready    int32 `json:"ready"`
}

// Summary is one serving as list shows it.
type Summary struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Framework string `json:"framework"`
	// Backend is what the serving is made of: deployment or kserve.
	Backend  string    `json:"backend"`
	Replicas int32     `json:"replicas"`
	Ready    int32     `json:"ready"`
	Versions []Version `json:"versions"`
	// ModelFrom is the job whose model is served; Model where it is.
	ModelFrom string    `json:"modelFrom,omitempty"`
	Model     string    `json:"model,omitempty"`
	GPUs      int64     `json:"gpus"`
	Port      int32     `json:"port"`
	User      string    `json:"user,omitempty"`
	Created   time.Time `json:"created"`
	// State is Available (every replica ready), Progressing or Failed
	// (the rollout passed its deadline); Reason says why it is not
	// Available, where the Deployment says.
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
}

// List lists the servings of namespace ("": every namespace).
func (c *Client) List(ctx context.Context, namespace string, selector labels.Selector) ([]Summary, error) {
	sel := Label
	if selector != nil && !selector.Empty() {
		sel += "," + selector.String()
	}
	list, err := c.Kube.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, err
	}
	ds, err := c.withPending(ctx, namespace, sel, list.Items)
	if err != nil {
		return nil, err
	}
	by := map[string][]*appsv1.Deployment{}
	var keys []string
	for i := range ds {
		d := &ds[i]
		key := d.Namespace + "/" + d.Labels[Label]
		if _, ok := by[key]; !ok {
			keys = append(keys, key)
		}
		by[key] = append(by[key], d)
	}
	sort.Strings(keys)
	out := make([]Summary, 0, len(keys))
	for _, k := range keys {
		out = append(out, c.summarize(by[k]))
	}
	return out, nil
}

// summarize is the summary of one serving's Deployments (its versions).
func (c *Client) summarize(ds []*appsv1.Deployment) Summary {
	sort.Slice(ds, func(i, j int) bool {
		return versionNumber(ds[i].Labels[VersionLabel]) < versionNumber(ds[j].Labels[VersionLabel])
	})
	first := ds[0]
	a := first.Annotations
	s := Summary{
		Name: first.Labels[Label], Namespace: first.Namespace, Framework: jobmodel.OneLine(a[FrameworkAnnotation]),
		ModelFrom: jobmodel.OneLine(a[ModelFromAnnotation]), Model: jobmodel.OneLine(a[ModelAnnotation]),
		User: jobmodel.OneLine(a[jobmodel.UserAnnotation]), Created: first.CreationTimestamp.Time, State: "Available",
	}
	if p, err := strconv.ParseInt(a[PortAnnotation], 10, 32); err == nil {
		s.Port = int32(p)
	}
	for _, d := range ds {
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		image := ""
		if cs := d.Spec.Template.Spec.Containers; len(cs) > 0 {
			image = cs[0].Image
			s.GPUs += int64(want) * c.gpus(cs[0].Resources.Limits)
		}
		s.Replicas += want
		s.Ready += d.Status.ReadyReplicas
		b, object := c.workloadOf(d)
		s.Backend = BackendDeployment
		if b.kind() == InferenceServiceKind {
			s.Backend = BackendKServe
		}
		s.Versions = append(s.Versions, Version{Name: jobmodel.OneLine(d.Labels[VersionLabel]), Object: strings.ToLower(b.kind()) + "/" + jobmodel.OneLine(object),
			Deployment: d.Name, Image: image, Replicas: want, Ready: d.Status.ReadyReplicas})
		state, reason := deploymentState(d, want)
		if d.Name == "" {
			state, reason = "Progressing", "KServe has not made the Deployment of InferenceService "+jobmodel.OneLine(object)+" yet (where it cannot, its controller's log says why)"
		}
		if state != "Available" && s.State != "Failed" {
			s.State, s.Reason = state, reason
		}
	}
	for i := range s.Versions {
		switch {
		case s.Ready > 0:
			s.Versions[i].Weight = int(s.Versions[i].Ready * 100 / s.Ready)
		case len(s.Versions) == 1:
			s.Versions[i].Weight = 100
		}
	}
	return s
}

// gpus counts the GPUs of limits.
func (c *Client) gpus(limits corev1.ResourceList) int64 {
	names := c.GPUResources
	if len(names) == 0 {
		names = []string{"nvidia.com/gpu"}
	}
	var n int64
	for _, r := range names {
		if q, ok := limits[corev1.ResourceName(r)]; ok {
			n += q.Value()
		}
	}
	return n
}

// deploymentState is a Deployment's state and why it is not Available.
func deploymentState(d *appsv1.Deployment, want int32) (state, reason string) {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse {
			return "Failed", jobmodel.OneLine(c.Reason + ": " + c.Message)
		}
	}
	if d.Status.ObservedGeneration >= d.Generation && d.Status.ReadyReplicas >= want && d.Status.UpdatedReplicas >= want {
		return "Available", ""
	}
	return "Progressing", fmt.Sprintf("%d of %d replicas ready", d.Status.ReadyReplicas, want)
}

// Pod is one pod of a serving.
type Pod struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Ready    bool   `json:"ready"`
	State    string `json:"state"`
	Restarts int32  `json:"restarts"`
	Node     string `json:"node,omitempty"`
	// Reason is why the pod does not run or is not ready (ImagePullBackOff
	// and its message, Unschedulable and the scheduler's).
	Reason string `json:"reason,omitempty"`
}

// Condition is a condition of a version's Deployment.
type Condition struct {
	Version string `json:"version"`
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Event is a recent warning of the serving's pods.
type Event struct {
	Object  string    `json:"object"`
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
	Count   int32     `json:"count"`
	Last    time.Time `json:"lastSeen"`
}

// Document is get's document of a serving (docs/serving.md).
type Document struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Summary
	// Endpoint is where the serving answers inside the cluster.
	Endpoint   string      `json:"endpoint"`
	Pods       []Pod       `json:"pods"`
	Conditions []Condition `json:"conditions"`
	Events     []Event     `json:"events"`
}

// DocumentKind and DocumentAPIVersion name get's document.
const (
	DocumentKind       = "Serving"
	DocumentAPIVersion = "easyai.io/v1"
)

// Get reads one serving: its versions, pods, conditions and recent
// warnings. A serving that does not exist is a not-found error (exit 3).
// Events the user may not read are left out with a note on notes.
func (c *Client) Get(ctx context.Context, namespace, name string, notes io.Writer) (*Document, error) {
	doc, err := c.state(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	doc.Events, err = c.warnings(ctx, namespace, doc.Pods)
	if err != nil && notes != nil {
		fmt.Fprintf(notes, "Warning: the serving's events are left out: %v\n", err)
	}
	return doc, nil
}

// state is the serving's document without its events: its Deployments and
// pods (two requests), what --wait, invoke, open and logs need.
func (c *Client) state(ctx context.Context, namespace, name string) (*Document, error) {
	vs, err := c.versions(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	ds := make([]*appsv1.Deployment, len(vs))
	for i := range vs {
		ds[i] = &vs[i]
	}
	doc := &Document{APIVersion: DocumentAPIVersion, Kind: DocumentKind, Summary: c.summarize(ds), Pods: []Pod{}, Conditions: []Condition{}, Events: []Event{}}
	doc.Endpoint = fmt.Sprintf("http://%s.%s.svc:%d", name, namespace, doc.Port)
	for _, d := range ds {
		for _, cond := range d.Status.Conditions {
			doc.Conditions = append(doc.Conditions, Condition{Version: d.Labels[VersionLabel], Type: string(cond.Type), Status: string(cond.Status),
				Reason: jobmodel.OneLine(cond.Reason), Message: jobmodel.OneLine(cond.Message)})
		}
	}
	pods, err := c.Kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: Label + "=" + name})
	if err != nil {
		return nil, err
	}
	for i := range pods.Items {
		doc.Pods = append(doc.Pods, podOf(&pods.Items[i]))
	}
	sort.Slice(doc.Pods, func(i, j int) bool { return doc.Pods[i].Name < doc.Pods[j].Name })
	if doc.State != "Available" {
		if r := stuckReason(doc.Pods); r != "" {
			doc.Reason = r
		}
	}
	return doc, nil
}

// State is the serving's document without its events (see Get).
func (c *Client) State(ctx context.Context, namespace, name string) (*Document, error) {
	return c.state(ctx, namespace, name)
}

// warnings are the recent warning events of pods.
func (c *Client) warnings(ctx context.Context, namespace string, pods []Pod) ([]Event, error) {
	out := []Event{}
	names := map[string]bool{}
	for _, p := range pods {
		names[p.Name] = true
	}
	if len(names) == 0 {
		return out, nil
	}
	evs, err := c.Kube.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{FieldSelector: "type=Warning"})
	if err != nil {
		return out, err
	}
	for i := range evs.Items {
		ev := &evs.Items[i]
		if ev.InvolvedObject.Kind != "Pod" || !names[ev.InvolvedObject.Name] {
			continue
		}
		last := ev.LastTimestamp.Time
		if last.IsZero() {
			last = ev.EventTime.Time
		}
		count := ev.Count
		if count == 0 {
			count = 1
		}
		out = append(out, Event{Object: "pod/" + ev.InvolvedObject.Name, Reason: jobmodel.OneLine(ev.Reason), Message: jobmodel.OneLine(ev.Message), Count: count, Last: last})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Last.After(out[j].Last) })
	if len(out) > 10 {
		out = out[:10]
	}
	return out, nil
}

// podOf is a pod's state as get shows it.
func podOf(p *corev1.Pod) Pod {
	out := Pod{Name: p.Name, Version: jobmodel.OneLine(p.Labels[VersionLabel]), State: string(p.Status.Phase), Node: p.Spec.NodeName}
	for _, c := range p.Status.Conditions {
		switch {
		case c.Type == corev1.PodReady:
			out.Ready = c.Status == corev1.ConditionTrue
		case c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse:
			out.State, out.Reason = jobmodel.OneLine(c.Reason), jobmodel.OneLine(c.Message)
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		out.Restarts += cs.RestartCount
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
			out.State, out.Reason = jobmodel.OneLine(w.Reason), jobmodel.OneLine(w.Message)
		}
	}
	return out
}

// stuckReasons are the waiting reasons no waiting mends: the rollout is
// stuck until the serving is changed.
var stuckReasons = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "CreateContainerConfigError": true,
	"CreateContainerError": true, "CrashLoopBackOff": true, "Unschedulable": true, "RunContainerError": true,
}

// stuckReason names the first pod stuck for a reason of stuckReasons ("":
// none is).
func stuckReason(pods []Pod) string {
	for _, p := range pods {
		if stuckReasons[p.State] {
			r := "pod " + p.Name + ": " + p.State
			if p.Reason != "" {
				r += ": " + p.Reason
			}
			return r
		}
	}
	return ""
}

// Delete deletes the serving: the workloads of its versions (their
// Deployments, ReplicaSets and pods go with them) and its Service. A
// serving that does not exist is a not-found error.
func (c *Client) Delete(ctx context.Context, namespace, name string) error {
	vs, err := c.versions(ctx, namespace, name)
	if err != nil {
		return err
	}
	for i := range vs {
		b, object := c.workloadOf(&vs[i])
		if err := b.delete(ctx, namespace, object); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	svc, err := c.Kube.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	case svc.Labels[Label] != name:
		// Not the serving's: someone else's Service of that name stays.
		return nil
	}
	if err := c.Kube.CoreV1().Services(namespace).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground)}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

// Wait waits until the serving is Available: nil then; a timeout error
// (exit 5) naming why it is not once timeout has passed. A pod stuck for
// a reason no waiting mends (a pull failure) is said once on notes as soon
// as it is seen. Each check reads the serving afresh, so that an API
// server restart or a replaced pod costs one check, not the wait.
func (c *Client) Wait(ctx context.Context, namespace, name string, timeout time.Duration, notes io.Writer) (*Document, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	said := ""
	var last *Document
	var lastErr error
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		doc, err := c.state(ctx, namespace, name)
		switch {
		case err == nil:
			last, lastErr = doc, nil
			if doc.State == "Available" {
				return doc, nil
			}
			if doc.State == "Failed" {
				return doc, exit.JobFailedErrorf("serving %s failed: %s", name, doc.Reason)
			}
			if r := stuckReason(doc.Pods); r != "" && r != said && notes != nil {
				fmt.Fprintf(notes, "serving %s is not ready: %s\n", name, r)
				said = r
			}
		case exit.IsNotFound(err):
			return nil, err
		case ctx.Err() == nil:
			lastErr = err
		}
		select {
		case <-ctx.Done():
			why := "no answer from the cluster"
			switch {
			case last != nil && last.Reason != "":
				why = last.Reason
			case lastErr != nil:
				why = lastErr.Error()
			}
			return last, exit.TimeoutErrorf("serving %s is not ready after %s: %s", name, timeout, strings.TrimSpace(why))
		case <-tick.C:
		}
	}
}
