package render

import (
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/cli/values"
	"helm.sh/helm/v4/pkg/getter"
	release "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// helmTemplate renders a chart folder of charts/ the way
// "helm dependency build charts/CHART && helm template NAME charts/CHART -f
// FILE --set ..." does: easyai-lib comes from ../easyai-lib on disk, and
// Helm's own install action renders it, client only, as a dry run.
func helmTemplate(t *testing.T, chartName, releaseName string, valueFiles, set []string) []*unstructured.Unstructured {
	t.Helper()
	chartDir := filepath.Join("..", "..", "charts", chartName)
	c, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range c.Metadata.Dependencies {
		lib, err := loader.Load(filepath.Join(chartDir, dep.Repository[len("file://"):]))
		if err != nil {
			t.Fatal(err)
		}
		c.AddDependency(lib)
	}
	vals, err := (&values.Options{ValueFiles: valueFiles, Values: set}).MergeValues(getter.Providers{})
	if err != nil {
		t.Fatal(err)
	}

	install := action.NewInstall(action.NewConfiguration())
	install.DryRunStrategy = action.DryRunClient
	install.Replace = true
	install.IncludeCRDs = true
	install.ReleaseName = releaseName
	install.Namespace = Namespace
	r, err := install.Run(c, vals)
	if err != nil {
		t.Fatal(err)
	}
	rel, ok := r.(*release.Release)
	if !ok {
		t.Fatalf("helm's install returned a %T", r)
	}
	manifests := releaseutil.SplitManifests(rel.Manifest)
	names := make([]string, 0, len(manifests))
	for name := range manifests {
		names = append(names, name)
	}
	sort.Sort(releaseutil.BySplitManifestsOrder(names))
	var objs []*unstructured.Unstructured
	for _, name := range names {
		obj, err := parseObject(manifests[name])
		if err != nil {
			t.Fatal(err)
		}
		if obj != nil {
			objs = append(objs, obj)
		}
	}
	return objs
}

// TestMatchesHelmTemplate: Render's objects are the ones helm template
// renders from the charts on disk, for the golden cases and with --set.
func TestMatchesHelmTemplate(t *testing.T) {
	for _, c := range goldenCases {
		workers := "roles.worker.replicas=3"
		switch c.chart {
		case "volcano":
			workers = "tasks.worker.replicas=3"
		case "trainjob", "deepspeed", "mlx":
			workers = "roles.node.replicas=3"
		}
		for i, set := range [][]string{nil, {workers, "labels.team=ml", "runPolicy.gang=true"}} {
			name := c.name
			if i > 0 {
				name += "+set"
			}
			t.Run(name, func(t *testing.T) {
				req := Request{Kind: c.kind, ValueFiles: valueFiles(t, c.valuesFile()), Set: set}
				got, err := Render(req)
				if err != nil {
					t.Fatal(err)
				}
				vals, err := MergedValues(req)
				if err != nil {
					t.Fatal(err)
				}
				want := helmTemplate(t, c.chart, vals["name"].(string), []string{c.valuesFile()}, set)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Render and helm template differ:\n--- Render\n%s\n--- helm template\n%s", toYAML(t, got), toYAML(t, want))
				}
			})
		}
	}
}
