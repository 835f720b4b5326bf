package get

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/easyai-dev/easyai/pkg/cmd/queue/queueclient"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/kueue"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/queue"
)

// localQueueDocument is get's document of a LocalQueue: the queue, its
// ClusterQueue where readable, and its workloads, waiting ones first in
// the order Kueue admits them.
type localQueueDocument struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	*kueue.LocalQueue
	Workloads []queuedWorkload `json:"workloads"`
}

// queuedWorkload is one job in the LocalQueue.
type queuedWorkload struct {
	Job      string `json:"job"`
	Priority int32  `json:"priority"`
	jobmodel.Admission
}

// runKueue shows one LocalQueue of the namespace.
func (o *Options) runKueue(ctx context.Context) error {
	if o.AllNamespaces {
		return exit.UsageErrorf("-A: a LocalQueue is one namespace's; give -n NAMESPACE")
	}
	c, err := queueclient.Kueue(o.Factory)
	if err != nil {
		return err
	}
	lq, err := c.LocalQueue(ctx, o.namespace, o.Name)
	if apierrors.IsNotFound(err) {
		names := "none"
		if all, lerr := c.LocalQueues(ctx, o.namespace); lerr == nil && len(all) > 0 {
			var n []string
			for _, q := range all {
				n = append(n, q.Name)
			}
			names = strings.Join(n, ", ")
		}
		return exit.NotFoundErrorf("LocalQueue %s not found in namespace %s (it has: %s)", o.Name, o.namespace, names)
	}
	if err != nil {
		return err
	}
	cq, err := c.ClusterQueue(ctx, lq.ClusterQueue)
	switch {
	case kube.Refused(err):
		fmt.Fprintf(o.IO.ErrOut, "Warning: ClusterQueue %s: its quotas, flavors and cohort are not shown (you may not read clusterqueues.kueue.x-k8s.io, which are cluster-wide)\n", lq.ClusterQueue)
	case err != nil:
		fmt.Fprintf(o.IO.ErrOut, "Warning: ClusterQueue %s: %v\n", lq.ClusterQueue, err)
	default:
		lq.ClusterQueueDetails = cq
	}
	doc := localQueueDocument{APIVersion: queue.APIVersion, Kind: "LocalQueue", LocalQueue: lq, Workloads: []queuedWorkload{}}
	workloads, err := c.Workloads(ctx, o.namespace, "")
	if err != nil {
		fmt.Fprintf(o.IO.ErrOut, "Warning: its workloads are not shown: %v\n", jobmodel.OneLine(err.Error()))
	}
	doc.Workloads = inLine(lq.Name, workloads, func(ow kueue.Owner) string { return o.Factory.Kinds.JobName(ow.APIVersion, ow.Kind, ow.Name) })
	if o.Print.IsDocument() {
		return o.Print.PrintDocument(o.IO.Out, doc)
	}
	return printLocalQueue(o.IO.Out, &doc)
}

// inLine are the workloads of the LocalQueue: those waiting first, in the
// order Kueue admits them, then those admitted.
func inLine(name string, workloads []kueue.Workload, jobName kueue.JobNamer) []queuedWorkload {
	admissions := kueue.Admissions(workloads, jobName)
	out := []queuedWorkload{}
	for _, w := range workloads {
		a := admissions[w.JobUID]
		if w.Queue != name || a.State == jobmodel.AdmissionFinished {
			continue
		}
		out = append(out, queuedWorkload{Job: orDash(jobmodel.OneLine(jobName(w.Job))), Priority: w.Priority, Admission: a})
	}
	slices.SortStableFunc(out, func(a, b queuedWorkload) int {
		switch {
		case a.Position > 0 && b.Position > 0:
			return a.Position - b.Position
		case a.Position > 0:
			return -1
		case b.Position > 0:
			return 1
		}
		return strings.Compare(a.Job, b.Job)
	})
	return out
}

// printLocalQueue writes the LocalQueue, its ClusterQueue and its jobs.
func printLocalQueue(w io.Writer, doc *localQueueDocument) error {
	lq := doc.LocalQueue
	fmt.Fprintf(w, "Name:          %s\n", lq.Name)
	fmt.Fprintf(w, "Namespace:     %s\n", lq.Namespace)
	fmt.Fprintf(w, "ClusterQueue:  %s\n", lq.ClusterQueue)
	active := "yes"
	if !lq.Active {
		active = "no: " + orDash(lq.Reason)
	}
	fmt.Fprintf(w, "Admits:        %s\n", active)
	fmt.Fprintf(w, "Workloads:     %d pending, %d admitted\n", lq.Pending, lq.Admitted)
	if cq := lq.ClusterQueueDetails; cq != nil {
		fmt.Fprintf(w, "Cohort:        %s\n", orDash(cq.Cohort))
		fmt.Fprintf(w, "Fair sharing:  weight %s\n", orDefault(cq.Weight, "1 (Kueue's default)"))
		fmt.Fprintf(w, "Queueing:      %s\n", orDefault(cq.QueueingStrategy, "BestEffortFIFO"))
		fmt.Fprintf(w, "Flavors:       %s\n", strings.Join(cq.Flavors, ", "))
		fmt.Fprintln(w, "Quota:")
		if err := queueclient.PrintQuota(w, cq); err != nil {
			return err
		}
	}
	if len(doc.Workloads) == 0 {
		fmt.Fprintln(w, "Jobs: none")
		return nil
	}
	fmt.Fprintln(w, "Jobs (waiting ones in the order Kueue admits them):")
	t := printers.NewTable(w, true, "  #", "JOB", "PRIORITY", "STATE")
	for _, q := range doc.Workloads {
		pos := "-"
		if q.Position > 0 {
			pos = strconv.Itoa(q.Position)
		}
		t.AddRow("  "+pos, q.Job, strconv.Itoa(int(q.Priority)), q.Admission.String())
	}
	return t.Render()
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
