package render

import (
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/common"
	helmutil "helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	helmdeps "helm.sh/helm/v4/pkg/chart/v2/util"
)

// The values code is checked against Helm's own (the functions "helm
// template" uses, from the Helm version in go.mod) on the same charts and
// values: hand-written cases for each rule, and a fuzz target that makes up
// charts, subcharts, dependencies and values from its input.

func TestMain(m *testing.M) {
	// Helm's value code logs its warnings; they say nothing to the tests.
	log.SetOutput(io.Discard)
	slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil)))
	os.Exit(m.Run())
}

// chartSpec describes a chart to build twice, once for Helm's functions and
// once for easyai's, as each changes the chart it is given.
type chartSpec struct {
	name, version string
	values        map[string]any
	deps          []*chart.Dependency
	subs          []chartSpec
	library       bool
}

func (s chartSpec) build() *chart.Chart {
	c := &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: "v2", Name: s.name, Version: s.version},
		Values:   copyValue(s.values).(map[string]any),
	}
	if s.library {
		c.Metadata.Type = "library"
	}
	for _, d := range s.deps {
		dc := *d
		dc.Tags = append([]string(nil), d.Tags...)
		if d.ImportValues != nil {
			dc.ImportValues = copyValue(d.ImportValues).([]any)
		}
		c.Metadata.Dependencies = append(c.Metadata.Dependencies, &dc)
	}
	for _, sub := range s.subs {
		c.AddDependency(sub.build())
	}
	return c
}

// plain turns Helm's Values into plain tables, all the way down, so that the
// two results compare as data.
func plain(v any) any {
	switch v := v.(type) {
	case common.Values:
		return plain(map[string]any(v))
	case map[string]any:
		if v == nil {
			return v
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = plain(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = plain(e)
		}
		return out
	default:
		return v
	}
}

// state is what processing left of a chart: its values and dependencies,
// down through its subcharts.
type state struct {
	Name   string
	Values any
	Deps   []chart.Dependency
	Subs   []state
}

func stateOf(c *chart.Chart) state {
	s := state{Name: c.Name(), Values: plain(c.Values)}
	for _, d := range c.Metadata.Dependencies {
		if d != nil {
			s.Deps = append(s.Deps, *d)
		}
	}
	for _, sub := range c.Dependencies() {
		s.Subs = append(s.Subs, stateOf(sub))
	}
	return s
}

// compareWithHelm runs Helm's and easyai's value code on spec and vals and
// reports any difference: CoalesceValues, MergeValues, and
// ProcessDependencies followed by ToRenderValues (without schemas).
func compareWithHelm(t *testing.T, spec chartSpec, vals map[string]any) {
	t.Helper()
	for _, keepNulls := range []bool{false, true} {
		helmFn := helmutil.CoalesceValues
		if keepNulls {
			helmFn = helmutil.MergeValues
		}
		want, wantErr := helmFn(spec.build(), copyValue(vals).(map[string]any))
		got, gotErr := chartValues(spec.build(), copyValue(vals).(map[string]any), keepNulls)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("keepNulls %v: Helm's error %v, easyai's %v", keepNulls, wantErr, gotErr)
		}
		if wantErr == nil {
			if diff := cmp.Diff(plain(want), plain(got)); diff != "" {
				t.Fatalf("keepNulls %v: values differ from Helm's (-Helm +easyai):\n%s", keepNulls, diff)
			}
		}
	}

	helmChart, ours := spec.build(), spec.build()
	wantErr := helmdeps.ProcessDependencies(helmChart, copyValue(vals).(map[string]any))
	gotErr := processDependencies(ours, copyValue(vals).(map[string]any))
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("dependencies: Helm's error %v, easyai's %v", wantErr, gotErr)
	}
	if wantErr != nil {
		return
	}
	if diff := cmp.Diff(stateOf(helmChart), stateOf(ours)); diff != "" {
		t.Fatalf("charts after processing their dependencies differ (-Helm +easyai):\n%s", diff)
	}
	options := common.ReleaseOptions{Name: "job", Namespace: Namespace, Revision: 1, IsInstall: true}
	want, wantErr := helmutil.ToRenderValuesWithSchemaValidation(helmChart, copyValue(vals).(map[string]any), options, nil, true)
	got, gotErr := renderValues(ours, copyValue(vals).(map[string]any), options)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("render values: Helm's error %v, easyai's %v", wantErr, gotErr)
	}
	if wantErr != nil {
		return
	}
	if diff := cmp.Diff(plain(want), plain(got), cmp.Comparer(func(a, b *common.Capabilities) bool { return a == b })); diff != "" {
		t.Fatalf("render values differ (-Helm +easyai):\n%s", diff)
	}
}

func TestValuesMatchHelm(t *testing.T) {
	sub := func(name string, values map[string]any, subs ...chartSpec) chartSpec {
		return chartSpec{name: name, version: "1.0.0", values: values, subs: subs}
	}
	dep := func(name string, edit func(*chart.Dependency)) *chart.Dependency {
		d := &chart.Dependency{Name: name, Version: "^1.0.0"}
		if edit != nil {
			edit(d)
		}
		return d
	}
	parent := func(values map[string]any, deps []*chart.Dependency, subs ...chartSpec) chartSpec {
		return chartSpec{name: "parent", version: "0.1.0", values: values, deps: deps, subs: subs}
	}
	tests := []struct {
		name string
		spec chartSpec
		vals map[string]any
	}{
		{"defaults under the user's values", parent(map[string]any{"a": 1, "t": map[string]any{"x": 1, "y": 2}}, nil),
			map[string]any{"a": 2, "t": map[string]any{"y": 3, "z": 4}}},
		{"a null removes a default, at the top and in a table", parent(map[string]any{"a": 1, "t": map[string]any{"x": 1, "y": nil}}, nil),
			map[string]any{"a": nil, "t": map[string]any{"x": nil, "w": nil}}},
		{"a table never replaces a scalar, nor a scalar a table", parent(map[string]any{"a": 1, "t": map[string]any{"x": 1}}, nil),
			map[string]any{"a": map[string]any{"b": 1}, "t": "flat"}},
		{"a subchart's defaults under the parent's table of it, nulls reaching it",
			parent(map[string]any{"sub": map[string]any{"p": 1, "q": 2}}, []*chart.Dependency{dep("sub", nil)},
				sub("sub", map[string]any{"p": 0, "q": 0, "r": 0, "s": map[string]any{"k": 1}})),
			map[string]any{"sub": map[string]any{"q": nil, "s": map[string]any{"k": nil}}}},
		{"the subchart's values not a table", parent(nil, []*chart.Dependency{dep("sub", nil)}, sub("sub", map[string]any{"p": 0})),
			map[string]any{"sub": "flat"}},
		{"globals passed down, tables merged, the parent's winning",
			parent(map[string]any{"global": map[string]any{"g": 1, "t": map[string]any{"x": 1, "n": map[string]any{"deep": 1}}}},
				[]*chart.Dependency{dep("sub", nil)},
				sub("sub", map[string]any{"global": map[string]any{"g": 0, "t": map[string]any{"x": 0, "y": 0, "n": map[string]any{"other": 2}}, "own": 1}},
					sub("leaf", map[string]any{"global": map[string]any{"t": map[string]any{"z": 0}}}))),
			map[string]any{"sub": map[string]any{"global": map[string]any{"t": map[string]any{"y": 5, "n": map[string]any{"mine": 3}}}}}},
		{"a condition disables a dependency, a tag another, a condition beats a tag",
			parent(map[string]any{"tags": map[string]any{"ml": false}, "sub": map[string]any{"enabled": true}},
				[]*chart.Dependency{
					dep("sub", func(d *chart.Dependency) { d.Condition = "sub.enabled"; d.Tags = []string{"ml"} }),
					dep("other", func(d *chart.Dependency) { d.Tags = []string{"ml", "none"} }),
					dep("third", func(d *chart.Dependency) { d.Condition = "missing.path,third.on" }),
					dep("fourth", func(d *chart.Dependency) { d.Condition = " fourth.on,fourth.off " }),
				},
				sub("sub", nil), sub("other", nil), sub("third", map[string]any{"on": false}), sub("fourth", map[string]any{"on": true, "off": false})),
			map[string]any{"third": map[string]any{"on": true}}},
		{"aliases: one subchart twice under two names",
			parent(nil, []*chart.Dependency{
				dep("sub", func(d *chart.Dependency) { d.Alias = "first" }),
				dep("sub", func(d *chart.Dependency) { d.Alias = "second"; d.Condition = "second.enabled" }),
			}, sub("sub", map[string]any{"x": 1, "enabled": true})),
			map[string]any{"first": map[string]any{"x": 2}, "second": map[string]any{"enabled": false}}},
		{"a subchart out of the version range is kept as not listed",
			parent(nil, []*chart.Dependency{dep("sub", func(d *chart.Dependency) { d.Version = "^2.0.0"; d.Condition = "sub.off" })},
				sub("sub", map[string]any{"off": false})), nil},
		{"import-values: exports and child/parent paths, the parent's own values winning",
			parent(map[string]any{"kept": "parent's", "into": map[string]any{"b": "parent's"}},
				[]*chart.Dependency{
					dep("sub", func(d *chart.Dependency) {
						d.ImportValues = []any{"data", map[string]any{"child": "deep.t", "parent": "into"}, "missing"}
					}),
					dep("other", func(d *chart.Dependency) {
						d.ImportValues = []any{map[string]any{"child": "deep.t", "parent": "into"}, map[string]any{"child": "x", "parent": "."}}
					}),
				},
				sub("sub", map[string]any{"exports": map[string]any{"data": map[string]any{"kept": "sub's", "new": 1}}, "deep": map[string]any{"t": map[string]any{"a": 1, "b": 2}}}),
				sub("other", map[string]any{"deep": map[string]any{"t": map[string]any{"a": "other's", "c": 3}}})),
			nil},
		{"easyai-lib, a library chart", parent(map[string]any{"name": "job"}, []*chart.Dependency{dep(LibraryName, func(d *chart.Dependency) { d.Version = "~0.1.0" })},
			chartSpec{name: LibraryName, version: "0.1.0", library: true}), map[string]any{"name": "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { compareWithHelm(t, tt.spec, tt.vals) })
	}
}

// FuzzValuesMatchHelm makes a chart, its subcharts, their dependencies and
// the user's values from the input, and compares easyai's value code with
// Helm's on them.
func FuzzValuesMatchHelm(f *testing.F) {
	f.Add([]byte("\x05\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a"))
	f.Add([]byte("globals and nulls: \x00\x00\x01\x07\x02\x03\x00\x04\x01\x05\x03\x02\x06\x00"))
	f.Add([]byte{0xff, 0x13, 0x37, 0x42, 0x99, 0x01, 0x00, 0x7f, 0x80, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef})
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{data: data}
		spec := g.chart("parent", 0)
		vals, _ := g.value(0, true).(map[string]any)
		compareWithHelm(t, spec, vals)
	})
}

// gen makes charts and values from bytes, drawing keys and names from small
// sets so that they meet: values for subcharts, globals, tags, conditions.
type gen struct {
	data []byte
	i    int
}

func (g *gen) next() int {
	if g.i >= len(g.data) {
		return 0
	}
	b := g.data[g.i]
	g.i++
	return int(b)
}

var (
	genKeys    = []string{"a", "b", "global", "sub", "other", "first", "tags", "exports", "enabled", "data", "t", "x"}
	genStrings = []string{"", "s", "true", "1"}
	genSubs    = []string{"sub", "other"}
)

// value is a value of at most 3 levels; top: always a table.
func (g *gen) value(depth int, top bool) any {
	kind := g.next() % 8
	if top || (depth < 3 && kind >= 5) {
		if !top && kind == 7 {
			n := g.next() % 3
			list := make([]any, n)
			for i := range list {
				list[i] = g.value(depth+1, false)
			}
			return list
		}
		n := g.next() % 4
		t := map[string]any{}
		for range n {
			key := genKeys[g.next()%len(genKeys)]
			if key == "enabled" && g.next()%4 != 0 {
				// Mostly a boolean, as conditions read it.
				t[key] = g.next()%2 == 0
				continue
			}
			t[key] = g.value(depth+1, false)
		}
		return t
	}
	switch kind {
	case 0:
		return nil
	case 1:
		return g.next()%2 == 0
	case 2:
		return int64(g.next() % 3)
	case 3:
		return float64(g.next()%3) / 2
	default:
		return genStrings[g.next()%len(genStrings)]
	}
}

func (g *gen) chart(name string, depth int) chartSpec {
	spec := chartSpec{name: name, version: fmt.Sprintf("1.%d.0", g.next()%2)}
	spec.values, _ = g.value(0, true).(map[string]any)
	if depth >= 2 {
		return spec
	}
	for _, sub := range genSubs[:g.next()%3] {
		spec.subs = append(spec.subs, g.chart(sub, depth+1))
	}
	for range g.next() % 3 {
		d := &chart.Dependency{Name: genSubs[g.next()%2], Version: []string{"^1.0.0", ">=1.1.0", "", "not a range"}[g.next()%4]}
		switch g.next() % 4 {
		case 1:
			d.Condition = d.Name + ".enabled"
		case 2:
			d.Condition = "enabled," + d.Name + ".enabled"
		}
		if g.next()%2 == 1 {
			d.Tags = []string{genKeys[g.next()%len(genKeys)]}
		}
		if g.next()%3 == 1 {
			d.Alias = "first"
		}
		switch g.next() % 4 {
		case 1:
			d.ImportValues = []any{"data"}
		case 2:
			d.ImportValues = []any{map[string]any{"child": "t", "parent": genKeys[g.next()%len(genKeys)]}}
		case 3:
			d.ImportValues = []any{map[string]any{"child": "exports.data", "parent": "."}, "t"}
		}
		spec.deps = append(spec.deps, d)
	}
	return spec
}

// TestCopyValue: a copy shares no table or list with the original.
func TestCopyValue(t *testing.T) {
	orig := map[string]any{"t": map[string]any{"l": []any{map[string]any{"x": 1}}}, "n": nil}
	cp := copyValue(orig).(map[string]any)
	if !reflect.DeepEqual(orig, cp) {
		t.Fatalf("copy %v differs from %v", cp, orig)
	}
	cp["t"].(map[string]any)["l"].([]any)[0].(map[string]any)["x"] = 2
	if orig["t"].(map[string]any)["l"].([]any)[0].(map[string]any)["x"] != 1 {
		t.Fatal("the copy shares a table with the original")
	}
}
