package jobclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/klog/v2"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
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
	States []jobmodel.State
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
		parts = append(parts, jobmodel.ExperimentLabel+"="+o.Experiment)
	}
	if u := jobmodel.LabelSafe(o.User); u != "" {
		parts = append(parts, jobmodel.UserLabel+"="+u)
	}
	if o.ManagedOnly {
		parts = append(parts, jobmodel.ManagedByLabel+"="+jobmodel.ManagedByValue)
	}
	return strings.Join(parts, ",")
}

// keeps reports whether a job passes the filters the API server cannot
// apply; recordedUser is its easyai.io/user annotation.
func (o *ListOptions) keeps(s *jobmodel.Summary, recordedUser string) bool {
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
func (o *ListOptions) keepsUser(s *jobmodel.Summary, recorded string) bool {
	safe := jobmodel.LabelSafe(o.User)
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
	Jobs []Listed
	// NotInstalled are the kinds whose API the cluster does not serve; they
	// were skipped.
	NotInstalled []kinds.Kind
	// Refused are the kinds the API server would not list for the user
	// (403); they were skipped, and the jobs of the others are listed.
	Refused []kinds.Kind
}

// ReportSkipped says what List skipped: a warning on warnings for each kind
// the user may not list in namespace ("": every namespace), and, at -v 1,
// each kind the cluster does not serve.
func (r *ListResult) ReportSkipped(warnings io.Writer, namespace string) {
	for _, k := range r.NotInstalled {
		klog.V(1).Infof("%v, skipped", kube.NotInstalledError(k))
	}
	where := namespace
	if namespace == "" {
		where = "every namespace"
	}
	for _, k := range r.Refused {
		fmt.Fprintf(warnings, "Warning: cannot list %s in %s: forbidden\n", k.Resource().Resource, where)
	}
}

// List lists the jobs of every kind asked for: one paginated LIST per kind,
// all kinds at once, and nothing else (no pods, no call per job); each job's
// state, workers and GPUs come from the job object (Kind.Summarize). Across
// namespaces, a kind with more than a page of jobs is read on by namespace
// after its first page (one LIST of the namespaces, then a few LISTs at
// once: listByNamespace), when the user may list namespaces.
//
// A kind the cluster does not serve, or the user may not list, is skipped
// (ListResult says which) without stopping the others; List fails when
// every kind was refused (a kube.RefusedError naming the namespace and what
// is missing), or for any other error (one, of the first kind in the
// registry's order, so that a dead cluster is one line, the same each run).
func (c *Client) List(ctx context.Context, opts ListOptions) (*ListResult, error) {
	ks := opts.Kinds
	if len(ks) == 0 {
		ks = c.Kinds.All()
	}
	perKind := make([][]Listed, len(ks))
	errs := make([]error, len(ks))
	namespaces := sync.OnceValue(func() []string { return c.namespaces(ctx) })
	var wg sync.WaitGroup
	for i, k := range ks {
		wg.Go(func() { perKind[i], errs[i] = c.listKind(ctx, k, &opts, namespaces) })
	}
	wg.Wait()
	res := &ListResult{}
	var refused []schema.GroupResource
	var firstRefusal error
	for i, k := range ks {
		switch err := errs[i]; {
		case err == nil:
			res.Jobs = append(res.Jobs, perKind[i]...)
		case kube.NotInstalled(err):
			res.NotInstalled = append(res.NotInstalled, k)
		case kube.Refused(err):
			res.Refused = append(res.Refused, k)
			refused = append(refused, k.Resource().GroupResource())
			if firstRefusal == nil {
				firstRefusal = err
			}
		case kube.Garbled(err):
			if err := c.checkServer(); err != nil {
				return nil, err
			}
			return nil, err
		default:
			return nil, err
		}
	}
	if len(res.Refused) > 0 && len(res.Refused)+len(res.NotInstalled) == len(ks) {
		return nil, kube.RefusedEverywhere("list", "jobs", "list", opts.Namespace, refused, firstRefusal)
	}
	if len(res.NotInstalled) == len(ks) {
		if err := c.checkServer(); err != nil {
			return nil, err
		}
	}
	sortJobs(res.Jobs)
	return res, nil
}

// listKind pages through one kind's jobs. Across namespaces, a kind with
// more jobs than one page holds is read on by namespace, a few namespaces at
// once (listByNamespace); otherwise page after page.
func (c *Client) listKind(ctx context.Context, k kinds.Kind, opts *ListOptions, namespaces func() []string) ([]Listed, error) {
	list := metav1.ListOptions{LabelSelector: opts.selector(), Limit: PageSize}
	// Only the jobs kept are held, page by page.
	keep := func(s *jobmodel.Summary) bool { return opts.keeps(s, s.RecordedUser) }
	first, next, err := c.listPage(ctx, k, opts.Namespace, list, nil)
	if err != nil {
		return nil, listError(k, err)
	}
	last := ""
	if len(first) > 0 {
		last = first[len(first)-1].Namespace
	}
	summaries := kept(first, keep)
	if next != "" {
		list.Continue = next
		var rest []jobmodel.Summary
		if after, ok := namespacesAfter(namespaces, opts.Namespace, last); ok {
			rest, err = c.listByNamespace(ctx, k, list, last, after, keep)
		} else {
			rest, err = c.pages(ctx, k, opts.Namespace, list, nil, keep)
		}
		if err != nil {
			return nil, listError(k, err)
		}
		summaries = append(summaries, rest...)
	}
	c.summariesFromTemplates(ctx, k, summaries)
	summaries = append(summaries, c.madeFromTemplates(ctx, k, opts.Namespace, list.LabelSelector, keep)...)
	out := make([]Listed, len(summaries))
	for i, s := range summaries {
		out[i] = Listed{Kind: k, Summary: s}
	}
	return out, nil
}

// kept are the summaries keep keeps, in place.
func kept(summaries []jobmodel.Summary, keep func(*jobmodel.Summary) bool) []jobmodel.Summary {
	out := summaries[:0]
	for i := range summaries {
		if keep(&summaries[i]) {
			out = append(out, summaries[i])
		}
	}
	return out
}

func listError(k kinds.Kind, err error) error {
	if kube.NotInstalled(err) || kube.Refused(err) {
		return err
	}
	return fmt.Errorf("listing %s: %w", k.GroupVersionKind().Kind, err)
}

const (
	// splitNamespaces is the most namespaces a list across namespaces is
	// split into; with more, it goes on page after page.
	splitNamespaces = 64
	// listsAtOnce is how many LISTs of one kind run at once when split.
	listsAtOnce = 4
	// tailFirstPage is the first page asked for of the rest of the first
	// page's last namespace; each page after it asks for 4 times more, up to
	// PageSize. The rest is often short or nothing (the first page ended
	// with the namespace), and the API server writes a page up to the
	// client's flow-control window (4 MiB) before it sees the request
	// cancelled at the next namespace's first job: a page of PageSize there
	// would cost it a page of work for one job.
	tailFirstPage = 8
)

// namespacesAfter are the namespaces whose jobs come after those of
// namespace last in a LIST across namespaces (the API server returns them in
// the order of their keys, namespace/name); ok is false for a LIST in one
// namespace, or when they are not known (the user may not list namespaces)
// or too many to split into. namespaces is only asked when needed.
func namespacesAfter(namespaces func() []string, namespace, last string) (after []string, ok bool) {
	if namespace != "" || last == "" {
		return nil, false
	}
	all := namespaces()
	if all == nil {
		return nil, false
	}
	for _, ns := range all {
		if ns+"/" > last+"/" {
			after = append(after, ns)
		}
	}
	return after, len(after) <= splitNamespaces
}

// listByNamespace reads the rest of a LIST across namespaces whose first
// page ended in namespace last, continued by cont: the rest of last's jobs
// by continuing that LIST (stopped at the first job of another namespace),
// and each namespace after it by a LIST of its own, listsAtOnce at a time.
// The API server writes the jobs of one answer on one core: several answers
// at once take less time than one long one. Each namespace's jobs are as
// one LIST saw them; two namespaces may be read a moment apart.
func (c *Client) listByNamespace(ctx context.Context, k kinds.Kind, cont metav1.ListOptions, last string, after []string, keep func(*jobmodel.Summary) bool) ([]jobmodel.Summary, error) {
	parts := make([][]jobmodel.Summary, 1+len(after))
	errs := make([]error, len(parts))
	sem := make(chan struct{}, listsAtOnce)
	var wg sync.WaitGroup
	for i := range parts {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if i == 0 {
				// The rest of last's jobs: stopped at another namespace's,
				// in pages from tailFirstPage up.
				tail := cont
				tail.Limit = tailFirstPage
				parts[i], errs[i] = c.pages(ctx, k, "", tail, func(s *jobmodel.Summary) bool { return s.Namespace != last }, keep)
				return
			}
			parts[i], errs[i] = c.pages(ctx, k, after[i-1], metav1.ListOptions{LabelSelector: cont.LabelSelector, Limit: cont.Limit}, nil, keep)
		})
	}
	wg.Wait()
	var out []jobmodel.Summary
	for i := range parts {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, parts[i]...)
	}
	return out, nil
}

// pages reads every page of a kind's jobs in namespace ("" for all) from
// opts (its Continue, if set), up to the first job stop refuses, if set,
// and returns those keep keeps. A page smaller than PageSize is followed by
// one 4 times as large, up to PageSize.
func (c *Client) pages(ctx context.Context, k kinds.Kind, namespace string, opts metav1.ListOptions, stop, keep func(*jobmodel.Summary) bool) ([]jobmodel.Summary, error) {
	var out []jobmodel.Summary
	for {
		summaries, next, err := c.listPage(ctx, k, namespace, opts, stop)
		if err != nil {
			return nil, err
		}
		out = append(out, kept(summaries, keep)...)
		if opts.Continue = next; next == "" {
			return out, nil
		}
		opts.Limit = min(4*opts.Limit, PageSize)
	}
}

// errStopped ends the reading of a page at the first job stop refuses.
var errStopped = errors.New("stopped")

// listPage fetches one page of a kind's jobs and reads each job's summary:
// through Raw when set, straight from the response as it streams in (no
// generic maps, no copy of the page), else through the dynamic client.
// When stop is set and says so of a job, the page ends before that job,
// the rest is not read (the request is cancelled) and next is "".
func (c *Client) listPage(ctx context.Context, k kinds.Kind, namespace string, opts metav1.ListOptions, stop func(*jobmodel.Summary) bool) ([]jobmodel.Summary, string, error) {
	if c.Raw == nil {
		page, err := c.Dynamic.Resource(k.Resource()).Namespace(namespace).List(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		out := make([]jobmodel.Summary, 0, len(page.Items))
		for i := range page.Items {
			item, err := json.Marshal(page.Items[i].Object)
			if err != nil {
				return nil, "", err
			}
			s := c.summarize(k, item)
			if stop != nil && stop(&s) {
				return out, "", nil
			}
			out = append(out, s)
		}
		return out, page.GetContinue(), nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
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
	// Stream turns an answer other than 2xx into the API server's Status
	// (a 403 stays a Forbidden error, a 404 a NotFound).
	body, err := req.Stream(ctx)
	if err != nil {
		return nil, "", err
	}
	defer body.Close()
	in := &recordingReader{r: body}
	var out []jobmodel.Summary
	next, err := readPage(newPageDecoder(in), func(dec *jsontext.Decoder) error {
		s, err := c.summarizeNext(k, dec, in)
		if err != nil {
			return err
		}
		if stop != nil && stop(&s) {
			return errStopped
		}
		out = append(out, s)
		return nil
	})
	if errors.Is(err, errStopped) {
		return out, "", nil
	}
	return out, next, err
}

// namespaces are the cluster's namespaces, or nil when they cannot be
// listed (a user who may not; no client): a list across namespaces then
// goes page after page.
func (c *Client) namespaces(ctx context.Context) []string {
	if c.Kube == nil {
		return nil
	}
	list, err := c.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(list.Items))
	for _, ns := range list.Items {
		if len(validation.IsDNS1123Label(ns.Name)) > 0 {
			return nil // not a namespace's name: go page after page
		}
		names = append(names, ns.Name)
	}
	return names
}

// recordingReader keeps the first error its reader returned other than
// io.EOF: after a decode error, it tells a broken stream from a job that
// did not fit.
type recordingReader struct {
	r   io.Reader
	err error
}

func (r *recordingReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}

// newPageDecoder reads a LIST's JSON as leniently as encoding/json would:
// invalid UTF-8 and duplicate names are not errors.
func newPageDecoder(r io.Reader) *jsontext.Decoder {
	return jsontext.NewDecoder(r, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
}

// readPage reads a LIST's JSON object from dec: its continue token, and
// each of its items through item, which must consume exactly one.
func readPage(dec *jsontext.Decoder, item func(*jsontext.Decoder) error) (next string, err error) {
	if err := expectKind(dec, '{'); err != nil {
		return "", err
	}
	for {
		name, err := dec.ReadToken()
		if err != nil {
			return "", err
		}
		if name.Kind() == '}' {
			break
		}
		switch name.String() {
		case "metadata":
			var meta struct {
				Continue string `json:"continue"`
			}
			if err := jsonv2.UnmarshalDecode(dec, &meta); err != nil {
				return "", err
			}
			next = meta.Continue
		case "items":
			tok, err := dec.ReadToken()
			if err != nil {
				return "", err
			}
			if tok.Kind() == 'n' { // "items": null
				continue
			}
			if tok.Kind() != '[' {
				return "", fmt.Errorf("items: got %v, want a list", tok.Kind())
			}
			for dec.PeekKind() != ']' {
				// On a broken stream PeekKind is 0, and item fails.
				if err := item(dec); err != nil {
					return "", err
				}
			}
			if err := expectKind(dec, ']'); err != nil {
				return "", err
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return "", err
			}
		}
	}
	if tok, err := dec.ReadToken(); err != io.EOF {
		if err != nil {
			return "", err
		}
		return "", fmt.Errorf("invalid character after the LIST: %v", tok.Kind())
	}
	return next, nil
}

func expectKind(dec *jsontext.Decoder, want jsontext.Kind) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != want {
		return fmt.Errorf("invalid character in a LIST: got %v, want %v", tok.Kind(), want)
	}
	return nil
}

// summarizeNext reads the next item of a page: in one pass when the kind
// can (kinds.StreamSummarizer), else through its JSON. A job the kind cannot
// read is shown as Unknown with the reason, as summarize does; an error
// that leaves the stream unusable (its syntax, its end, a failed read) fails
// the page.
func (c *Client) summarizeNext(k kinds.Kind, dec *jsontext.Decoder, in *recordingReader) (jobmodel.Summary, error) {
	sk, ok := k.(kinds.StreamSummarizer)
	if !ok {
		item, err := dec.ReadValue()
		if err != nil {
			return jobmodel.Summary{}, err
		}
		return c.summarize(k, bytes.Clone(item)), nil
	}
	depth, start := dec.StackDepth(), dec.InputOffset()
	s, err := sk.SummarizeNext(dec, c.GPUResource)
	if err == nil {
		return s, nil
	}
	var semantic *jsonv2.SemanticError
	var syntactic *jsontext.SyntacticError
	if in.err != nil || !errors.As(err, &semantic) || errors.As(err, &syntactic) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return jobmodel.Summary{}, err
	}
	// A value did not fit: the rest of the job, from it on, is skipped.
	for dec.StackDepth() > depth {
		if _, err := dec.ReadToken(); err != nil {
			return jobmodel.Summary{}, err
		}
	}
	if dec.InputOffset() == start {
		// Nothing of the job was read: the stream cannot go on past it.
		return jobmodel.Summary{}, fmt.Errorf("unreadable job at offset %d: %w", start, err)
	}
	s.Status = jobmodel.Status{State: jobmodel.Unknown, Reason: "Unreadable", Message: err.Error()}
	return s, nil
}

// summarize reads a job's summary; a job the kind cannot read is shown as
// Unknown with the reason, rather than failing the whole list.
func (c *Client) summarize(k kinds.Kind, item json.RawMessage) jobmodel.Summary {
	s, err := k.SummarizeJSON(item, c.GPUResource)
	if err != nil {
		var meta struct {
			Kind     string              `json:"kind"`
			Metadata jobmodel.ObjectMeta `json:"metadata"`
		}
		_ = json.Unmarshal(item, &meta)
		s = jobmodel.NewSummary(meta.Kind, meta.Metadata)
		s.Status = jobmodel.Status{State: jobmodel.Unknown, Reason: "Unreadable", Message: err.Error()}
	}
	return s
}
