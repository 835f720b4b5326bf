// Package job is "easyai top job": the GPUs each job holds, how long it
// ran and the GPU-hours it used.
package job

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kueue"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// Options of top job.
type Options struct {
	Factory       *cmdutil.Factory
	IO            *iostreams.IOStreams
	Print         *printers.PrintFlags
	AllNamespaces bool
	Experiment    string
	User          string
	Since         cmdutil.Days
}

// NewCmdJob returns "top job"; runF replaces Complete and Run in tests.
func NewCmdJob(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a table",
		printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:     "job",
		Aliases: []string{"jobs"},
		Short:   "Show the GPUs each job holds and the GPU-hours it used",
		Long: `Show, for each running job of the namespace (every namespace with -A), the
GPUs it holds, how long it has run and its GPU-hours so far (GPUs times hours
running), the job holding the most GPUs first, and a total line.

--since 7d (or 36h, 1d12h) adds the jobs that ran in that window and have
ended, from their start and end times, and counts every job's time and
GPU-hours within the window only: the cost of the last week. A job counts
the GPUs it asks for over every replica; time suspended after it started
counts as running.

CPU USE and MEMORY USE are what the job's pods use now, from the metrics API
(metrics-server), one LIST of pod metrics; a cluster without it, or a user
who may not read it, gets "-" there. The rest comes from the job objects
alone, as list: one LIST per kind, none per job.

-o json and -o yaml print a JobUsageList document (docs/output.md).`,
		Example: `  easyai top job
  easyai top job -A --since 7d
  easyai top job --experiment lr-sweep --since 30d -o json | jq '.total.gpuHours'
  easyai top job --user alice@example.com`,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	o.Print.AddFlags(cmd)
	fl := cmd.Flags()
	fl.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "the jobs of every namespace")
	fl.StringVar(&o.Experiment, "experiment", "", "only the jobs of this experiment")
	fl.StringVar(&o.User, "user", "", "only the jobs this user submitted")
	fl.Var(&o.Since, "since", "also the jobs that ended in this window, everything counted within it: 7d, 36h, 1d12h")
	return cmd
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	if o.Since.D < 0 {
		return exit.UsageErrorf("--since %s: must not be negative", o.Since.String())
	}
	return jobclient.CheckSelection("", o.Experiment)
}

// Complete has nothing to resolve: Run lists through the factory's clients.
func (o *Options) Complete() error { return nil }

// Run lists the jobs and prints what they hold and used.
func (o *Options) Run(ctx context.Context) error {
	ns, jobs, err := cmdutil.ListJobsIn(ctx, o.Factory, jobclient.ListOptions{Experiment: o.Experiment, User: o.User}, o.AllNamespaces)
	if err != nil {
		return err
	}
	doc := jobclient.UsageOf(jobs, o.Factory.Now(), o.Since.D)
	if len(doc.Items) > 0 {
		o.addPodUsage(ctx, ns, &doc)
	}
	doc.Queues = o.localQueues(ctx, ns)
	if o.Print.IsDocument() {
		return o.Print.PrintDocument(o.IO.Out, doc)
	}
	if len(doc.Items) == 0 {
		o.sayNone(ns)
	} else if err := o.printTable(&doc); err != nil {
		return err
	}
	return o.printQueues(doc.Queues)
}

// addPodUsage fills each job's Usage with what its pods use now, from the
// metrics API; without it (or the right to read it) they stay unknown.
func (o *Options) addPodUsage(ctx context.Context, ns string, doc *jobclient.JobUsageList) {
	client, err := o.Factory.JobsClient()
	if err != nil {
		return
	}
	usage := client.JobPodUsage(ctx, ns)
	if usage == nil {
		return
	}
	for i := range doc.Items {
		item := &doc.Items[i]
		if u, ok := usage[item.Namespace+"/"+item.Name]; ok {
			item.Usage = &u
		}
	}
}

// sayNone says on stderr that no job ran in the namespace (or any, -A),
// within --since's window when given.
func (o *Options) sayNone(ns string) {
	where := "in namespace " + ns
	if o.AllNamespaces {
		where = "in any namespace"
	}
	if o.Since.D > 0 {
		fmt.Fprintf(o.IO.ErrOut, "No job ran %s in the last %s.\n", where, printers.HumanDuration(o.Since.D))
	} else {
		fmt.Fprintf(o.IO.ErrOut, "No running jobs %s.\n", where)
	}
}

// printTable writes a row per job (NAMESPACE first with -A) and the total.
func (o *Options) printTable(doc *jobclient.JobUsageList) error {
	headers := []string{"JOB", "USER", "STATUS", "GPUS", "RUNNING", "GPU-HOURS", "CPU USE", "MEMORY USE"}
	if o.AllNamespaces {
		headers = append([]string{"NAMESPACE"}, headers...)
	}
	t := printers.NewTable(o.IO.Out, o.IO.IsStdoutTTY(), headers...)
	for _, u := range doc.Items {
		cpu, memory := "-", "-"
		if u.Usage != nil {
			cpu, memory = printers.Cores(u.Usage.CPU), printers.Bytes(int64(u.Usage.Memory))
		}
		user := u.User
		if user == "" {
			user = "-"
		}
		row := []string{u.KindName + "/" + u.Name, user, string(u.State), printers.GPUs(u.GPUsHeld),
			printers.HumanDuration(time.Duration(u.RunningSeconds) * time.Second), gpuHours(u.GPUHours), cpu, memory}
		if o.AllNamespaces {
			row = append([]string{u.Namespace}, row...)
		}
		t.AddRow(row...)
	}
	total := []string{"total", "", "", printers.GPUs(doc.Total.GPUsHeld), "", gpuHours(doc.Total.GPUHours), "", ""}
	if o.AllNamespaces {
		total = append([]string{""}, total...)
	}
	t.AddRow(total...)
	return t.Render()
}

// gpuHours prints GPU-hours to a tenth.
func gpuHours(h float64) string { return strconv.FormatFloat(h, 'f', 1, 64) }

// localQueues are the Kueue LocalQueues of ns ("" with -A: every
// namespace), each with its ClusterQueue where the user may read it; none
// where the cluster runs no Kueue or the user may not list them.
func (o *Options) localQueues(ctx context.Context, ns string) []kueue.LocalQueue {
	jobs, err := o.Factory.JobsClient()
	if err != nil || jobs.Dynamic == nil {
		return nil
	}
	if o.AllNamespaces {
		ns = ""
	}
	c := &kueue.Client{Dynamic: jobs.Dynamic}
	queues, err := c.LocalQueues(ctx, ns)
	if err != nil {
		return nil // (no Kueue, or no right to see its queues: nothing to count)
	}
	read := map[string]*kueue.ClusterQueue{}
	for i, q := range queues {
		cq, ok := read[q.ClusterQueue]
		if !ok {
			cq, _ = c.ClusterQueue(ctx, q.ClusterQueue)
			read[q.ClusterQueue] = cq
		}
		queues[i].ClusterQueueDetails = cq
	}
	return queues
}

// printQueues writes the GPUs each LocalQueue's jobs use, and its
// ClusterQueue's GPUs used of their nominal quota ("-" where not readable).
func (o *Options) printQueues(queues []kueue.LocalQueue) error {
	if len(queues) == 0 {
		return nil
	}
	gpu, err := o.Factory.Config()
	if err != nil {
		return err
	}
	fmt.Fprintln(o.IO.Out, "\nKueue LocalQueues:")
	t := printers.NewTable(o.IO.Out, true, "  LOCAL-QUEUE", "CLUSTER-QUEUE", "GPUS USED", "PENDING", "ADMITTED", "CLUSTER-QUEUE GPUS")
	for _, q := range queues {
		name := q.Name
		if o.AllNamespaces {
			name = q.Namespace + "/" + q.Name
		}
		cq := "-"
		if d := q.ClusterQueueDetails; d != nil {
			cq = printers.GPUs(d.Usage.Sum(gpu.GPUResource)) + "/" + printers.GPUs(d.Quota.Sum(gpu.GPUResource))
		}
		t.AddRow("  "+name, q.ClusterQueue, printers.GPUs(q.Usage.Sum(gpu.GPUResource)), strconv.Itoa(int(q.Pending)), strconv.Itoa(int(q.Admitted)), cq)
	}
	return t.Render()
}
