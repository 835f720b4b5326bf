package create

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cron"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// volcanoObjects makes a schedule on Volcano's CronJob (--backend
// volcano): the job file as a Volcano Job's, checked as a run's job would
// be (named as a triggered run's), then rendered named as the schedule as
// the CronJob's template.
func (o *Options) volcanoObjects(ctx context.Context) (*cron.Objects, error) {
	if o.dryRun != submit.DryRunClient {
		kc, err := o.Factory.KubeClient()
		if err != nil {
			return nil, err
		}
		served, err := kube.Served(kc, cron.VolcanoCronJobs)
		if err != nil {
			return nil, fmt.Errorf("asking the cluster whether it serves Volcano's CronJob API: %w", err)
		}
		if !served {
			return nil, exit.UsageErrorf("--backend volcano: this cluster serves no Volcano CronJob API (cronjobs.batch.volcano.sh, Volcano 1.13 or later): leave --backend out for a CronJob running easyai's launcher")
		}
	}
	kind, err := submit.KindOfJobFile(o.Factory.Kinds, render.ValueFile{Name: o.File, Data: o.Spec.JobFile})
	if err != nil {
		return nil, err
	}
	data, ok, err := o.Factory.Kinds.AsVolcanoJobFile(kind, o.Spec.JobFile)
	switch {
	case !ok:
		return nil, exit.UsageErrorf("--backend volcano: %s is a %s job, which cannot run as a Volcano Job (Volcano's CronJob creates nothing else): leave --backend out", o.File, kind.Name())
	case err != nil:
		return nil, exit.UsageErrorf("%s: %v", o.File, err)
	}
	o.Spec.JobFile = data
	if err := o.checkJobFile(ctx); err != nil {
		return nil, err
	}
	dryRun := submit.DryRunServer
	if o.dryRun == submit.DryRunClient {
		dryRun = submit.DryRunClient
	}
	res, err := cmdutil.SubmitJobFile(ctx, o.Factory, cmdutil.JobFileSubmission{
		File: render.ValueFile{Name: o.File, Data: o.Spec.JobFile}, Name: o.Name,
		Experiment: o.Name, Labels: []string{cron.Label + "=" + o.Name}, DryRun: dryRun,
	})
	if err != nil {
		return nil, err
	}
	job := &unstructured.Unstructured{Object: res.Shown}
	if job.IsList() {
		items, _, _ := unstructured.NestedSlice(job.Object, "items")
		if len(items) != 1 {
			return nil, exit.UsageErrorf("--backend volcano: %s makes %d objects (a TensorBoard, a token's Secret beside the job), and Volcano's CronJob creates only the job: leave --backend out", o.File, len(items))
		}
		m, _ := items[0].(map[string]any)
		job = &unstructured.Unstructured{Object: m}
	}
	cj, err := cron.RenderVolcano(&o.Spec, job)
	if err != nil {
		return nil, err
	}
	return &cron.Objects{Volcano: cj}, nil
}
