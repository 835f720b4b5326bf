package kubeplatform

import (
	"context"
	"strings"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// Recorded reads the job's easyai.io/request annotation and its kind label:
// what submit recorded on the job (docs/labels.md).
func (p *Platform) Recorded(ctx context.Context, job *platform.Job) (*platform.Recorded, error) {
	h, _, err := p.readJob(ctx, job)
	if err != nil {
		return nil, err
	}
	values, found, err := jobmodel.SubmittedValues(h.obj.GetAnnotations())
	switch {
	case !found:
		return nil, exit.NotFoundErrorf("%s was not submitted by easyai: it has no %s annotation, the values to submit it from", job, jobmodel.RequestAnnotation)
	case err != nil:
		return nil, exit.UsageErrorf("%s: %v", job, err)
	}
	labels := h.obj.GetLabels()
	name := labels[jobmodel.KindLabel]
	if name == "" {
		// A job that lost its kind label: the kind of its object.
		name = h.kind.Name()
	}
	k, ok := p.Kinds.LookupSubmittable(name)
	if !ok {
		return nil, exit.UsageErrorf("%s: label %s=%q names no kind easyai submits (%s)", job, jobmodel.KindLabel, name, strings.Join(p.Kinds.SubmittableNames(), ", "))
	}
	return &platform.Recorded{Kind: k, Values: values, Experiment: labels[jobmodel.ExperimentLabel]}, nil
}
