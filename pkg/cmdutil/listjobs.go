package cmdutil

import (
	"context"

	"github.com/easyai-dev/easyai/pkg/jobclient"
)

// ListJobs lists the jobs of the namespace (-n, else the context's) as
// list does: one LIST per kind, all kinds at once. A kind the user may not
// list is skipped with a warning on stderr; one the cluster does not serve
// is skipped quietly (said at -v 1). On a timaker cluster it fails with
// the factory's one line: the commands that use it need Kubernetes.
func ListJobs(ctx context.Context, f *Factory, opts jobclient.ListOptions) (namespace string, jobs []jobclient.Listed, err error) {
	return ListJobsIn(ctx, f, opts, false)
}

// ListJobsIn is ListJobs, in every namespace when allNamespaces (-A; the
// namespace returned is then "").
func ListJobsIn(ctx context.Context, f *Factory, opts jobclient.ListOptions, allNamespaces bool) (namespace string, jobs []jobclient.Listed, err error) {
	ns, client, err := NamespacedJobs(f)
	if err != nil {
		return "", nil, err
	}
	if allNamespaces {
		ns = ""
	}
	opts.Namespace = ns
	res, err := client.List(ctx, opts)
	if err != nil {
		return "", nil, err
	}
	res.ReportSkipped(f.IOStreams.ErrOut, ns)
	return ns, res.Jobs, nil
}
