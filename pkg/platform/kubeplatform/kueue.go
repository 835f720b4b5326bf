package kubeplatform

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/kueue"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// admit gives each job Kueue manages (labelled with a LocalQueue) its
// admission, read from its Workload: one LIST of Workloads per namespace
// that has such a job. A job Kueue holds back (suspended until admitted,
// evicted, deactivated) is Queued, not Suspended by its user. A namespace
// whose Workloads cannot be read is said once, and its jobs keep the state
// their operator gives them.
func (p *Platform) admit(ctx context.Context, dyn dynamic.Interface, summaries []*jobmodel.Summary) {
	var namespaces []string
	for _, s := range summaries {
		if s.Labels[kueue.QueueLabel] != "" && !slices.Contains(namespaces, s.Namespace) {
			namespaces = append(namespaces, s.Namespace)
		}
	}
	c := kueue.Client{Dynamic: dyn}
	admissions := map[string]jobmodel.Admission{}
	for _, ns := range namespaces {
		workloads, err := c.Workloads(ctx, ns, "")
		switch {
		case apierrors.IsNotFound(err):
			continue // Kueue is not installed
		case kube.Refused(err):
			fmt.Fprintf(p.Notes, "Warning: cannot list Kueue's Workloads in %s: forbidden; its queued jobs show their operator's state\n", ns)
			continue
		case err != nil:
			fmt.Fprintf(p.Notes, "Warning: cannot read Kueue's Workloads in %s: %s\n", ns, jobmodel.OneLine(err.Error()))
			continue
		}
		for uid, a := range kueue.Admissions(workloads, p.jobNamer()) {
			admissions[uid] = a
		}
	}
	for _, s := range summaries {
		if a, ok := admissions[s.UID]; ok && s.Labels[kueue.QueueLabel] != "" {
			applyAdmission(s, a)
		}
	}
}

// applyAdmission sets the admission of a job and, while Kueue holds it
// back (or its user deactivated it), its state.
func applyAdmission(s *jobmodel.Summary, a jobmodel.Admission) {
	s.Admission = &a
	s.Status = kueue.StatusOf(a, s.Status)
}

// withKueueHeld are the states list asks the cluster for: a job Kueue
// holds back is Suspended by its operator and Queued once its admission is
// read, so --state Queued asks for Suspended jobs too.
func withKueueHeld(states []jobmodel.State) []jobmodel.State {
	if slices.Contains(states, jobmodel.Queued) && !slices.Contains(states, jobmodel.Suspended) {
		return append(slices.Clone(states), jobmodel.Suspended)
	}
	return states
}

// admitListed gives the listed jobs Kueue manages their admission, then
// keeps those in states (none: all), as their state now is.
func (p *Platform) admitListed(ctx context.Context, dyn dynamic.Interface, jobs []jobclient.Listed, states []jobmodel.State) []jobclient.Listed {
	summaries := make([]*jobmodel.Summary, len(jobs))
	for i := range jobs {
		summaries[i] = &jobs[i].Summary
	}
	p.admit(ctx, dyn, summaries)
	if len(states) == 0 {
		return jobs
	}
	kept := jobs[:0]
	for _, j := range jobs {
		if slices.Contains(states, j.Summary.Status.State) {
			kept = append(kept, j)
		}
	}
	return kept
}

// AdmissionPollInterval is how often a wait for admission reads the
// namespace's Workloads.
var AdmissionPollInterval = 2 * time.Second

// waitAdmitted waits until Kueue admits the job: its Workload is Admitted
// (or Finished). Each change of where it stands is said on Notes ("Queued
// (2nd in team-a, waiting for ...)"). The job failing or deleted, or the
// timeout, end the wait as the other waits do (exit 4, 3, 5).
func (p *Platform) waitAdmitted(ctx context.Context, h *handle, client *jobclient.Client, req platform.WaitRequest) (*platform.Waited, error) {
	name := h.kind.Name() + "/" + h.obj.GetName()
	if h.obj.GetLabels()[kueue.QueueLabel] == "" {
		return nil, exit.UsageErrorf("--for admitted: %s is in no Kueue LocalQueue (no %s label): nothing admits it", name, kueue.QueueLabel)
	}
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	start, ns, uid := time.Now(), h.obj.GetNamespace(), string(h.obj.GetUID())
	c := kueue.Client{Dynamic: client.Dynamic}
	said := ""
	tick := time.NewTicker(AdmissionPollInterval)
	defer tick.Stop()
	for {
		if err := p.stillThere(ctx, h, client, name); err != nil {
			return nil, err
		}
		workloads, err := c.Workloads(ctx, ns, "")
		if err != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("reading Kueue's Workloads in %s: %w", ns, err)
		}
		if a, ok := kueue.Admissions(workloads, p.jobNamer())[uid]; ok {
			if s := a.String(); s != said {
				said = s
				fmt.Fprintf(p.Notes, "%s: %s\n", name, s)
			}
			if a.State == jobmodel.AdmissionAdmitted || a.State == jobmodel.AdmissionFinished {
				line := fmt.Sprintf("%s admitted after %s: %s", name, time.Since(start).Round(time.Second), a.String())
				return &platform.Waited{Line: line}, nil
			}
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return &platform.Waited{Line: name + " " + orWaiting(said)}, exit.TimeoutErrorf("%s not admitted after %s: %s", name, req.Timeout, orWaiting(said))
			}
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
}

func orWaiting(s string) string {
	if s == "" {
		return "no Workload made for it yet"
	}
	return s
}

// stillThere reads the job again: deleted is a not-found error (exit 3),
// failed a job-failed error (exit 4).
func (p *Platform) stillThere(ctx context.Context, h *handle, client *jobclient.Client, name string) error {
	obj, err := client.Dynamic.Resource(h.kind.Resource()).Namespace(h.obj.GetNamespace()).Get(ctx, h.obj.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) || (err == nil && obj.GetUID() != h.obj.GetUID()):
		return exit.NotFoundErrorf("%s was deleted while waiting for its admission", name)
	case err != nil:
		return err
	}
	if s, err := h.kind.Summarize(obj, client.GPUResource); err == nil && s.Status.State == jobmodel.Failed {
		return exit.JobFailedErrorf("%s failed before Kueue admitted it: %s", name, jobmodel.OneLine(s.Status.Message))
	}
	return nil
}

// jobNamer names the job of a Workload as easyai does ("tf/mnist").
func (p *Platform) jobNamer() kueue.JobNamer {
	return func(o kueue.Owner) string { return p.Kinds.JobName(o.APIVersion, o.Kind, o.Name) }
}

// quotas are the GPUs of Kueue's ClusterQueues (top node): none where the
// cluster serves no Kueue; a user who may not list them is told so once.
func (p *Platform) quotas(ctx context.Context) []platform.QueueQuota {
	if p.Jobs == nil {
		return nil
	}
	client, err := p.Jobs()
	if err != nil || client.Dynamic == nil {
		return nil
	}
	list, err := client.Dynamic.Resource(kueue.ClusterQueues).List(ctx, metav1.ListOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case kube.Refused(err):
		fmt.Fprintf(p.Notes, "Kueue's ClusterQueues not shown: you may not list them (examples/rbac/easyai-kueue-reader.yaml)\n")
		return nil
	case err != nil:
		fmt.Fprintf(p.Notes, "Warning: Kueue's ClusterQueues not shown: %s\n", jobmodel.OneLine(err.Error()))
		return nil
	}
	var out []platform.QueueQuota
	for i := range list.Items {
		cq, err := kueue.ClusterQueueOf(&list.Items[i])
		if err != nil {
			continue
		}
		q := platform.QueueQuota{Name: cq.Name, Cohort: cq.Cohort, Pending: cq.Pending, Admitted: cq.Admitted}
		for _, gpu := range p.gpuResources() {
			q.GPUs += cq.Quota.Sum(string(gpu))
			q.Used += cq.Usage.Sum(string(gpu))
			q.Borrowed += cq.Borrowed.Sum(string(gpu))
		}
		out = append(out, q)
	}
	return out
}
