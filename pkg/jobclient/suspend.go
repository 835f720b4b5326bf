package jobclient

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/kueue"
)

// Suspendable is a job found to be suspended or resumed: its kind, which
// implements kinds.Suspender, the object as read and its summary.
type Suspendable struct {
	Kind      kinds.Kind
	Suspender kinds.Suspender
	Object    *unstructured.Unstructured
	Summary   jobmodel.Summary
}

// String is KIND/NAME.
func (t *Suspendable) String() string { return t.Kind.Name() + "/" + t.Object.GetName() }

// FindSuspendable finds the job ref names and reads its state; a job whose
// kind does not implement kinds.Suspender is a usage error ("KIND jobs
// cannot be suspended"; verb is "suspended" or "resumed").
func (c *Client) FindSuspendable(ctx context.Context, namespace string, ref kinds.Ref, verb string) (*Suspendable, error) {
	k, obj, err := c.Find(ctx, namespace, ref)
	if err != nil {
		return nil, err
	}
	s, ok := k.(kinds.Suspender)
	if !ok {
		return nil, exit.UsageErrorf("%s jobs cannot be %s: %s/%s is one", k.Name(), verb, k.Name(), obj.GetName())
	}
	sum, err := k.Summarize(obj, c.GPUResource)
	if err != nil {
		return nil, err
	}
	if obj.GetLabels()[kueue.QueueLabel] != "" {
		return c.kueueSuspendable(ctx, k, obj, sum)
	}
	return &Suspendable{Kind: k, Suspender: s, Object: obj, Summary: sum}, nil
}

// kueueSuspendable is a job of a Kueue LocalQueue, suspended and resumed
// as Kueue means it (kueue.Activation): it is Suspended when its Workload
// was deactivated, and Queued (not suspended by its user) while Kueue holds
// it back for quota.
func (c *Client) kueueSuspendable(ctx context.Context, k kinds.Kind, obj *unstructured.Unstructured, sum jobmodel.Summary) (*Suspendable, error) {
	uid := string(obj.GetUID())
	workloads, err := (&kueue.Client{Dynamic: c.Dynamic}).Workloads(ctx, obj.GetNamespace(), kueue.JobUIDLabel+"="+uid)
	if err != nil {
		return nil, fmt.Errorf("reading the Kueue Workload of %s/%s: %w", k.Name(), obj.GetName(), err)
	}
	if a, ok := kueue.Admissions(workloads, nil)[uid]; ok {
		sum.Status = kueue.StatusOf(a, sum.Status)
	} else if sum.Status.State == jobmodel.Suspended {
		sum.Status.State = jobmodel.Queued // (its Workload not made yet)
	}
	return &Suspendable{Kind: k, Suspender: kueue.Activation{}, Object: obj, Summary: sum}, nil
}

// DeletedSinceFound turns the not-found error of a suspend or resume request
// on a job deleted since it was found into Find's (exit 3); an API the
// cluster does not serve (Volcano's Commands) stays an error of its own.
func (t *Suspendable) DeletedSinceFound(err error, namespace string) error {
	if apierrors.IsNotFound(err) && !kube.NotInstalled(err) {
		return exit.NotFoundErrorf("job %s not found in namespace %s", t, namespace)
	}
	return err
}
