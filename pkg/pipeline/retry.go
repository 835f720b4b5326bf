package pipeline

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// RetryName is the name of the first retry of pipeline name that does not
// exist yet: NAME-r2, NAME-r3, ...
func (c *Client) RetryName(ctx context.Context, namespace, name string) (string, error) {
	base := name
	if i := strings.LastIndex(name, "-r"); i > 0 {
		if _, err := fmt.Sscanf(name[i+2:], "%d", new(int)); err == nil {
			base = name[:i]
		}
	}
	for n := 2; n < 100; n++ {
		candidate := fmt.Sprintf("%s-r%d", base, n)
		_, err := c.Dynamic.Resource(JobFlows).Namespace(namespace).Get(ctx, candidate, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return candidate, nil
		case err != nil:
			return "", err
		}
	}
	return "", exit.UsageErrorf("pipeline %s has 98 retries already: give --name", name)
}

// RetryFile is the pipeline file of a new run of pipeline name from step
// from: that step and every step after it, each a job of the values submit
// recorded on its JobTemplate, named newName. The steps before from must
// have succeeded: the new run reuses what they wrote. A step that started
// from a rerun step's model_dir starts from its new run's (pretrainedFrom);
// one that started from a step not rerun keeps that step's directory.
func (c *Client) RetryFile(ctx context.Context, namespace, name, from, newName string) (*File, error) {
	st, err := c.Get(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	old := &File{Name: name}
	for _, s := range st.Steps {
		old.Steps = append(old.Steps, Step{Name: s.Name, After: s.After})
	}
	if old.Step(from) == nil {
		return nil, exit.UsageErrorf("--from %s: pipeline %s has no step %s (steps: %s)", from, name, from, strings.Join(old.names(), ", "))
	}
	state := map[string]string{}
	for _, s := range st.Steps {
		state[s.Name] = s.State
	}
	for up := range old.upstream(from) {
		if state[up] != Succeeded {
			return nil, exit.UsageErrorf("--from %s: step %s, which runs before it, has not succeeded (%s): retry from %s", from, up, state[up], up)
		}
	}
	rerun := map[string]bool{from: true}
	for _, d := range old.Downstream(from) {
		rerun[d] = true
	}
	if errs := validation.IsDNS1035Label(newName); len(errs) > 0 {
		return nil, exit.UsageErrorf("--name %q: a pipeline's name is a DNS-1035 label", newName)
	}
	values, jobDirs, err := c.recorded(ctx, namespace, name, old, rerun)
	if err != nil {
		return nil, err
	}
	out := &File{Name: newName}
	for _, s := range old.Steps {
		if !rerun[s.Name] {
			continue
		}
		step := Step{Name: s.Name, Job: values[s.Name]}
		step.Job["kind"] = "volcano"
		for _, a := range s.After {
			if rerun[a] {
				step.After = append(step.After, a)
			}
		}
		// A step that started from the model_dir of a step run again
		// starts from the new run's.
		if pre := preJobDir(values[s.Name]); pre != "" {
			for up, dir := range jobDirs {
				if dir == pre && up != s.Name {
					step.PretrainedFrom = up
					delete(values[s.Name]["storage"].(map[string]any), "preJobDir")
				}
			}
		}
		out.Steps = append(out.Steps, step)
	}
	return out, nil
}

// recorded are the values submit recorded for the steps of pipeline name
// to run again, and their job directories, read from their JobTemplates.
func (c *Client) recorded(ctx context.Context, namespace, name string, old *File, rerun map[string]bool) (map[string]map[string]any, map[string]string, error) {
	jobDirs := map[string]string{}
	values := map[string]map[string]any{}
	for _, s := range old.Steps {
		if !rerun[s.Name] {
			continue
		}
		tmpl, err := c.Dynamic.Resource(JobTemplates).Namespace(namespace).Get(ctx, TemplateName(name, s.Name), metav1.GetOptions{})
		if err != nil {
			return nil, nil, fmt.Errorf("the JobTemplate of step %s: %w", s.Name, err)
		}
		v, found, err := jobmodel.SubmittedValues(tmpl.GetAnnotations())
		switch {
		case !found:
			return nil, nil, exit.UsageErrorf("step %s: its JobTemplate %s has no %s annotation, the values to run it from", s.Name, tmpl.GetName(), jobmodel.RequestAnnotation)
		case err != nil:
			return nil, nil, exit.UsageErrorf("step %s: JobTemplate %s: %v", s.Name, tmpl.GetName(), err)
		}
		values[s.Name] = v
		jobDirs[s.Name] = tmpl.GetAnnotations()[jobmodel.JobDirAnnotation]
	}
	return values, jobDirs, nil
}

// preJobDir is the values' storage.preJobDir ("": none).
func preJobDir(values map[string]any) string {
	st, _ := values["storage"].(map[string]any)
	dir, _ := st["preJobDir"].(string)
	return dir
}
