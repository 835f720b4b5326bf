// Package timakerplatform is the timaker platform: jobs are training jobs of a
// timaker service, reached over HTTP through Ti-Gateway (pkg/timaker). A job
// runs one role: InstanceCount copies of one image and command. timaker has
// no list action, so the jobs submitted from this machine are kept in a
// local index (Index); their status is always read from timaker.
package timakerplatform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/timaker"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// The document fields of a timaker job (docs/output.md).
const (
	ObjectAPIVersion = "timaker/" + timaker.VersionTimaker
	ObjectKind       = "TrainingJob"
	// JobSource is TrainingJobSource of the jobs easyai creates.
	JobSource = "easyai"
)

// describeConcurrency bounds the Describe calls list makes at once.
const describeConcurrency = 8

// Platform is one timaker cluster of the configuration.
type Platform struct {
	Cluster config.Cluster
	Client  *timaker.Client
	Index   *Index
	Kinds   *kinds.Registry
	// Notes receives warnings (stderr).
	Notes io.Writer
	Now   func() time.Time
	// PollInterval is Wait's first pause between two Describes (it doubles
	// up to MaxPollInterval); zero: 1s and 15s.
	PollInterval, MaxPollInterval time.Duration
}

var _ platform.Platform = (*Platform)(nil)

// Where is "timaker cluster NAME".
func (p *Platform) Where() string { return "timaker cluster " + p.Cluster.Name }

// JobArgs is "NAME --cluster CLUSTER".
func (p *Platform) JobArgs(job *platform.Job) string {
	return job.Item.Name + " --cluster " + p.Cluster.Name
}

func (p *Platform) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

func (p *Platform) jobRequest(id string) *timaker.JobRequest {
	return &timaker.JobRequest{Uin: p.Cluster.Uin, TiProjectId: p.Cluster.ProjectID, TrainingJobId: id}
}

// handle is a job's state on timaker: its record and its last description.
type handle struct {
	record Record
	tj     *timaker.TrainingJob
}

func handleOf(job *platform.Job) (*handle, error) {
	h, ok := job.Handle.(*handle)
	if !ok {
		return nil, fmt.Errorf("%s is not a timaker job", job)
	}
	return h, nil
}

// Find finds the job by its name in the index, or by its timaker id: a job
// submitted elsewhere is then adopted into the index.
func (p *Platform) Find(ctx context.Context, ref kinds.Ref) (*platform.Job, error) {
	records, err := p.Index.Records()
	if err != nil {
		return nil, err
	}
	var matches []Record
	for _, r := range records {
		if (r.Name == ref.Name || r.ID == ref.Name) && (ref.Kind == nil || ref.Kind.Name() == r.Kind) {
			matches = append(matches, r)
		}
	}
	switch {
	case len(matches) > 1:
		ids := make([]string, len(matches))
		for i, m := range matches {
			ids[i] = m.ID
		}
		return nil, exit.UsageErrorf("%d jobs are named %s in %s: name one by its id (%s)", len(matches), ref.Name, p.Where(), strings.Join(ids, ", "))
	case len(matches) == 1:
		return p.describe(ctx, matches[0])
	}
	// Not in the index: maybe the id of a job submitted elsewhere.
	tj, err := p.Client.DescribeTrainingJob(ctx, p.jobRequest(ref.Name))
	if exit.Code(err) == exit.NotFound {
		return nil, exit.WithHint(exit.NotFoundErrorf("job %s not found in %s", ref, p.Where()),
			"easyai lists the jobs submitted from this machine; name a job submitted elsewhere by its timaker id")
	}
	if err != nil {
		return nil, err
	}
	r := Record{ID: ref.Name, Name: ref.Name, Submitted: p.now(), Adopted: true}
	if err := p.Index.Add(r); err != nil {
		fmt.Fprintf(p.Notes, "Warning: %v\n", err)
	} else {
		fmt.Fprintf(p.Notes, "Adopted timaker job %s into the local job list of %s.\n", ref.Name, p.Where())
	}
	return p.jobOf(r, tj), nil
}

// describe reads a recorded job's status from timaker.
func (p *Platform) describe(ctx context.Context, r Record) (*platform.Job, error) {
	tj, err := p.Client.DescribeTrainingJob(ctx, p.jobRequest(r.ID))
	if exit.Code(err) == exit.NotFound {
		return nil, exit.WithHint(exit.NotFoundErrorf("job %s (%s) not found in %s", r.Name, r.ID, p.Where()),
			fmt.Sprintf("timaker no longer knows it; easyai delete %s --cluster %s forgets it here", r.ID, p.Cluster.Name))
	}
	if err != nil {
		return nil, err
	}
	return p.jobOf(r, tj), nil
}

// jobOf is the platform's job of a record and its description.
func (p *Platform) jobOf(r Record, tj *timaker.TrainingJob) *platform.Job {
	s := jobmodel.Summary{
		Name: r.Name, APIKind: ObjectKind,
		Status:     Status(tj),
		User:       r.User,
		Experiment: r.Experiment,
		Workers:    jobmodel.ReplicaCount{Total: r.Instances},
		GPUs:       r.GPUs,
		Created:    r.Submitted,
		Labels:     r.Labels,
	}
	if !r.Adopted {
		s.ManagedBy = jobmodel.ManagedByValue
	}
	if created, err := timaker.ParseTime(tj.TrainingCreateTime); err == nil && created != nil {
		s.Created = *created
	}
	state := s.Status.State
	if state == jobmodel.Running || state.Final() || state == jobmodel.Stopping || state == jobmodel.Stopped {
		// timaker says when a job was created and ended, not when it
		// started: its duration counts from its creation.
		started := s.Created
		s.Started = &started
	}
	if state == jobmodel.Running {
		s.Workers.Ready = r.Instances
	}
	if end, err := timaker.ParseTime(tj.TrainingEndTime); err == nil && end != nil {
		s.Finished = end
	}
	item := jobmodel.Item{Summary: s, KindName: r.Kind, ObjectAPIVersion: ObjectAPIVersion, ObjectKind: ObjectKind,
		DurationSeconds: int64(s.Duration(p.now()) / time.Second), Labels: r.Labels}
	raw := map[string]any{
		"apiVersion": ObjectAPIVersion, "kind": ObjectKind,
		"cluster":     p.Cluster.Name,
		"record":      r,
		"description": tj,
	}
	return &platform.Job{Item: item, Raw: raw, Handle: &handle{record: r, tj: tj}}
}

// Status maps a timaker status onto easyai's states; the status itself is
// the reason, FailureCode and FailureReason the message. They come from the
// service: made safe to print on one line of a terminal.
func Status(tj *timaker.TrainingJob) jobmodel.Status {
	code, reason := timaker.OneLine(tj.FailureCode, 100), timaker.OneLine(tj.FailureReason, 1000)
	st := jobmodel.Status{State: State(tj.TrainingJobStatus), Reason: timaker.OneLine(tj.TrainingJobStatus, 100)}
	switch {
	case code != "" && reason != "":
		st.Message = code + ": " + reason
	default:
		st.Message = code + reason
	}
	return st
}

// State is easyai's state of a timaker status.
func State(status string) jobmodel.State {
	switch status {
	case "Completed":
		return jobmodel.Succeeded
	case "Failed", "Evicted":
		return jobmodel.Failed
	case "JobReceived", "PrepareInstance", "InstanceReady", "PreResume", "Resuming":
		return jobmodel.Pending
	case "Training", "Suspending":
		return jobmodel.Running
	case "PreStopped", "Stopping", "Suspended", "PreSuspend":
		return jobmodel.Stopping
	case "Stopped":
		return jobmodel.Stopped
	}
	return jobmodel.Unknown
}

// Describe is get's document: what the index and timaker know. A timaker
// job has no namespace, replicas or events (docs/output.md).
func (p *Platform) Describe(ctx context.Context, job *platform.Job) (*jobmodel.Document, error) {
	h, err := handleOf(job)
	if err != nil {
		return nil, err
	}
	doc := &jobmodel.Document{
		APIVersion: jobmodel.APIVersion,
		Item:       job.Item,
		Image:      h.record.Image,
		Replicas:   []jobmodel.Replica{},
		Events:     []jobmodel.Event{},
	}
	doc.DocumentKind = jobmodel.JobDocumentKind
	if h.record.Command != "" {
		doc.Command = []string{"sh", "-c", h.record.Command}
	}
	return doc, nil
}

// List describes every job of the index, a few at a time, and keeps those
// the options select. A job timaker no longer knows is listed as Unknown;
// one whose description fails is too, with a warning.
func (p *Platform) List(ctx context.Context, opts platform.ListOptions) ([]*platform.Job, error) {
	for _, id := range opts.Adopt {
		if _, err := p.Find(ctx, kinds.Ref{Name: id}); err != nil {
			return nil, err
		}
	}
	kept, err := p.selectRecords(opts)
	if err != nil {
		return nil, err
	}
	jobs, failures := p.describeAll(ctx, kept)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for _, f := range failures {
		fmt.Fprintf(p.Notes, "Warning: cannot read job %s\n", f)
	}
	if len(kept) > 0 && len(failures) == len(kept) {
		return nil, fmt.Errorf("cannot read any job of %s", p.Where())
	}
	out := jobs[:0]
	for _, j := range jobs {
		if len(opts.States) == 0 || slices.Contains(opts.States, j.Item.Status.State) {
			out = append(out, j)
		}
	}
	// Newest first; timaker's times are to the second, the index's finer.
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Item.Created, out[j].Item.Created
		if !a.Equal(b) {
			return a.After(b)
		}
		return out[i].Handle.(*handle).record.Submitted.After(out[j].Handle.(*handle).record.Submitted)
	})
	return out, nil
}

// selectRecords are the records of the index the options select (all but
// the states, which only timaker knows).
func (p *Platform) selectRecords(opts platform.ListOptions) ([]Record, error) {
	records, err := p.Index.Records()
	if err != nil {
		return nil, err
	}
	sel := labels.Everything()
	if opts.Selector != "" {
		if sel, err = labels.Parse(opts.Selector); err != nil {
			return nil, exit.UsageErrorf("-l %q: %v", opts.Selector, err)
		}
	}
	user := opts.User
	if opts.Mine {
		user = p.Cluster.Uin
	}
	var kept []Record
	for _, r := range records {
		switch {
		case opts.ManagedOnly && r.Adopted,
			opts.Experiment != "" && r.Experiment != opts.Experiment,
			user != "" && r.User != user,
			!sel.Matches(labels.Set(r.Labels)),
			len(opts.Kinds) > 0 && !slices.ContainsFunc(opts.Kinds, func(k kinds.Kind) bool { return k.Name() == r.Kind }):
			continue
		}
		kept = append(kept, r)
	}
	return kept, nil
}

// describeAll describes the jobs of records, describeConcurrency at a
// time. A job timaker no longer knows is NotFound; one whose description
// failed is Unreadable, and a failure, sorted, says why.
func (p *Platform) describeAll(ctx context.Context, records []Record) (jobs []*platform.Job, failures []string) {
	jobs = make([]*platform.Job, len(records))
	var wg sync.WaitGroup
	sem := make(chan struct{}, describeConcurrency)
	var mu sync.Mutex
	for i, r := range records {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			tj, err := p.Client.DescribeTrainingJob(ctx, p.jobRequest(r.ID))
			if err != nil {
				reason := "Unreadable"
				if exit.Code(err) == exit.NotFound {
					reason = "NotFound"
				} else {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%s (%s): %v", r.Name, r.ID, err))
					mu.Unlock()
				}
				tj = &timaker.TrainingJob{TrainingJobId: r.ID, TrainingJobStatus: reason}
			}
			jobs[i] = p.jobOf(r, tj)
		})
	}
	wg.Wait()
	sort.Strings(failures)
	return jobs, failures
}

// Delete stops the job (StopTrainingJob; timaker has no delete: the job
// stays in timaker's own records) and forgets it in the index.
func (p *Platform) Delete(ctx context.Context, job *platform.Job) error {
	h, err := handleOf(job)
	if err != nil {
		return err
	}
	state := job.Item.Status.State
	if !state.Final() && state != jobmodel.Stopped && state != jobmodel.Stopping {
		err := p.Client.StopTrainingJob(ctx, p.jobRequest(h.record.ID))
		if err != nil && exit.Code(err) != exit.NotFound {
			return err
		}
	}
	return p.Index.Remove(h.record.ID)
}

// Wait polls the job's status (1s, doubling to 15s, with jitter) until it
// reaches the condition. A stopped job ends a wait for it to finish with
// exit 4, as a failure: it did not succeed.
func (p *Platform) Wait(ctx context.Context, job *platform.Job, req platform.WaitRequest) (*platform.Waited, error) {
	h, err := handleOf(job)
	if err != nil {
		return nil, err
	}
	if req.For == waiter.Suspended {
		return nil, exit.UsageErrorf("--for suspended: timaker jobs are not suspended by easyai")
	}
	if req.For == waiter.Admitted {
		return nil, exit.UsageErrorf("--for admitted: Kueue's admission is a Kubernetes cluster's; timaker has none")
	}
	w := &poll{p: p, req: req, start: p.now(), current: job}
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	pause := p.PollInterval
	if pause <= 0 {
		pause = time.Second
	}
	maxPause := p.MaxPollInterval
	if maxPause <= 0 {
		maxPause = 15 * time.Second
	}
	for {
		if done, werr := reached(w.current, req.For); done {
			return w.waited(ctx), werr
		}
		w.started(ctx)
		timer := time.NewTimer(pause + rand.N(pause/2+1))
		select {
		case <-ctx.Done():
			timer.Stop()
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return w.waited(ctx), exit.TimeoutErrorf("%s: still %s after %s (--timeout)", w.current, w.current.Item.Status.State, req.Timeout)
			}
			return w.waited(ctx), ctx.Err()
		case <-timer.C:
		}
		pause = min(pause*2, maxPause)
		next, err := p.describe(ctx, h.record)
		switch {
		case err == nil:
			w.current = next
		case ctx.Err() != nil:
			// The loop reports the timeout or the interrupt.
		default:
			return nil, err
		}
	}
}

// poll is one Wait: the job as last seen.
type poll struct {
	p       *Platform
	req     platform.WaitRequest
	start   time.Time
	current *platform.Job
	// sawRunning: req.Started was called.
	sawRunning bool
}

// waited is how the wait ended, as last seen.
func (w *poll) waited(ctx context.Context) *platform.Waited {
	waited := &platform.Waited{Line: fmt.Sprintf("%s %s after %s", w.current, w.current.Item.Status.State, w.p.now().Sub(w.start).Round(time.Second))}
	if w.req.Document {
		waited.Document, _ = w.p.Describe(ctx, w.current)
	}
	return waited
}

// started calls req.Started the first time the job is seen running.
func (w *poll) started(ctx context.Context) {
	if w.current.Item.Status.State != jobmodel.Running || w.sawRunning || w.req.Started == nil {
		return
	}
	w.sawRunning = true
	var doc *jobmodel.Document
	if w.req.Document {
		doc, _ = w.p.Describe(ctx, w.current)
	}
	w.req.Started(doc)
}

// reached says whether the job's state ends a wait for c, and with which
// error: 4 when it failed or was stopped before reaching c.
func reached(job *platform.Job, c waiter.Condition) (bool, error) {
	st := job.Item.Status
	why := st.Reason
	if st.Message != "" {
		why += ": " + st.Message
	}
	switch st.State {
	case jobmodel.Failed:
		return true, exit.JobFailedErrorf("%s failed (%s)", job, why)
	case jobmodel.Stopped:
		return true, exit.JobFailedErrorf("%s was stopped (%s)", job, why)
	case jobmodel.Succeeded:
		return true, nil
	case jobmodel.Running:
		return c == waiter.Running, nil
	}
	return false, nil
}

// Logs: timaker has no logs API.
func (p *Platform) Logs(context.Context, *platform.Job, platform.LogRequest) error {
	return exit.WithHint(fmt.Errorf("%s has no logs API: %w", p.Where(), platform.ErrUnsupported),
		"a job submitted with --fs can write its log to that file system (docs/timaker.md)")
}

// Resources is the app group's two pools (train and elastic): total,
// and what is not available counted as allocated.
func (p *Platform) Resources(ctx context.Context, _ platform.ResourceRequest) (*platform.Resources, error) {
	group := p.Cluster.AppGroupID
	if group == 0 {
		group = p.Cluster.ProjectID
	}
	total, avail, err := p.Client.DescribeResource(ctx, &timaker.ResourceRequest{Uin: p.Cluster.Uin, AppGroupId: group})
	if err != nil {
		return nil, err
	}
	res := &platform.Resources{What: "POOL", Total: platform.ResourceRow{Name: "total", Pods: -1}}
	for _, pool := range []struct {
		name        string
		total, free timaker.ResourceAmounts
	}{{"train", total.Train, avail.Train}, {"elastic", total.Elastic, avail.Elastic}} {
		row := platform.ResourceRow{Name: pool.name, Pods: -1,
			CPU:    amount(pool.total.Cpu, pool.free.Cpu, 1000),
			Memory: amount(pool.total.Memory, pool.free.Memory, 1.0/(1<<20)),
		}
		var types []string
		for _, g := range []struct {
			name        string
			total, free int64
		}{{"vGPU", pool.total.VGpu, pool.free.VGpu}, {"V100", pool.total.V100, pool.free.V100}, {"A100", pool.total.A100, pool.free.A100},
			{"T4", pool.total.T4, pool.free.T4}, {"P40", pool.total.P40, pool.free.P40}} {
			if g.total == 0 && g.free == 0 {
				continue
			}
			types = append(types, g.name)
			row.GPUs.Add(amount(g.total, g.free, 100))
		}
		row.GPUType = strings.Join(types, ",")
		res.Rows = append(res.Rows, row)
		res.Total.GPUs.Add(row.GPUs)
		res.Total.CPU.Add(row.CPU)
		res.Total.Memory.Add(row.Memory)
	}
	return res, nil
}

// amount converts timaker's units: per is how many of its units make one
// of easyai's (1000 per core, 100 per GPU, 1/2^20 MB per byte).
func amount(total, free int64, per float64) platform.Amount {
	return platform.Amount{Capacity: float64(total) / per, Allocated: float64(total-free) / per}
}
