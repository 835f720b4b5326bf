package jobs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/exit"
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

// CheckSelection checks a -l label selector and an --experiment name
// before any request is made.
func CheckSelection(selector, experiment string) error {
	if selector != "" {
		if _, err := labels.Parse(selector); err != nil {
			return exit.UsageErrorf("--selector %q: %v", selector, err)
		}
	}
	if experiment != "" {
		if errs := validation.IsValidLabelValue(experiment); len(errs) > 0 {
			return exit.UsageErrorf("--experiment %q: %s", experiment, strings.Join(errs, "; "))
		}
	}
	return nil
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
	list := metav1.ListOptions{LabelSelector: opts.selector(), Limit: PageSize}
	var out []Job
	for {
		items, next, err := c.listPage(ctx, k, opts.Namespace, list)
		if err != nil {
			if kube.NotInstalled(err) {
				return nil, err
			}
			return nil, fmt.Errorf("listing %s: %w", k.GroupVersionKind().Kind, err)
		}
		for _, item := range items {
			s := c.summarize(k, item)
			if opts.keeps(&s, s.Annotations[job.UserAnnotation]) {
				out = append(out, Job{Kind: k, Summary: s})
			}
		}
		if list.Continue = next; next == "" {
			return out, nil
		}
	}
}

// listPage fetches one page of a kind's jobs, each as the JSON the API
// server sent: through Raw when set (no decoding into generic maps), else
// through the dynamic client.
func (c *Client) listPage(ctx context.Context, k kinds.Kind, namespace string, opts metav1.ListOptions) ([]json.RawMessage, string, error) {
	if c.Raw == nil {
		page, err := c.Dynamic.Resource(k.Resource()).Namespace(namespace).List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		items := make([]json.RawMessage, len(page.Items))
		for i := range page.Items {
			if items[i], err = json.Marshal(page.Items[i].Object); err != nil {
				return nil, "", err
			}
		}
		return items, page.GetContinue(), nil
	}
	gvr := k.Resource()
	path := []string{"apis", gvr.Group, gvr.Version}
	if namespace != "" {
		path = append(path, "namespaces", namespace)
	}
	req := c.Raw.Get().AbsPath(append(path, gvr.Resource)...).Param("limit", strconv.FormatInt(opts.Limit, 10))
	if opts.LabelSelector != "" {
		req = req.Param("labelSelector", opts.LabelSelector)
	}
	if opts.Continue != "" {
		req = req.Param("continue", opts.Continue)
	}
	data, err := req.DoRaw(ctx)
	if err != nil {
		return nil, "", err
	}
	var page struct {
		Metadata struct {
			Continue string `json:"continue"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(data, &page); err != nil {
		return nil, "", err
	}
	return page.Items, page.Metadata.Continue, nil
}

// summarize reads a job's summary; a job the kind cannot read is shown as
// Unknown with the reason, rather than failing the whole list.
func (c *Client) summarize(k kinds.Kind, item json.RawMessage) job.Summary {
	s, err := k.SummarizeJSON(item, c.GPUResource)
	if err != nil {
		var meta struct {
			Kind     string         `json:"kind"`
			Metadata job.ObjectMeta `json:"metadata"`
		}
		_ = json.Unmarshal(item, &meta)
		s = job.NewSummary(meta.Kind, meta.Metadata)
		s.Status = job.Status{State: job.Unknown, Reason: "Unreadable", Message: err.Error()}
	}
	return s
}
