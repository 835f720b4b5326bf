package list

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/easyai-dev/easyai/pkg/cmd/queue/queueclient"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/kueue"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/queue"
)

// LocalQueueList is list's document of Kueue's queues.
type LocalQueueList struct {
	APIVersion string             `json:"apiVersion"`
	Kind       string             `json:"kind"`
	Items      []kueue.LocalQueue `json:"items"`
}

// runKueue lists the namespace's LocalQueues, with the quotas of their
// ClusterQueues where the user may read them.
func (o *Options) runKueue(ctx context.Context) error {
	c, err := queueclient.Kueue(o.Factory)
	if err != nil {
		return err
	}
	ns, _, err := o.Factory.Namespace()
	if err != nil {
		return err
	}
	items, err := c.LocalQueues(ctx, ns)
	if err != nil {
		return err
	}
	o.clusterQueues(ctx, c, items)
	switch {
	case o.Print.IsDocument():
		return o.Print.PrintDocument(o.IO.Out, LocalQueueList{APIVersion: queue.APIVersion, Kind: "LocalQueueList", Items: items})
	case o.Print.Format() == printers.FormatName:
		for _, q := range items {
			fmt.Fprintln(o.IO.Out, q.Name)
		}
		return nil
	case len(items) == 0:
		fmt.Fprintf(o.IO.ErrOut, "No LocalQueues in namespace %s.\n", ns)
		return nil
	}
	gpu, err := gpuResource(o.Factory)
	if err != nil {
		return err
	}
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), "NAME", "CLUSTER-QUEUE", "ACTIVE", "PENDING", "ADMITTED", "GPUS")
	for _, q := range items {
		t.AddRow(q.Name, q.ClusterQueue, strconv.FormatBool(q.Active), strconv.Itoa(int(q.Pending)), strconv.Itoa(int(q.Admitted)), gpus(q, gpu))
	}
	if err := t.Render(); err != nil {
		return err
	}
	return printQuotas(o.IO.Out, items)
}

// clusterQueues reads the ClusterQueue of each LocalQueue, once each; one
// the user may not read is said once, and its quotas are not shown.
func (o *Options) clusterQueues(ctx context.Context, c *kueue.Client, items []kueue.LocalQueue) {
	read := map[string]*kueue.ClusterQueue{}
	for i, q := range items {
		cq, seen := read[q.ClusterQueue]
		if !seen {
			var err error
			cq, err = c.ClusterQueue(ctx, q.ClusterQueue)
			switch {
			case kube.Refused(err):
				fmt.Fprintf(o.IO.ErrOut, "Warning: ClusterQueue %s: quotas not shown (you may not read clusterqueues.kueue.x-k8s.io, which are cluster-wide)\n", q.ClusterQueue)
			case err != nil:
				fmt.Fprintf(o.IO.ErrOut, "Warning: ClusterQueue %s: %v\n", q.ClusterQueue, err)
			}
			read[q.ClusterQueue] = cq
		}
		items[i].ClusterQueueDetails = cq
	}
}

// gpus is the GPUs the LocalQueue's jobs use, over the nominal quota of its
// ClusterQueue ("-" where it cannot be read), over every flavor.
func gpus(q kueue.LocalQueue, gpu string) string {
	used := q.Usage.Sum(gpu)
	if q.ClusterQueueDetails == nil {
		return printers.GPUs(used) + "/-"
	}
	return printers.GPUs(used) + "/" + printers.GPUs(q.ClusterQueueDetails.Quota.Sum(gpu))
}

// printQuotas writes, for each ClusterQueue read, its quota, usage and
// borrowing per flavor and resource.
func printQuotas(w io.Writer, items []kueue.LocalQueue) error {
	var shown []string
	for _, q := range items {
		cq := q.ClusterQueueDetails
		if cq == nil || slices.Contains(shown, cq.Name) {
			continue
		}
		shown = append(shown, cq.Name)
		cohort := ""
		if cq.Cohort != "" {
			cohort = ", cohort " + cq.Cohort
		}
		fmt.Fprintf(w, "\nClusterQueue %s (%d pending, %d admitted%s):\n", cq.Name, cq.Pending, cq.Admitted, cohort)
		if err := queueclient.PrintQuota(w, cq); err != nil {
			return err
		}
	}
	return nil
}
