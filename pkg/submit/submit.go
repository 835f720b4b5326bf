package submit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/render"
)

// Request is one job to submit.
type Request struct {
	Kind      kinds.Kind
	Namespace string
	ChartDir  string
	// ValueFiles are the -f files, as read (once).
	ValueFiles []render.ValueFile
	// Values come from the flags the user set (the kind's own included).
	Values map[string]any
	Set    []string

	// User is the submitter as the API server knows them.
	User       string
	Experiment string
	// Labels and Annotations are added to the job (labels to its pods too):
	// the configuration's labels and the user's --label/--annotation.
	Labels      map[string]string
	Annotations map[string]string
	// JobLabels are added to the job only, not its pods: Kueue's queue
	// and priority, read on the job.
	JobLabels map[string]string
	// CLIVersion is recorded on the job.
	CLIVersion string

	// chart is loaded once by loadChart, for every rendering of the request.
	chart *render.Chart
	// generatedName is the name fillDefaults generated for the job ("":
	// the values named it), said once the job is made.
	generatedName string
}

func (r *Request) render() render.Request {
	return render.Request{Kind: r.Kind, ChartDir: r.ChartDir, ValueFiles: r.ValueFiles, Values: r.Values, Set: r.Set, Chart: r.chart}
}

// loadChart loads the request's chart once: resolving the values and
// rendering the job then use it.
func (r *Request) loadChart() error {
	c, err := render.LoadChart(r.render())
	if err != nil {
		return err
	}
	r.chart = c
	return nil
}

// Resolved returns the values the job would be rendered with: chart
// defaults, values files, flags and --set merged.
func (r *Request) Resolved() (map[string]any, error) {
	return render.MergedValues(r.render())
}

// annotate sets the annotation key of the job to value.
func (r *Request) annotate(key, value string) {
	if r.Annotations == nil {
		r.Annotations = map[string]string{}
	}
	r.Annotations[key] = value
}

// Build renders the job with easyai's labels and annotations, checked
// against the kind's API types (by the rendering). Nothing is sent.
func Build(r *Request) (*unstructured.Unstructured, error) {
	resolved, err := r.Resolved()
	if err != nil {
		return nil, err
	}
	if err := r.checkValues(resolved); err != nil {
		return nil, err
	}
	name, _ := resolved["name"].(string)
	if name == "" {
		return nil, exit.UsageErrorf("the job has no name: give --name or set name in a values file")
	}
	labels := r.jobLabels(name)
	annotations, err := r.jobAnnotations(resolved)
	if err != nil {
		return nil, err
	}
	obj, err := r.renderJob(map[string]any{"name": name, "labels": anyValues(labels), "annotations": anyValues(annotations)})
	if err != nil {
		return nil, err
	}
	obj.SetNamespace(r.Namespace)
	// A team's own chart may forget them: the contract holds on the job anyway.
	obj.SetLabels(mergeStrings(mergeStrings(obj.GetLabels(), labels), r.JobLabels))
	obj.SetAnnotations(mergeStrings(obj.GetAnnotations(), annotations))
	return obj, nil
}

// jobLabels are the labels of the job named name: the request's, and
// easyai's (managed-by, the name, the kind, the user, the experiment).
func (r *Request) jobLabels(name string) map[string]string {
	labels := mergeStrings(r.Labels, map[string]string{
		jobmodel.ManagedByLabel: jobmodel.ManagedByValue,
		jobmodel.NameLabel:      name,
		jobmodel.KindLabel:      r.Kind.Name(),
	})
	if r.User != "" {
		labels[jobmodel.UserLabel] = jobmodel.LabelSafe(r.User)
	}
	if r.Experiment != "" {
		labels[jobmodel.ExperimentLabel] = r.Experiment
	}
	return labels
}

// jobAnnotations are the annotations of the job of the resolved values:
// the request's, and easyai's (the request, which records what the user
// asked for before easyai's own labels and annotations are added, the
// version, the job's directory on the storage, the user).
func (r *Request) jobAnnotations(resolved map[string]any) (map[string]string, error) {
	request, err := json.Marshal(resolved)
	if err != nil {
		return nil, err
	}
	annotations := mergeStrings(r.Annotations, map[string]string{
		jobmodel.RequestAnnotation: string(request),
		jobmodel.VersionAnnotation: r.CLIVersion,
	})
	if st, err := storageOf(resolved); err == nil && !st.IsZero() && st.JobDir != "" {
		annotations[jobmodel.JobDirAnnotation] = st.JobDir
	}
	if r.User != "" {
		annotations[jobmodel.UserAnnotation] = r.User
	}
	return annotations, nil
}

// renderJob renders the request with its values and metadata over them: the
// one object of the kind the chart must render. A value the chart refuses
// is named as the user gave it (explain).
func (r *Request) renderJob(metadata map[string]any) (*unstructured.Unstructured, error) {
	req := r.render()
	req.Values = render.MergeMaps(r.Values, metadata)
	objs, err := render.Render(req)
	var valueErr *render.ValueError
	if errors.As(err, &valueErr) {
		return nil, r.explain(valueErr)
	}
	if err != nil {
		return nil, err
	}
	gvk := r.Kind.GroupVersionKind()
	if len(objs) != 1 || objs[0].GroupVersionKind() != gvk {
		var got []string
		for _, o := range objs {
			got = append(got, o.GetKind()+"/"+o.GetName())
		}
		return nil, exit.UsageErrorf("the chart must render exactly one %s, it rendered %v", gvk.Kind, got)
	}
	return objs[0], nil
}

// Create sends the job in one request; dryRun asks the API server to
// validate it (against the CRD's schema and admission) without storing it.
func Create(ctx context.Context, client dynamic.Interface, k kinds.Kind, obj *unstructured.Unstructured, dryRun bool) (*unstructured.Unstructured, error) {
	created, err := client.Resource(k.Resource()).Namespace(obj.GetNamespace()).Create(ctx, obj, createOptions(dryRun))
	switch {
	case err == nil:
		return created, nil
	case kube.NotInstalled(err):
		return nil, kube.NotInstalledError(k)
	default:
		return nil, fmt.Errorf("submitting %s %s: %w", k.GroupVersionKind().Kind, obj.GetName(), err)
	}
}

// createOptions are easyai's options of a create; dryRun: the API server
// validates the object and does not store it.
func createOptions(dryRun bool) metav1.CreateOptions {
	opts := metav1.CreateOptions{FieldManager: "easyai"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return opts
}

// explain names where a value the chart refused came from: the --set
// expression, the job file or the flag that gave it.
func (r *Request) explain(e *render.ValueError) error {
	key, _, _ := strings.Cut(e.Path, "[")
	o := render.OriginOf(r.render(), key)
	if by, _ := givenBy(o, key, o.Set); by != "" {
		return exit.UsageErrorf("%s: %s: %s", by, e.Path, e.Message)
	}
	return exit.UsageErrorf("%s: %s", e.Path, e.Message)
}

func mergeStrings(base, add map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range add {
		out[k] = v
	}
	return out
}

// anyValues is a string map as chart values.
func anyValues(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
