// Package kubeplatform is the Kubernetes platform: jobs are objects of the
// kinds easyai knows, in a namespace of the kubeconfig's cluster, reached
// through the jobs client and the engines (submit, waiter, logs).
package kubeplatform

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/kueue"
	"github.com/easyai-dev/easyai/pkg/logs"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Platform is a Kubernetes cluster; its fields are the factory's lazy
// clients, so that nothing reaches the cluster before it is asked to.
type Platform struct {
	Kinds *kinds.Registry
	// Namespace is -n, else the context's namespace; explicit: -n was given.
	Namespace      func() (ns string, explicit bool, err error)
	Jobs           func() (*jobclient.Client, error)
	Kube           func() (kubernetes.Interface, error)
	Dynamic        func() (dynamic.Interface, error)
	User           func(ctx context.Context) (string, error)
	KubeconfigUser func() (string, error)
	// GPUResources are the extended resources counted as GPUs (top node);
	// none: nvidia.com/gpu.
	GPUResources []string
	// Code uploads --code dir:PATH before the job is created (no Clients:
	// a submission with such code fails saying so).
	Code submit.CodeUploader
	// Notes receives warnings (stderr).
	Notes io.Writer
	Now   func() time.Time
}

var _ platform.Platform = (*Platform)(nil)

// handle is a job's state on Kubernetes: its kind and the object as last
// read (nil for a listed job).
type handle struct {
	kind kinds.Kind
	obj  *unstructured.Unstructured
}

// JobOf is the platform's job of an object of kind k, as read by a command
// that works on Kubernetes only (suspend and resume wait through it).
func (p *Platform) JobOf(k kinds.Kind, obj *unstructured.Unstructured) (*platform.Job, error) {
	client, err := p.Jobs()
	if err != nil {
		return nil, err
	}
	s, err := k.Summarize(obj, client.GPUResource)
	if err != nil {
		return nil, err
	}
	return &platform.Job{
		Item:   jobclient.ItemOf(jobclient.Listed{Kind: k, Summary: s}, p.Now()),
		Raw:    obj.Object,
		Handle: &handle{kind: k, obj: obj},
	}, nil
}

// read reads the object of a listed job.
func (h *handle) read(ctx context.Context, client *jobclient.Client, job *platform.Job) error {
	if h.obj != nil {
		return nil
	}
	k, obj, err := client.Find(ctx, job.Item.Namespace, kinds.Ref{Kind: h.kind, Name: job.Item.Name})
	if err != nil {
		return err
	}
	h.kind, h.obj = k, obj
	return nil
}

// readJob is the job's handle, its object read, and the jobs client.
func (p *Platform) readJob(ctx context.Context, job *platform.Job) (*handle, *jobclient.Client, error) {
	h, err := handleOf(job)
	if err != nil {
		return nil, nil, err
	}
	client, err := p.Jobs()
	if err != nil {
		return nil, nil, err
	}
	if err := h.read(ctx, client, job); err != nil {
		return nil, nil, err
	}
	return h, client, nil
}

func handleOf(job *platform.Job) (*handle, error) {
	h, ok := job.Handle.(*handle)
	if !ok {
		return nil, fmt.Errorf("%s is not a Kubernetes job", job)
	}
	return h, nil
}

// namespace is the namespace commands act in.
func (p *Platform) namespace() string {
	ns, _, err := p.Namespace()
	if err != nil {
		return "?"
	}
	return ns
}

// Where is "namespace NS".
func (p *Platform) Where() string { return "namespace " + p.namespace() }

// JobArgs is "KIND/NAME -n NS".
func (p *Platform) JobArgs(job *platform.Job) string {
	return job.String() + " -n " + job.Item.Namespace
}

// Submit creates the job in the namespace, as the user the API server
// knows (the kubeconfig's user for a client dry run).
func (p *Platform) Submit(ctx context.Context, req *submit.JobRequest) (*platform.Submitted, error) {
	if flag := req.Flags.ChangedNotOn(submit.Kubernetes); flag != "" {
		return nil, exit.UsageErrorf("--%s is a flag of timaker clusters (--cluster NAME): Kubernetes jobs do not take it", flag)
	}
	ns, _, err := p.Namespace()
	if err != nil {
		return nil, err
	}
	s := &submit.Submission{JobRequest: *req, Namespace: ns,
		User: p.User, ClientUser: p.KubeconfigUser, Served: p.served, Dynamic: p.Dynamic,
		FindJob: func(ctx context.Context, name string) (*unstructured.Unstructured, error) {
			client, err := p.Jobs()
			if err != nil {
				return nil, err
			}
			_, obj, err := client.Find(ctx, ns, kinds.Ref{Name: name})
			return obj, err
		},
	}
	if p.Code.Clients != nil {
		s.UploadCode = p.Code.Upload
	}
	res, err := s.Run(ctx)
	if err != nil {
		return nil, err
	}
	if res.GeneratedName != "" && req.Notes != nil {
		fmt.Fprintf(req.Notes, "Job name: %s\n", res.GeneratedName)
	}
	obj := res.Object.DeepCopy()
	obj.SetManagedFields(nil) // the API server's bookkeeping, as kubectl hides it
	out := &platform.Submitted{
		Shown: obj.Object,
		Name:  res.Kind.Name() + "/" + obj.GetName(),
		Line:  fmt.Sprintf("%s/%s submitted to namespace %s", res.Kind.Name(), obj.GetName(), obj.GetNamespace()),
	}
	for _, a := range res.Attachments {
		out.Beside = append(out.Beside, strings.ToLower(a.GetKind())+"/"+a.GetName())
	}
	if s.DryRun == submit.DryRunNone {
		if out.Job, err = p.JobOf(res.Kind, res.Object); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// served asks the API server's discovery whether it serves gvr (a kind's
// backend choice).
func (p *Platform) served(ctx context.Context, gvr schema.GroupVersionResource) (bool, error) {
	kc, err := p.Kube()
	if err != nil {
		return false, err
	}
	ok, err := kube.Served(kc, gvr)
	if err != nil {
		return false, fmt.Errorf("asking the cluster whether it serves %s: %w", gvr.GroupResource(), err)
	}
	return ok, nil
}

// Find finds the job in the namespace (every kind when ref names none).
func (p *Platform) Find(ctx context.Context, ref kinds.Ref) (*platform.Job, error) {
	ns, _, err := p.Namespace()
	if err != nil {
		return nil, err
	}
	client, err := p.Jobs()
	if err != nil {
		return nil, err
	}
	k, obj, err := client.Find(ctx, ns, ref)
	if err != nil {
		return nil, err
	}
	return p.JobOf(k, obj)
}

// Describe reads the job's replicas (its pods) and warning events.
func (p *Platform) Describe(ctx context.Context, job *platform.Job) (*jobmodel.Document, error) {
	h, err := handleOf(job)
	if err != nil {
		return nil, err
	}
	client, err := p.Jobs()
	if err != nil {
		return nil, err
	}
	d, err := client.Describe(ctx, h.kind, h.obj)
	if err != nil {
		return nil, err
	}
	if d.RequestErr != nil {
		fmt.Fprintf(p.Notes, "Warning: %s/%s: %v: its image and command are read from its pod templates\n", d.Kind.Name(), d.Object.GetName(), d.RequestErr)
	}
	doc := jobclient.DocumentOf(d, p.Now())
	if doc.Labels[kueue.QueueLabel] != "" {
		p.admit(ctx, client.Dynamic, []*jobmodel.Summary{&doc.Summary})
	}
	return &doc, nil
}

// List lists the jobs of the namespace (or all, -A): one request per kind.
// A kind the user may not list is a warning and skipped; one the cluster
// does not serve is skipped quietly unless asked for with --kind.
func (p *Platform) List(ctx context.Context, opts platform.ListOptions) ([]*platform.Job, error) {
	if len(opts.Adopt) > 0 {
		return nil, exit.UsageErrorf("--id adopts jobs of a timaker cluster (--cluster NAME); list shows every job of a Kubernetes namespace already")
	}
	lo := jobclient.ListOptions{
		Kinds: opts.Kinds, LabelSelector: opts.Selector, Experiment: opts.Experiment,
		States: opts.States, User: opts.User, ManagedOnly: opts.ManagedOnly,
	}
	where := "across namespaces"
	if !opts.AllNamespaces {
		ns, _, err := p.Namespace()
		if err != nil {
			return nil, err
		}
		lo.Namespace, where = ns, "in "+ns
	}
	client, err := p.Jobs()
	if err != nil {
		return nil, err
	}
	if opts.Mine {
		if lo.User, err = p.User(ctx); err != nil {
			return nil, err
		}
	}
	lo.States = withKueueHeld(opts.States)
	// The table of a namespace's pods is read beside the LISTs of its jobs,
	// not after them. (Across namespaces it is pages of every pod of the
	// cluster: read after, only when there are jobs.)
	var rows func() ([]kube.PodRow, error)
	if opts.PodReasons && client.Kube != nil && lo.Namespace != "" {
		rows = client.PodRowsAhead(ctx, lo.Namespace)
	}
	res, err := client.List(ctx, lo)
	if err != nil {
		return nil, err
	}
	res.Jobs = p.admitListed(ctx, client.Dynamic, res.Jobs, opts.States)
	if err := p.reportNotInstalled(res.NotInstalled, opts.KindsAsked); err != nil {
		return nil, err
	}
	for _, k := range res.Refused {
		fmt.Fprintf(p.Notes, "Warning: cannot list %s %s: forbidden\n", k.Resource().Resource, where)
	}
	now := p.Now()
	out := make([]*platform.Job, len(res.Jobs))
	for i, j := range res.Jobs {
		out[i] = &platform.Job{Item: jobclient.ItemOf(j, now), Handle: &handle{kind: j.Kind}}
	}
	if opts.PodReasons && len(res.Jobs) > 0 && client.Kube != nil {
		reasons, err := client.PodReasons(ctx, lo.Namespace, res.Jobs, rows)
		switch {
		case kube.Refused(err):
			fmt.Fprintf(p.Notes, "Warning: cannot list pods %s: forbidden; REASON is the operators' own\n", where)
		case err != nil:
			fmt.Fprintf(p.Notes, "Warning: cannot read the pods %s: %s; REASON is the operators' own\n", where, jobmodel.OneLine(err.Error()))
		}
		for i := range reasons {
			out[i].PodReason = reasons[i]
		}
	}
	return out, nil
}

// reportNotInstalled says which kinds the cluster does not serve: a warning
// for each kind asked for with --kind; without --kind, clusters commonly
// serve only some kinds, so those are skipped quietly (said with -v 1),
// unless the cluster serves none of them.
func (p *Platform) reportNotInstalled(missing []kinds.Kind, asked bool) error {
	if !asked && len(missing) > 0 && len(missing) == len(p.Kinds.All()) {
		names := make([]string, len(missing))
		for i, k := range missing {
			names[i] = k.GroupVersionKind().Kind
		}
		return exit.WithHint(fmt.Errorf("this cluster serves none of the job kinds easyai knows (%s)", strings.Join(names, ", ")),
			"install the Kubeflow training-operator or Volcano, or check --context")
	}
	for _, k := range missing {
		err := kube.NotInstalledError(k)
		if asked {
			fmt.Fprintf(p.Notes, "Warning: %v, skipped (%s)\n", err, exit.Hint(err))
		} else {
			klog.V(1).Infof("%v, skipped", err)
		}
	}
	return nil
}

// Delete deletes the job; its pods follow through the garbage collector.
func (p *Platform) Delete(ctx context.Context, job *platform.Job) error {
	h, err := handleOf(job)
	if err != nil {
		return err
	}
	client, err := p.Jobs()
	if err != nil {
		return err
	}
	return client.Delete(ctx, h.kind, job.Item.Namespace, job.Item.Name)
}

// Wait watches the job until it reaches the condition.
func (p *Platform) Wait(ctx context.Context, job *platform.Job, req platform.WaitRequest) (*platform.Waited, error) {
	h, client, err := p.readJob(ctx, job)
	if err != nil {
		return nil, err
	}
	if req.For == waiter.Admitted {
		return p.waitAdmitted(ctx, h, client, req)
	}
	wr := waiter.Request{
		Dynamic: client.Dynamic, Kind: h.kind, GPUResource: client.GPUResource,
		Object: h.obj, For: req.For, Timeout: req.Timeout, Now: p.Now,
	}
	if client.Kube != nil {
		selector := h.kind.PodSelector(h.obj.GetName())
		wr.PodStatuses = func(ctx context.Context) (map[string]string, error) {
			return kube.PodStatuses(ctx, client.Kube, h.obj.GetNamespace(), selector)
		}
		wr.StuckAfter = req.StuckAfter
		wr.MountFailures = func(ctx context.Context) (map[string]string, error) {
			return kube.MissingMounts(ctx, client.Kube, h.obj.GetNamespace())
		}
	}
	if req.Started != nil {
		wr.Running = func(obj *unstructured.Unstructured) {
			var doc *jobmodel.Document
			if req.Document {
				doc, _ = p.documentOf(ctx, h.kind, obj)
			}
			req.Started(doc)
		}
	}
	res, err := waiter.Wait(ctx, wr)
	if res == nil {
		return nil, err
	}
	waited := &platform.Waited{Line: res.Line(h.kind)}
	if !req.Document || exit.Code(err) == exit.Interrupted {
		return waited, err
	}
	waited.Document, waited.DocumentErr = p.documentOf(ctx, h.kind, res.Object)
	return waited, err
}

// documentOf is get's document of the job as obj is, read under a context
// of its own: the wait's may have run out, the document is still due.
func (p *Platform) documentOf(ctx context.Context, k kinds.Kind, obj *unstructured.Unstructured) (*jobmodel.Document, error) {
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	job, err := p.JobOf(k, obj)
	if err != nil {
		return nil, err
	}
	return p.Describe(dctx, job)
}

// Logs follows the logs of every replica of the job until it ends.
func (p *Platform) Logs(ctx context.Context, job *platform.Job, opts platform.LogRequest) error {
	h, client, err := p.readJob(ctx, job)
	if err != nil {
		return err
	}
	return logs.Run(ctx, logs.Request{
		Kind: h.kind, Job: h.obj, Kube: client.Kube, Dynamic: client.Dynamic,
		Follow: true, Tail: -1, MaxLogRequests: logs.DefaultMaxLogRequests,
		Colour: opts.Colour, Terminal: opts.Terminal, Prefix: opts.Prefix, Out: opts.Out, ErrOut: opts.ErrOut,
	})
}
