package jobclient

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// PodRowsAhead starts reading the pods of namespace as the API server's
// table (kube.PodRows) while the caller does something else (list's LISTs
// of jobs: the table then costs no round trip of its own), and returns
// what waits for them.
func (c *Client) PodRowsAhead(ctx context.Context, namespace string) func() ([]kube.PodRow, error) {
	type result struct {
		rows []kube.PodRow
		err  error
	}
	done := make(chan result, 1)
	go func() {
		rows, err := kube.PodRows(ctx, c.Kube, namespace)
		done <- result{rows, err}
	}()
	return sync.OnceValues(func() ([]kube.PodRow, error) {
		r := <-done
		return r.rows, r.err
	})
}

// quietStatuses are the pod statuses (kubectl's STATUS column) that say
// nothing is wrong, or not yet: running, done, being made or stopped.
var quietStatuses = map[string]bool{
	"Running": true, "Completed": true, "Succeeded": true, "Terminating": true,
	"ContainerCreating": true, "PodInitializing": true, "Pending": true, "SchedulingGated": true,
}

// PodReasons says, for each job whose pods show something wrong, which
// replica and what, in one short cell: "master-0: CrashLoopBackOff",
// "worker-1: OOMKilled (+2 more)". It reads the pods of namespace ("":
// every namespace) as the API server's table, once; and, only when a job
// has a pod waiting that says no more, the namespace's FailedScheduling
// (Unschedulable) or FailedMount (a missing Secret or ConfigMap) events.
// The result is indexed like jobs; "" where nothing is wrong, or the job
// succeeded. An error means the pods could not be read.
//
// rows, when not nil, gives the table of pods read ahead (PodRowsAhead).
func (c *Client) PodReasons(ctx context.Context, namespace string, jobs []Listed, rows func() ([]kube.PodRow, error)) ([]string, error) {
	if rows == nil {
		rows = func() ([]kube.PodRow, error) { return kube.PodRows(ctx, c.Kube, namespace) }
	}
	all, err := rows()
	if err != nil {
		return nil, err
	}
	byNamespace := map[string][]kube.PodRow{}
	for _, r := range all {
		byNamespace[r.Namespace] = append(byNamespace[r.Namespace], r)
	}
	for _, rs := range byNamespace {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Name < rs[j].Name })
	}

	out := make([]string, len(jobs))
	var unscheduled, making []waitingPods
	for i, j := range jobs {
		if j.Summary.Status.State == jobmodel.Succeeded {
			continue
		}
		p, ok := sortPods(j, byNamespace[j.Summary.Namespace])
		if !ok {
			continue
		}
		if len(p.wrong) > 0 {
			out[i] = cell(j.Summary.Name, p.wrong[0].Name, p.wrong[0].Status, len(p.wrong)-1)
			continue
		}
		if len(p.pending) > 0 {
			unscheduled = append(unscheduled, waitingPods{i, p.pending})
		}
		if len(p.starting) > 0 {
			making = append(making, waitingPods{i, p.starting})
		}
	}

	// Pods that wait say why only in events: read them once for all jobs,
	// and only when a job has such a pod.
	c.reasonsFromEvents(ctx, namespace, jobs, out, unscheduled, "FailedScheduling", "Unschedulable", func(string) bool { return true })
	c.reasonsFromConditions(ctx, jobs, out, unscheduled)
	c.reasonsFromEvents(ctx, namespace, jobs, out, making, "FailedMount", "FailedMount", kube.MissingObject)
	return out, nil
}

// maxConditionReads bounds the pods reasonsFromConditions reads, one GET
// each, 4 at a time.
const maxConditionReads = 10

// reasonsFromConditions fills out, for up to maxConditionReads waiting jobs
// that events gave no reason, with the reason of the PodScheduled condition
// of their first waiting pod ("Unschedulable"). A scheduler records that
// condition and its event together, but writes its events behind: a busy
// Volcano was seen writing them half a minute late, while the condition
// (what get shows) was there. Pods the user may not read leave out as it is.
func (c *Client) reasonsFromConditions(ctx context.Context, jobs []Listed, out []string, waiting []waitingPods) {
	var (
		wg   sync.WaitGroup
		sem  = make(chan struct{}, 4)
		read int
	)
	for _, wj := range waiting {
		if out[wj.job] != "" || len(wj.pods) == 0 {
			continue
		}
		if read++; read > maxConditionReads {
			break
		}
		wg.Add(1)
		go func(wj waitingPods) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			row := wj.pods[0]
			pod, err := c.Kube.CoreV1().Pods(row.Namespace).Get(ctx, row.Name, metav1.GetOptions{})
			if err != nil {
				return
			}
			for _, cond := range pod.Status.Conditions {
				if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse && cond.Reason != "" {
					// (Each goroutine writes its own job's cell; the
					// other pods were not read, so no "+N more".)
					out[wj.job] = cell(jobs[wj.job].Summary.Name, row.Name, cond.Reason, 0)
				}
			}
		}(wj)
	}
	wg.Wait()
}

// waitingPods are the pods of jobs[job] that wait and do not say why.
type waitingPods struct {
	job  int
	pods []kube.PodRow
}

// podsOfJob are a job's pods by what they show.
type podsOfJob struct {
	// wrong show a reason of their own (CrashLoopBackOff, OOMKilled).
	wrong []kube.PodRow
	// pending wait for a node; starting wait for their containers.
	pending, starting []kube.PodRow
}

// sortPods sorts the pods of job j among rows (its namespace's); false when
// the job's pod selector cannot be read.
func sortPods(j Listed, rows []kube.PodRow) (podsOfJob, bool) {
	var p podsOfJob
	selector, err := labels.Parse(j.Kind.PodSelector(j.Summary.Name))
	if err != nil {
		return p, false
	}
	for _, r := range rows {
		if !selector.Matches(labels.Set(r.Labels)) {
			continue
		}
		switch {
		case r.Status == "Pending":
			p.pending = append(p.pending, r)
		case r.Status == "ContainerCreating" || r.Status == "PodInitializing" || initializing(r.Status):
			p.starting = append(p.starting, r)
		case !quietStatuses[r.Status]:
			p.wrong = append(p.wrong, r)
		}
	}
	return p, true
}

// reasonsFromEvents fills out, for the waiting jobs that have no reason
// yet, with shown when a Warning event of reason (matching match) names one
// of their pods. Events the user may not read leave out as it is.
func (c *Client) reasonsFromEvents(ctx context.Context, namespace string, jobs []Listed, out []string, waiting []waitingPods, reason, shown string, match func(string) bool) {
	if len(waiting) == 0 {
		return
	}
	found, err := kube.PodWarnings(ctx, c.Kube, namespace, reason, match)
	if err != nil {
		return // events the user may not read: the operator's reason stays
	}
	for _, wj := range waiting {
		if out[wj.job] != "" {
			continue
		}
		var hit []kube.PodRow
		for _, r := range wj.pods {
			if _, ok := found[types.NamespacedName{Namespace: r.Namespace, Name: r.Name}]; ok {
				hit = append(hit, r)
			}
		}
		if len(hit) > 0 {
			out[wj.job] = cell(jobs[wj.job].Summary.Name, hit[0].Name, shown, len(hit)-1)
		}
	}
}

// initializing is true of "Init:N/M", init containers still running.
func initializing(status string) bool {
	rest, ok := strings.CutPrefix(status, "Init:")
	return ok && strings.Contains(rest, "/")
}

// cell is "TASK: WHY", TASK the pod's name without the job's ("master-0"),
// with how many more pods show something wrong; one line, the names and
// status being the cluster's.
func cell(job, pod, why string, more int) string {
	task := strings.TrimPrefix(pod, job+"-")
	s := jobmodel.OneLine(task + ": " + why)
	if more > 0 {
		s += fmt.Sprintf(" (+%d more)", more)
	}
	return s
}
