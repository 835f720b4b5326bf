package list

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// maxContextsAtOnce bounds the contexts listed at once (each runs one LIST
// per kind at once).
const maxContextsAtOnce = 8

// contextFlags are the kubeconfig flags list reads itself: --context may
// name several contexts, -n changes the columns, and --server would send
// every context's requests to one server. oneCluster are the flags given
// that speak for one cluster only (its credentials, its CA): with several
// contexts, each would be sent to every context's server. (kubectl's --user
// is list's own filter here, and --cluster is refused on its own.)
type contextFlags struct {
	context, namespace, server string
	oneCluster                 []string
}

func (o *Options) connectionFlags() contextFlags {
	c := o.Factory.ConfigFlags
	if c == nil {
		return contextFlags{}
	}
	value := func(flag *string) string {
		if flag == nil {
			return ""
		}
		return *flag
	}
	fl := contextFlags{context: value(c.Context), namespace: value(c.Namespace), server: value(c.APIServer)}
	for _, f := range []struct {
		name  string
		value *string
	}{
		{"--token", c.BearerToken}, {"--username", c.Username}, {"--password", c.Password},
		{"--client-certificate", c.CertFile}, {"--client-key", c.KeyFile}, {"--certificate-authority", c.CAFile},
		{"--tls-server-name", c.TLSServerName},
	} {
		if value(f.value) != "" {
			fl.oneCluster = append(fl.oneCluster, f.name)
		}
	}
	if c.Insecure != nil && *c.Insecure {
		fl.oneCluster = append(fl.oneCluster, "--insecure-skip-tls-verify")
	}
	return fl
}

// validateContexts sets Contexts from --all-contexts or a comma list of
// --context, and refuses the flags that name one place.
func (o *Options) validateContexts() error {
	fl := o.connectionFlags()
	if o.AllContexts && fl.context != "" {
		return exit.UsageErrorf("--all-contexts and --context %q: give one of them", fl.context)
	}
	if !o.AllContexts && !strings.Contains(fl.context, ",") {
		return nil
	}
	what := "--all-contexts"
	if !o.AllContexts {
		what = fmt.Sprintf("--context %q", fl.context)
		for _, name := range strings.Split(fl.context, ",") {
			if name = strings.TrimSpace(name); name != "" && !slices.Contains(o.ContextsAsked, name) {
				o.ContextsAsked = append(o.ContextsAsked, name)
			}
		}
		if len(o.ContextsAsked) == 0 {
			return exit.UsageErrorf("%s names no context", what)
		}
	}
	switch {
	case o.Factory.Cluster != "":
		return exit.UsageErrorf("%s and --cluster %q: --cluster names one cluster, the contexts are the kubeconfig's; give one of them", what, o.Factory.Cluster)
	case len(o.Adopt) > 0:
		return exit.UsageErrorf("%s and --id: --id adopts jobs of one timaker cluster (--cluster NAME); give one of them", what)
	case fl.server != "":
		return exit.UsageErrorf("%s and --server %q: --server would send every context's requests to one server; give one of them", what, fl.server)
	case len(fl.oneCluster) > 0:
		// (The values are not repeated: they may be secrets.)
		return exit.UsageErrorf("%s and %s: %s for one cluster would be sent to every context's server; each context's own are used, give one context to use %s",
			what, fl.oneCluster[0], fl.oneCluster[0], fl.oneCluster[0])
	}
	o.ManyContexts = true
	return nil
}

// completeContexts resolves the contexts to list, sorted: every one of the
// kubeconfig's, or those --context names, each of which must be one.
func (o *Options) completeContexts() error {
	known, err := o.Factory.Contexts()
	if err != nil {
		return err
	}
	if o.AllContexts {
		if len(known) == 0 {
			return exit.WithHint(fmt.Errorf("the kubeconfig has no contexts"), "point --kubeconfig or $KUBECONFIG at a kubeconfig")
		}
		o.Contexts = known
		return nil
	}
	if whole := o.connectionFlags().context; slices.Contains(known, whole) {
		// A context whose name holds a comma: that one context.
		o.ManyContexts = false
		return nil
	}
	for _, name := range o.ContextsAsked {
		if !slices.Contains(known, name) {
			return exit.UsageErrorf("--context %q: the kubeconfig has no such context (contexts: %s)", name, strings.Join(known, ", "))
		}
	}
	o.Contexts = slices.Sorted(slices.Values(o.ContextsAsked))
	return nil
}

// contextListing is what listing one context gave.
type contextListing struct {
	context  string
	platform platform.Platform
	jobs     []*platform.Job
	err      error
	// notes are its warnings, said after every context was listed, in
	// the order of the contexts.
	notes bytes.Buffer
}

// listContexts lists each context on its own clients, a few at once; a
// context that fails fails alone. Each request is bounded by
// --request-timeout, so a server that never answers costs that long.
func (o *Options) listContexts(ctx context.Context, opts platform.ListOptions) []*contextListing {
	out := make([]*contextListing, len(o.Contexts))
	slots := make(chan struct{}, maxContextsAtOnce)
	var wg sync.WaitGroup
	for i, name := range o.Contexts {
		l := &contextListing{context: name}
		out[i] = l
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			l.platform, l.err = o.Factory.PlatformFor(name, &prefixedLines{to: &l.notes, prefix: fmt.Sprintf("context %q: ", name)})
			if l.err == nil {
				l.jobs, l.err = l.platform.List(ctx, opts)
			}
		}()
	}
	wg.Wait()
	return out
}

// runContexts lists the contexts and prints their jobs, by context, then
// as one context's; it fails (exit 1) only when every context failed.
func (o *Options) runContexts(ctx context.Context, opts platform.ListOptions) error {
	listed, failed := o.sayFailures(o.listContexts(ctx, opts))
	if len(listed) == 0 {
		return exit.WithHint(fmt.Errorf("no context could be listed (%s)", strings.Join(contextNames(failed), ", ")),
			fmt.Sprintf("%s list --context NAME shows one context's error with its hint", o.Factory.ExecutableName))
	}
	now := o.Factory.Now()
	if o.Print.IsDocument() {
		return o.Print.PrintDocument(o.IO.Out, contextDocument(listed))
	}
	if o.Print.Format() == printers.FormatName {
		for _, l := range listed {
			for _, j := range l.jobs {
				fmt.Fprintf(o.IO.Out, "%s/%s\n", l.context, j)
			}
		}
		return nil
	}
	first := firstWithJobs(listed)
	if first == nil {
		names := contextNames(listed)
		what := "context "
		if len(names) > 1 {
			what = "contexts "
		}
		fmt.Fprintf(o.IO.ErrOut, "No jobs found in %s%s.\n", what, strings.Join(names, ", "))
		return nil
	}
	if err := o.printContextsTable(listed, now); err != nil {
		return err
	}
	if o.IO.IsStdoutTTY() {
		fmt.Fprintf(o.IO.ErrOut, "To see one of them: %s get %s --context %s\n", o.Factory.ExecutableName, first.platform.JobArgs(first.jobs[0]), first.context)
	}
	return nil
}

// sayFailures writes each listing's notes on stderr, in the order of the
// contexts, with a warning for each context that failed; it returns the
// listings that succeeded and those that failed.
func (o *Options) sayFailures(listings []*contextListing) (listed, failed []*contextListing) {
	for _, l := range listings {
		_, _ = l.notes.WriteTo(o.IO.ErrOut)
		if l.err != nil {
			fmt.Fprintf(o.IO.ErrOut, "Warning: context %q: %s\n", l.context, oneLine(l.err))
			failed = append(failed, l)
		} else {
			listed = append(listed, l)
		}
	}
	return listed, failed
}

// contextNames are the contexts of the listings.
func contextNames(listings []*contextListing) []string {
	names := make([]string, len(listings))
	for i, l := range listings {
		names[i] = l.context
	}
	return names
}

// contextDocument is the JobList of -o json: every context's jobs, each
// with its context.
func contextDocument(listed []*contextListing) contextList {
	doc := contextList{APIVersion: jobmodel.APIVersion, Kind: jobmodel.ListDocumentKind, Items: []contextItem{}}
	for _, l := range listed {
		for _, j := range l.jobs {
			doc.Items = append(doc.Items, contextItem{Context: l.context, Item: j.Item})
		}
	}
	return doc
}

// firstWithJobs is the first listing that has jobs, or nil.
func firstWithJobs(listed []*contextListing) *contextListing {
	for _, l := range listed {
		if len(l.jobs) > 0 {
			return l
		}
	}
	return nil
}

// printContextsTable is the table of one context with CONTEXT first, and
// NAMESPACE next unless -n named one namespace for every context.
func (o *Options) printContextsTable(listed []*contextListing, now time.Time) error {
	namespaces := o.AllNamespaces || o.connectionFlags().namespace == ""
	header := []string{"CONTEXT"}
	if namespaces {
		header = append(header, "NAMESPACE")
	}
	header = append(header, jobHeader(o.Print.Format() == printers.FormatWide)...)
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), header...)
	for _, l := range listed {
		for _, j := range l.jobs {
			row := []string{l.context}
			if namespaces {
				row = append(row, j.Item.Namespace)
			}
			t.AddRow(append(row, o.jobRow(j, now)...)...)
		}
	}
	return t.Render()
}

// contextList is list's document across contexts: a JobList whose items
// say their context.
type contextList struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Items      []contextItem `json:"items"`
}

type contextItem struct {
	Context string `json:"context"`
	jobmodel.Item
}

// oneLine is an error on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// prefixedLines writes each line with a prefix after "Warning: " (or
// before the line when it is not a warning).
type prefixedLines struct {
	to     io.Writer
	prefix string
	rest   []byte
}

func (w *prefixedLines) Write(p []byte) (int, error) {
	w.rest = append(w.rest, p...)
	for {
		i := bytes.IndexByte(w.rest, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(w.rest[:i+1])
		w.rest = w.rest[i+1:]
		if after, ok := strings.CutPrefix(line, "Warning: "); ok {
			line = "Warning: " + w.prefix + after
		} else {
			line = w.prefix + line
		}
		if _, err := io.WriteString(w.to, line); err != nil {
			return len(p), err
		}
	}
}
