package registry_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/charts"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/kindstest"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/serving"
)

// goldenDir holds the golden files of the charts (pkg/render's TestGolden).
const goldenDir = "../../render/testdata"

// howToAddAKind points a failure at the list of steps.
const howToAddAKind = `(docs/architecture.md, "Adding a kind")`

// variant is one way a kind's jobs are rendered: the kind itself, or a kind
// a kinds.BackendChooser renders them as (ColossalAI as a Volcano Job).
type variant struct {
	kind  kinds.Kind
	chart string // the chart folder under charts/, from its Chart.yaml
}

// variantsOf lists how k's jobs may be rendered, asking a BackendChooser
// which kind it renders as on a cluster that serves every resource, on one
// that serves none, and offline.
func variantsOf(t *testing.T, k kinds.Kind) []variant {
	t.Helper()
	rendered := []kinds.Kind{k}
	if chooser, ok := k.(kinds.BackendChooser); ok {
		_, flags, err := kindstest.SubmitValues(t, k)
		if err != nil {
			t.Fatalf("kind %s: its submit flags at their defaults: %v", k.Name(), err)
		}
		for _, probe := range []kinds.BackendProbe{
			{Served: func(context.Context, schema.GroupVersionResource) (bool, error) { return true, nil }},
			{Served: func(context.Context, schema.GroupVersionResource) (bool, error) { return false, nil }},
			{Offline: true},
			{Offline: true, KubeflowBackend: "trainer"},
		} {
			backend, _, err := chooser.SubmitBackend(t.Context(), flags, probe)
			if err != nil {
				t.Fatalf("kind %s: choosing its backend: %v", k.Name(), err)
			}
			rendered = append(rendered, backend)
		}
	}
	var out []variant
	for _, r := range rendered {
		v := variant{kind: r, chart: chartName(t, k, r)}
		if !slices.ContainsFunc(out, func(o variant) bool {
			return o.chart == v.chart && o.kind.GroupVersionKind() == v.kind.GroupVersionKind()
		}) {
			out = append(out, v)
		}
	}
	return out
}

// chartName is the name in the Chart.yaml of r's chart, r being k or a kind
// it renders as.
func chartName(t *testing.T, k, r kinds.Kind) string {
	t.Helper()
	data, err := fs.ReadFile(r.Chart(), "Chart.yaml")
	if err != nil {
		t.Fatalf("kind %s: its chart has no Chart.yaml (%v): add the folder charts/CHART (Chart.yaml, values.yaml, templates/) and return charts.Get(\"CHART\") from the kind's Chart() %s",
			k.Name(), err, howToAddAKind)
	}
	var meta struct{ Name string }
	if err := yaml.Unmarshal(data, &meta); err != nil || meta.Name == "" {
		t.Fatalf("kind %s: its chart's Chart.yaml has no name (%v)", k.Name(), err)
	}
	return meta.Name
}

// submitValues are the fewest values a job is submitted with, as submit
// gives them to the chart: the kind's own flags at their defaults, a name,
// an image and a command, and easyai's labels and annotations.
func submitValues(t *testing.T, k kinds.Kind) map[string]any {
	t.Helper()
	values, _, err := kindstest.SubmitValues(t, k)
	if err != nil {
		t.Fatalf("kind %s: its submit flags at their defaults: %v", k.Name(), err)
	}
	values["name"] = "minimal"
	values["image"] = "registry.example.com/train:1"
	values["command"] = []string{"python", "train.py"}
	if k.Name() == "trainjob" {
		// submit trainjob requires --runtime.
		values["runtime"] = map[string]any{"name": "torch-distributed"}
	}
	values["labels"] = map[string]string{
		jobmodel.ManagedByLabel: jobmodel.ManagedByValue, jobmodel.NameLabel: "minimal", jobmodel.KindLabel: k.Name(),
	}
	values["annotations"] = map[string]string{
		jobmodel.RequestAnnotation: `{"name":"minimal"}`, jobmodel.VersionAnnotation: "test",
	}
	return values
}

// TestEveryKindRendersDecodesAndHasAGoldenFile: each registered kind, and
// each kind it may be rendered as, renders its embedded chart with the
// fewest values submit gives, into one object of its GroupVersionKind that
// its Decode takes and that a registered kind reads back; and pkg/render has
// a golden file of it. A step of adding a kind that was forgotten fails
// here, named, rather than when a user submits.
func TestEveryKindRendersDecodesAndHasAGoldenFile(t *testing.T) {
	reg := registry.Default()
	if len(reg.All()) == 0 {
		t.Fatal("the registry has no kinds")
	}
	goldens := goldenKinds(t)
	for _, k := range reg.Submittable() {
		t.Run(k.Name(), func(t *testing.T) {
			for _, v := range variantsOf(t, k) {
				gvk := v.kind.GroupVersionKind()
				what := "kind " + k.Name() + " (chart " + v.chart + ", " + gvk.Kind + ")"
				objs, err := render.Render(render.Request{Kind: v.kind, Values: submitValues(t, k)})
				if err != nil {
					t.Errorf("%s: the chart does not render with the fewest values (name, image, command): %v", what, err)
					continue
				}
				if len(objs) != 1 || objs[0].GroupVersionKind() != gvk {
					var got []string
					for _, o := range objs {
						got = append(got, o.GroupVersionKind().String())
					}
					t.Errorf("%s: the chart renders %v, want one %s: its templates and the kind's GroupVersionKind disagree", what, got, gvk)
					continue
				}
				typed, err := v.kind.Decode(objs[0])
				if err != nil {
					t.Errorf("%s: its Decode refuses what its chart renders: %v", what, err)
					continue
				}
				if got := typed.GetObjectKind().GroupVersionKind(); got != gvk {
					t.Errorf("%s: Decode returns a %s, want a %s", what, got, gvk)
				}
				reader, ok := reg.ForGVK(gvk)
				if !ok {
					t.Errorf("%s: no registered kind reads a %s back: add the kind to Default in pkg/kinds/registry %s", what, gvk, howToAddAKind)
					continue
				}
				if _, err := reader.Summarize(objs[0], "nvidia.com/gpu"); err != nil {
					t.Errorf("%s: kind %s cannot summarize it: %v", what, reader.Name(), err)
				}
				if replicas, err := reader.Replicas(objs[0], nil); err != nil || len(replicas) == 0 {
					t.Errorf("%s: kind %s reads %d replicas from it (%v), want its pending replicas", what, reader.Name(), len(replicas), err)
				}
				if !slices.Contains(goldens[k.Name()], gvk) {
					t.Errorf("%s: no golden file of a %s in pkg/render/testdata: add %s-CASE.values.yaml there and a case to goldenCases in pkg/render/render_test.go, then run go test ./pkg/render -update %s",
						what, gvk.Kind, k.Name(), howToAddAKind)
				}
			}
		})
	}
}

// goldenKinds reads the golden files of pkg/render: what each kind's goldens
// (KIND-CASE.golden.yaml) render, by kind name. Every values file there must
// have its golden file: one without it is a case TestGolden does not run.
func goldenKinds(t *testing.T) map[string][]schema.GroupVersionKind {
	t.Helper()
	values, err := filepath.Glob(filepath.Join(goldenDir, "*.values.yaml"))
	if err != nil || len(values) == 0 {
		t.Fatalf("no values files in %s (%v)", goldenDir, err)
	}
	for _, v := range values {
		golden := strings.TrimSuffix(v, ".values.yaml") + ".golden.yaml"
		if _, err := os.Stat(golden); err != nil {
			t.Errorf("pkg/render/testdata/%s has no golden file: add its case to goldenCases in pkg/render/render_test.go, then run go test ./pkg/render -update", filepath.Base(v))
		}
	}
	goldens, err := filepath.Glob(filepath.Join(goldenDir, "*.golden.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]schema.GroupVersionKind{}
	names := registry.Default().SubmittableNames()
	for _, g := range goldens {
		data, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n---\n")
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(first), &meta); err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		gvk := schema.FromAPIVersionAndKind(meta.APIVersion, meta.Kind)
		for _, name := range names {
			if strings.HasPrefix(filepath.Base(g), name+"-") {
				out[name] = append(out[name], gvk)
			}
		}
	}
	return out
}

// TestEveryChartFolderBelongsToAKind: charts/ holds easyai-lib and the
// charts the registered kinds render with, and the serving chart of "easyai
// serve" (not a kind: a serving is no job), each named as its folder.
func TestEveryChartFolderBelongsToAKind(t *testing.T) {
	used := map[string]bool{render.LibraryName: true, serving.ChartName: true}
	for _, k := range registry.Default().Submittable() {
		for _, v := range variantsOf(t, k) {
			used[v.chart] = true
		}
	}
	for _, name := range charts.Names() {
		meta, err := fs.ReadFile(charts.Get(name), "Chart.yaml")
		if err != nil {
			t.Fatal(err)
		}
		var chart struct{ Name string }
		if err := yaml.Unmarshal(meta, &chart); err != nil || chart.Name != name {
			t.Errorf("charts/%s: its Chart.yaml names it %q (%v): a chart's name is its folder's", name, chart.Name, err)
		}
		if !used[name] {
			t.Errorf("charts/%s is used by no registered kind: add its kind to Default in pkg/kinds/registry, or delete the folder %s", name, howToAddAKind)
		}
	}
}

// TestRuntimesAreListedByTheirKind: "easyai runtimes" asks the registry for
// the kind that lists runtimes, and submit completes the --runtime of a kind
// with the runtimes the kind itself lists.
func TestRuntimesAreListedByTheirKind(t *testing.T) {
	if _, ok := registry.Default().RuntimeLister(); !ok {
		t.Error("no registered kind lists runtimes (kinds.RuntimeLister): easyai runtimes would list none")
	}
	for _, k := range registry.Default().Submittable() {
		_, flags, _ := kindstest.SubmitValues(t, k)
		if _, ok := k.(kinds.RuntimeLister); flags.Lookup("runtime") != nil && !ok {
			t.Errorf("kind %s: --runtime, but it lists no runtimes (kinds.RuntimeLister) to complete it with", k.Name())
		}
	}
}
