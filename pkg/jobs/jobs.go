// Package jobs finds, lists, describes and deletes training jobs of every
// registered kind through the dynamic client. It is the engine of "easyai
// list", "get" and "delete": it knows nothing of flags or terminals, and asks
// each kind (kinds.Kind) for everything that differs between kinds.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/job"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// Client reaches the jobs of a cluster.
type Client struct {
	Dynamic dynamic.Interface
	// Kube lists pods and events (Describe); list and delete do not use it.
	Kube  kubernetes.Interface
	Kinds *kinds.Registry
	// GPUResource is the extended resource GPUs are requested as.
	GPUResource corev1.ResourceName
	// Raw, when set, is a REST client to the API server's root that List
	// pages through, reading each job from JSON without the dynamic client's
	// generic maps (docs/benchmarks.md); nil lists through Dynamic.
	Raw rest.Interface
}

// Job is one job found in the cluster.
type Job struct {
	Kind    kinds.Kind
	Summary job.Summary
}

// Ref names the job a user means: NAME, or KIND/NAME.
type Ref struct {
	// Kind is nil when the user did not name one: every kind is searched.
	Kind kinds.Kind
	Name string
}

func (r Ref) String() string {
	if r.Kind == nil {
		return r.Name
	}
	return r.Kind.Name() + "/" + r.Name
}

// ParseRef reads a job argument: NAME, or KIND/NAME where KIND is a kind's
// name, alias or Kubernetes kind ("tf/mnist", "tfjob/mnist"). kind is the
// --kind flag ("" when not given); naming two different kinds is an error.
func ParseRef(reg *kinds.Registry, arg, kind string) (Ref, error) {
	var ref Ref
	name := arg
	if k, n, ok := strings.Cut(arg, "/"); ok {
		found, known := reg.Lookup(k)
		if !known {
			return Ref{}, exit.UsageErrorf("%q: unknown kind %q (known: %s)", arg, k, strings.Join(reg.Names(), ", "))
		}
		ref.Kind, name = found, n
	}
	if kind != "" {
		found, known := reg.Lookup(kind)
		if !known {
			return Ref{}, exit.UsageErrorf("--kind %q: unknown kind (known: %s)", kind, strings.Join(reg.Names(), ", "))
		}
		if ref.Kind != nil && ref.Kind.Name() != found.Name() {
			return Ref{}, exit.UsageErrorf("%q is a %s job but --kind says %s", arg, ref.Kind.Name(), found.Name())
		}
		ref.Kind = found
	}
	if name == "" || strings.Contains(name, "/") {
		return Ref{}, exit.UsageErrorf("%q: a job is NAME or KIND/NAME", arg)
	}
	ref.Name = name
	return ref, nil
}

// notFound is the error of a job that does not exist (exit 3).
func notFound(ref Ref, namespace string) error {
	return exit.NotFoundErrorf("job %s not found in namespace %s", ref, namespace)
}

// IsNotFound reports whether err is Find's "no such job" error.
func IsNotFound(err error) bool { return exit.Code(err) == exit.NotFound }

// Find gets the job ref names in namespace. Without a kind it looks in every
// kind at once: a kind the cluster does not serve is skipped, a name found in
// two kinds is an error asking for one. With a kind that is not installed the
// error says which operator to install.
func (c *Client) Find(ctx context.Context, namespace string, ref Ref) (kinds.Kind, *unstructured.Unstructured, error) {
	if ref.Kind != nil {
		obj, err := c.get(ctx, ref.Kind, namespace, ref.Name)
		switch {
		case err == nil:
			return ref.Kind, obj, nil
		case kube.NotInstalled(err):
			return nil, nil, kube.NotInstalledError(ref.Kind)
		case apierrors.IsNotFound(err):
			return nil, nil, notFound(ref, namespace)
		default:
			return nil, nil, fmt.Errorf("getting %s: %w", ref, err)
		}
	}
	all := c.Kinds.All()
	objs := make([]*unstructured.Unstructured, len(all))
	errs := make([]error, len(all))
	g, gctx := errgroup.WithContext(ctx)
	for i, k := range all {
		g.Go(func() error {
			objs[i], errs[i] = c.get(gctx, k, namespace, ref.Name)
			if errs[i] != nil && (apierrors.IsNotFound(errs[i]) || kube.NotInstalled(errs[i])) {
				errs[i] = nil
			}
			return nil
		})
	}
	_ = g.Wait()
	var found []int
	for i := range all {
		if objs[i] != nil && errs[i] == nil {
			found = append(found, i)
		}
	}
	var failure error
	for i, err := range errs {
		// Not being allowed to read one kind must not hide the job in another.
		if err != nil && !(len(found) == 1 && apierrors.IsForbidden(err)) {
			failure = errors.Join(failure, fmt.Errorf("getting %s/%s: %w", all[i].Name(), ref.Name, err))
		}
	}
	switch {
	case failure != nil:
		return nil, nil, failure
	case len(found) == 0:
		return nil, nil, notFound(ref, namespace)
	case len(found) > 1:
		var names []string
		for _, i := range found {
			names = append(names, all[i].Name()+"/"+ref.Name)
		}
		return nil, nil, exit.UsageErrorf("there are %d jobs named %s in namespace %s (%s): name one as KIND/NAME or with --kind",
			len(found), ref.Name, namespace, strings.Join(names, ", "))
	}
	return all[found[0]], objs[found[0]], nil
}

func (c *Client) get(ctx context.Context, k kinds.Kind, namespace, name string) (*unstructured.Unstructured, error) {
	obj, err := c.Dynamic.Resource(k.Resource()).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj, nil
}

// sortJobs orders jobs by namespace, then newest first, then kind and name.
func sortJobs(js []Job) {
	sort.SliceStable(js, func(i, j int) bool {
		a, b := js[i].Summary, js[j].Summary
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		if !a.Created.Equal(b.Created) {
			return a.Created.After(b.Created)
		}
		if js[i].Kind.Name() != js[j].Kind.Name() {
			return js[i].Kind.Name() < js[j].Kind.Name()
		}
		return a.Name < b.Name
	})
}
