package jobclient

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// template is the template of easyai's that a controller made the job of
// labels from (kinds.Templated: a pipeline step's JobTemplate), nil when
// the job is not one, carries easyai's labels itself, or the template
// cannot be read (the job then reads as it is).
func (c *Client) template(ctx context.Context, k kinds.Kind, labels map[string]string, namespace string) *unstructured.Unstructured {
	t, ok := k.(kinds.Templated)
	if !ok || labels[jobmodel.ManagedByLabel] != "" {
		return nil
	}
	gvr, name := t.Template(labels, namespace)
	if name == "" {
		return nil
	}
	tmpl, err := c.Dynamic.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil || tmpl.GetLabels()[jobmodel.ManagedByLabel] != jobmodel.ManagedByValue {
		return nil
	}
	return tmpl
}

// fromTemplate gives obj the labels and annotations of its template (see
// template) that it lacks: what submit recorded of a pipeline's step
// (its user, experiment, storage, request) is on the template, Volcano
// copying only the spec onto the job.
func (c *Client) fromTemplate(ctx context.Context, k kinds.Kind, obj *unstructured.Unstructured) {
	tmpl := c.template(ctx, k, obj.GetLabels(), obj.GetNamespace())
	if tmpl == nil {
		return
	}
	obj.SetLabels(under(obj.GetLabels(), tmpl.GetLabels()))
	obj.SetAnnotations(under(obj.GetAnnotations(), tmpl.GetAnnotations()))
}

// summariesFromTemplates gives the listed jobs made from a template of
// easyai's their user and experiment from it, one read per template.
func (c *Client) summariesFromTemplates(ctx context.Context, k kinds.Kind, summaries []jobmodel.Summary) {
	if _, ok := k.(kinds.Templated); !ok {
		return
	}
	for i := range summaries {
		s := &summaries[i]
		tmpl := c.template(ctx, k, s.Labels, s.Namespace)
		if tmpl == nil {
			continue
		}
		meta := jobmodel.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: under(s.Labels, tmpl.GetLabels()), Annotations: tmpl.GetAnnotations()}
		from := jobmodel.NewSummary(s.APIKind, meta)
		s.User, s.Experiment, s.ManagedBy, s.Labels, s.RecordedUser = from.User, from.Experiment, from.ManagedBy, from.Labels, from.RecordedUser
	}
}

// under is over with the keys of base it lacks.
func under(over, base map[string]string) map[string]string {
	out := make(map[string]string, len(over)+len(base))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// madeFromTemplates are the jobs that a label selector would select were
// the labels of their templates theirs (kinds.Templated): the templates the
// selector selects, then the jobs made from them, kept by keep. A user who
// may not list the templates, or a cluster without them, has none.
func (c *Client) madeFromTemplates(ctx context.Context, k kinds.Kind, namespace, selector string, keep func(*jobmodel.Summary) bool) []jobmodel.Summary {
	t, ok := k.(kinds.Templated)
	if !ok || selector == "" {
		return nil
	}
	gvr, _ := t.Template(nil, "")
	templates, err := c.Dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector + "," + jobmodel.ManagedByLabel + "=" + jobmodel.ManagedByValue})
	if err != nil {
		return nil
	}
	byNamespace := map[string][]string{}
	var order []string
	for _, tmpl := range templates.Items {
		ns := tmpl.GetNamespace()
		if _, seen := byNamespace[ns]; !seen {
			order = append(order, ns)
		}
		byNamespace[ns] = append(byNamespace[ns], tmpl.GetName())
	}
	var out []jobmodel.Summary
	for _, ns := range order {
		jobs, _, err := c.listPage(ctx, k, ns, metav1.ListOptions{LabelSelector: t.MadeFrom(ns, byNamespace[ns])}, nil)
		if err != nil {
			continue
		}
		c.summariesFromTemplates(ctx, k, jobs)
		out = append(out, kept(jobs, keep)...)
	}
	return out
}
