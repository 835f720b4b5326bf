// Package jobclient finds, lists, describes and deletes training jobs of every
// registered kind through the dynamic client. It is the engine of "easyai
// list", "get" and "delete": it knows nothing of flags or terminals, and asks
// each kind (kinds.Kind) for everything that differs between kinds.
package jobclient

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
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
	// Server is the API server's URL, for messages.
	Server string
}

// Listed is one job a LIST found in the cluster: its kind and
// summary. platform.Job is the platform-neutral job commands see;
// jobmodel.Item its document.
type Listed struct {
	Kind    kinds.Kind
	Summary jobmodel.Summary
}

// notFound is the error of a job that does not exist (exit 3).
func notFound(ref kinds.Ref, namespace string) error {
	return exit.NotFoundErrorf("job %s not found in namespace %s", ref, namespace)
}

// Find gets the job ref names in namespace. Without a kind it looks in every
// kind at once: a kind the cluster does not serve is skipped, a name found in
// two kinds is an error asking for one. With a kind that is not installed the
// error says which operator to install.
//
// A kind the user may not read does not hide the job found in another; but
// "not found" is said only when no kind was refused: when every kind was,
// the one error says the user may not read jobs in the namespace. Any other
// failure is one error, of the first kind in the registry's order, so that a
// dead cluster is one line, the same on every run.
func (c *Client) Find(ctx context.Context, namespace string, ref kinds.Ref) (kinds.Kind, *unstructured.Unstructured, error) {
	if ref.Kind != nil {
		return c.findOfKind(ctx, namespace, ref)
	}
	all := c.Kinds.All()
	objs := make([]*unstructured.Unstructured, len(all))
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, k := range all {
		wg.Go(func() { objs[i], errs[i] = c.get(ctx, k, namespace, ref.Name) })
	}
	wg.Wait()
	var found, refused []int
	answered := 0 // kinds that said "not found"
	for i, err := range errs {
		switch {
		case err == nil:
			found = append(found, i)
		case kube.NotInstalled(err):
		case apierrors.IsNotFound(err):
			answered++
		case kube.Refused(err):
			refused = append(refused, i)
		case kube.Garbled(err):
			if err := c.checkServer(); err != nil {
				return nil, nil, err
			}
			fallthrough
		default:
			return nil, nil, fmt.Errorf("getting %s/%s: %w", all[i].Name(), ref.Name, err)
		}
	}
	switch {
	case len(found) == 1:
		return all[found[0]], objs[found[0]], nil
	case len(found) > 1:
		var names []string
		for _, i := range found {
			names = append(names, all[i].Name()+"/"+ref.Name)
		}
		return nil, nil, exit.UsageErrorf("there are %d jobs named %s in namespace %s (%s): name one as KIND/NAME or with --kind",
			len(found), ref.Name, namespace, strings.Join(names, ", "))
	case len(refused) > 0:
		return nil, nil, refusedFind(ref, namespace, all, refused, errs, answered)
	}
	return nil, nil, c.notFound(ref, namespace)
}

// findOfKind is Find of a job whose kind the user named.
func (c *Client) findOfKind(ctx context.Context, namespace string, ref kinds.Ref) (kinds.Kind, *unstructured.Unstructured, error) {
	obj, err := c.get(ctx, ref.Kind, namespace, ref.Name)
	switch {
	case err == nil:
		return ref.Kind, obj, nil
	case kube.NotInstalled(err):
		if err := c.checkServer(); err != nil {
			return nil, nil, err
		}
		return nil, nil, kube.NotInstalledError(ref.Kind)
	case apierrors.IsNotFound(err):
		return nil, nil, c.notFound(ref, namespace)
	case kube.Refused(err):
		return nil, nil, kube.RefusedEverywhere("read", ref.Kind.Resource().Resource, "get", namespace,
			[]schema.GroupResource{ref.Kind.Resource().GroupResource()}, err)
	case kube.Garbled(err):
		if err := c.checkServer(); err != nil {
			return nil, nil, err
		}
		fallthrough
	default:
		return nil, nil, fmt.Errorf("getting %s: %w", ref, err)
	}
}

// refusedFind is Find's error when no kind had the job and the kinds
// refused (indexes into all and errs) may not be read: when no kind
// answered, the user may not read jobs in the namespace at all.
func refusedFind(ref kinds.Ref, namespace string, all []kinds.Kind, refused []int, errs []error, answered int) error {
	resources := make([]schema.GroupResource, len(refused))
	for j, i := range refused {
		resources[j] = all[i].Resource().GroupResource()
	}
	if answered == 0 {
		return kube.RefusedEverywhere("read", "jobs", "get", namespace, resources, errs[refused[0]])
	}
	return exit.WithHint(&kube.RefusedError{
		Message: fmt.Sprintf("job %s not found in namespace %s among the kinds you may read; you may not read %s there",
			ref, namespace, kube.GroupResources(resources)),
		Err: errs[refused[0]],
	}, kube.DoctorHint(namespace))
}

// notFound is the error of a job that does not exist (exit 3), unless the
// server is no Kubernetes API server (a plain web server's 404 for every
// path is no job's absence).
func (c *Client) notFound(ref kinds.Ref, namespace string) error {
	if err := c.checkServer(); err != nil {
		return err
	}
	return notFound(ref, namespace)
}

// checkServer tells whether the server is a Kubernetes API server at all,
// when Kube is set (kube.CheckAPIServer).
func (c *Client) checkServer() error {
	if c.Kube == nil {
		return nil
	}
	return kube.CheckAPIServer(c.Kube.Discovery(), c.Server)
}

func (c *Client) get(ctx context.Context, k kinds.Kind, namespace, name string) (*unstructured.Unstructured, error) {
	obj, err := c.Dynamic.Resource(k.Resource()).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	c.fromTemplate(ctx, k, obj)
	return obj, nil
}

// sortJobs orders jobs by namespace, then newest first, then kind and name.
func sortJobs(js []Listed) {
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
