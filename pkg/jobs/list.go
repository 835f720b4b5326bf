package jobs

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/job"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// PageSize is how many jobs one LIST request asks for.
const PageSize = 500

// ListOptions selects the jobs List returns.
type ListOptions struct {
	// Namespace to list; "" lists every namespace.
	Namespace string
	// Kinds to list; empty lists every registered kind.
	Kinds []kinds.Kind
	// LabelSelector is passed to the API server as is.
	LabelSelector string
	// Experiment keeps the jobs of one experiment (a label, so the API server
	// selects them).
	Experiment string
	// ManagedOnly keeps the jobs easyai submitted (also a label).
	ManagedOnly bool
	// States keeps jobs in one of these states; empty keeps all.
	States []job.State
	// User keeps the jobs of one user: the identity easyai recorded, given
	// exactly or in its label form (docs/labels.md).
	User string
}

// selector is the label selector sent to the API server.
func (o *ListOptions) selector() string {
	var parts []string
	if o.LabelSelector != "" {
		parts = append(parts, o.LabelSelector)
	}
	if o.Experiment != "" {
		parts = append(parts, job.ExperimentLabel+"="+o.Experiment)
	}
	if u := job.LabelSafe(o.User); u != "" {
		parts = append(parts, job.UserLabel+"="+u)
	}
	if o.ManagedOnly {
		parts = append(parts, job.ManagedByLabel+"="+job.ManagedByValue)
	}
	return strings.Join(parts, ",")
}

// keeps reports whether a job passes the filters the API server cannot
// apply; recordedUser is its easyai.io/user annotation.
func (o *ListOptions) keeps(s *job.Summary, recordedUser string) bool {
	if !o.keepsUser(s, recordedUser) {
		return false
	}
	if len(o.States) == 0 {
		return true
	}
	for _, st := range o.States {
		if s.Status.State == st {
			return true
		}
	}
	return false
}

// keepsUser matches the user. The API server selected the label form, which
// two users may share ("alice@corp", "alice_corp"): unless the label form is
// what was asked for, the exact identity must match where the job records it.
func (o *ListOptions) keepsUser(s *job.Summary, recorded string) bool {
	safe := job.LabelSafe(o.User)
	switch {
	case o.User == "":
		return true
	case safe == "":
		return s.User == o.User
	case o.User == safe:
		return true
	default:
		return recorded == "" || recorded == o.User
	}
}

// ListResult is what List found.
type ListResult struct {
	// Jobs sorted by namespace, then newest first.
	Jobs []Job
	// NotInstalled are the kinds whose API the cluster does not serve; they
	// were skipped.
	NotInstalled []kinds.Kind
}

// List lists the jobs of every kind asked for: one paginated LIST per kind,
// all kinds at once, and nothing else (no pods, no call per job); each job's
// state, workers and GPUs come from the job object (Kind.Summarize).
func (c *Client) List(ctx context.Context, opts ListOptions) (*ListResult, error) {
	ks := opts.Kinds
	if len(ks) == 0 {
		ks = c.Kinds.All()
	}
	perKind := make([][]Job, len(ks))
	notInstalled := make([]bool, len(ks))
	g, gctx := errgroup.WithContext(ctx)
	for i, k := range ks {
		g.Go(func() error {
			js, err := c.listKind(gctx, k, &opts)
			if kube.NotInstalled(err) {
				notInstalled[i] = true
				return nil
			}
			perKind[i] = js
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	res := &ListResult{}
	for i, k := range ks {
		res.Jobs = append(res.Jobs, perKind[i]...)
		if notInstalled[i] {
			res.NotInstalled = append(res.NotInstalled, k)
		}
	}
	sortJobs(res.Jobs)
	return res, nil
}

// listKind pages through one kind's jobs.
func (c *Client) listKind(ctx context.Context, k kinds.Kind, opts *ListOptions) ([]Job, error) {
	client := c.Dynamic.Resource(k.Resource()).Namespace(opts.Namespace)
	list := metav1.ListOptions{LabelSelector: opts.selector(), Limit: PageSize}
	var out []Job
	for {
		page, err := client.List(ctx, list)
		if err != nil {
			if kube.NotInstalled(err) {
				return nil, err
			}
			return nil, fmt.Errorf("listing %s: %w", k.GroupVersionKind().Kind, err)
		}
		for i := range page.Items {
			s := c.summarize(k, &page.Items[i])
			if opts.keeps(&s, page.Items[i].GetAnnotations()[job.UserAnnotation]) {
				out = append(out, Job{Kind: k, Summary: s})
			}
		}
		if list.Continue = page.GetContinue(); list.Continue == "" {
			return out, nil
		}
	}
}

// summarize reads a job's summary; a job the kind cannot read is shown as
// Unknown with the reason, rather than failing the whole list.
func (c *Client) summarize(k kinds.Kind, obj *unstructured.Unstructured) job.Summary {
	s, err := k.Summarize(obj, c.GPUResource)
	if err != nil {
		s = job.NewSummary(obj)
		s.Status = job.Status{State: job.Unknown, Reason: "Unreadable", Message: err.Error()}
	}
	return s
}
