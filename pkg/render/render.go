// Package render turns a job chart and values into the job objects easyai
// submits. Charts are Helm charts (apiVersion v2) rendered in process with
// Helm's engine, the way "helm template" renders them: the kind's embedded
// chart, or a team's own chart directory (--chart), with easyai's library
// chart (easyai-lib) supplied when the chart depends on it without
// vendoring it. The values are worked out by values.go and checked against
// the charts' values.schema.json by schema.go. Every rendered
// object is strictly decoded into its kind's API type, so that a misspelt
// field is an error instead of something the API server drops.
package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
	"helm.sh/helm/v4/pkg/strvals"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/charts"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// LibraryName is the name of easyai's library chart, which job charts list
// in their Chart.yaml dependencies.
const LibraryName = "easyai-lib"

// Namespace is the release namespace charts render with (.Release.Namespace);
// the rendered jobs carry none, the CLI sets theirs.
const Namespace = "default"

// Kind is what a chart renders: a job's kind (kinds.Kind), or a serving's
// Deployment. Its chart renders objects of its one GroupVersionKind, each
// strictly decoded by Decode.
type Kind interface {
	Name() string
	GroupVersionKind() schema.GroupVersionKind
	Chart() fs.FS
	Decode(obj *unstructured.Unstructured) (runtime.Object, error)
}

// Request is one rendering of a job chart.
type Request struct {
	Kind       Kind           // whose embedded chart (Kind.Chart()) and Decode are used
	ChartDir   string         // --chart: render this chart directory from disk instead (a team's own chart; its easyai-lib dependency may be vendored in its charts/ folder or absent if it doesn't use it)
	ValueFiles []ValueFile    // -f files, in order (Helm semantics), read once by ReadValueFiles
	Values     map[string]any // from the CLI's flags (only flags the user set); override the -f files
	Set        []string       // --set key=value, Helm strvals syntax; override everything
	// Chart is the chart loaded once by LoadChart; nil: loaded for this
	// rendering from ChartDir or Kind.
	Chart *Chart
}

// Chart is a job chart loaded once, to be rendered more than once (its
// values resolved, then the job rendered) without reading it, or repeating
// its loader's warnings, again.
type Chart struct {
	chart *chart.Chart
}

// LoadChart loads the chart of req: ChartDir, or the kind's own.
func LoadChart(req Request) (*Chart, error) {
	if req.Kind == nil {
		return nil, errors.New("render: no kind")
	}
	c, err := loadChart(req)
	if err != nil {
		return nil, err
	}
	return &Chart{chart: c}, nil
}

// ValueFile is a values file (-f) as read: Name is the path the user gave.
type ValueFile struct {
	Name string
	Data []byte
}

// ReadValueFiles reads each -f file once ("-" is stdin), at most
// userfile.JobFileLimit bytes each: a file from a pipe (-f <(...)) can be
// read only once, and every rendering of the request uses what was read.
func ReadValueFiles(ctx context.Context, stdin io.Reader, paths []string) ([]ValueFile, error) {
	files := make([]ValueFile, 0, len(paths))
	for _, path := range paths {
		data, err := userfile.Read(ctx, "-f", path, userfile.JobFileLimit, stdin)
		if err != nil {
			return nil, err
		}
		files = append(files, ValueFile{Name: path, Data: data})
	}
	return files, nil
}

// Render merges chart defaults < value files < Values < Set, renders the
// chart with Helm's engine in process (no helm binary), parses every
// manifest, and strictly decodes each object with req.Kind.Decode. Returns
// the objects in manifest order.
func Render(req Request) ([]*unstructured.Unstructured, error) {
	p, err := prepare(req)
	if err != nil {
		return nil, err
	}
	files, err := engine.Render(p.chart, p.renderValues)
	if err != nil {
		return nil, chartError(p.chart.Name(), err)
	}
	return p.objects(files)
}

// ValueError is a chart's check of a value failing ("roles.worker.replicas:
// must be a whole number"): Path is the value's path, Message what is wrong.
type ValueError struct {
	Chart, Path, Message string
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("chart %s: %s: %s", e.Chart, e.Path, e.Message)
}

var (
	// failAt is how Helm prefixes the message of a template's fail.
	failAt = regexp.MustCompile(`^execution error at \([^)]*\): `)
	// valuePath is the value path a check's message starts with (easyai-lib's
	// checks all do).
	valuePath = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*(?:\[[0-9]+\])*(?:\.[A-Za-z0-9_-]+(?:\[[0-9]+\])*)*): (.*)$`)
)

// chartError is a usage error of a failed rendering: a ValueError when a
// check of the chart failed on a value (without the template's file and
// line, which mean nothing to the user), else the engine's error.
func chartError(chart string, err error) error {
	msg := err.Error()
	if loc := failAt.FindStringIndex(msg); loc != nil {
		msg = msg[loc[1]:]
		if m := valuePath.FindStringSubmatch(msg); m != nil {
			return &exit.CodedError{Code: exit.Usage, Err: &ValueError{Chart: chart, Path: m[1], Message: m[2]}}
		}
		return exit.UsageErrorf("chart %s: %s", chart, msg)
	}
	return exit.UsageErrorf("chart %s: %v", chart, err)
}

// MergedValues returns the final merged values (for the CLI to record the
// resolved request in an annotation): the chart's defaults under the value
// files, Values and Set, as the chart's templates see them in .Values.
func MergedValues(req Request) (map[string]any, error) {
	p, err := prepare(req)
	if err != nil {
		return nil, err
	}
	vals, err := p.renderValues.Table("Values")
	if err != nil {
		return nil, err
	}
	out := withoutNulls(vals)
	// Helm adds a (usually empty) table for every dependency and for
	// globals; keep them only when they hold something.
	for _, dep := range p.chart.Dependencies() {
		if m, ok := out[dep.Name()].(map[string]any); ok && isEmptyTable(m) {
			delete(out, dep.Name())
		}
	}
	if m, ok := out["global"].(map[string]any); ok && isEmptyTable(m) {
		delete(out, "global")
	}
	return out, nil
}

// withoutNulls copies the tables of m without their null values (unset
// values: leaving them out means the same to the charts).
func withoutNulls(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case nil:
		case map[string]any:
			out[k] = withoutNulls(v)
		case common.Values:
			out[k] = withoutNulls(v)
		default:
			out[k] = v
		}
	}
	return out
}

func isEmptyTable(m map[string]any) bool {
	for k, v := range m {
		if g, ok := v.(map[string]any); k == "global" && ok && isEmptyTable(g) {
			continue
		}
		return false
	}
	return true
}

// prepared is a loaded chart with the values it renders with.
type prepared struct {
	req          Request
	chart        *chart.Chart
	renderValues common.Values
}

func prepare(req Request) (*prepared, error) {
	var c *chart.Chart
	if req.Chart != nil {
		c = req.Chart.chart
	} else {
		loaded, err := LoadChart(req)
		if err != nil {
			return nil, err
		}
		c = loaded.chart
	}
	vals, err := userValues(req)
	if err != nil {
		return nil, err
	}
	// As helm install/template do: dependency conditions, tags and
	// import-values, then the chart's defaults under the user's values.
	if err := processDependencies(c, vals); err != nil {
		return nil, exit.UsageErrorf("chart %s: %v", c.Name(), err)
	}
	merged, err := chartValues(c, vals, false)
	if err != nil {
		return nil, exit.UsageErrorf("chart %s: %v", c.Name(), err)
	}
	// The release is named after the job.
	options := common.ReleaseOptions{Name: releaseName(merged), Namespace: Namespace, Revision: 1, IsInstall: true}
	rv, err := renderValuesOf(c, merged, options)
	if err != nil {
		return nil, exit.UsageErrorf("chart %s: %v", c.Name(), err)
	}
	return &prepared{req: req, chart: c, renderValues: rv}, nil
}

func releaseName(vals common.Values) string {
	switch name := vals["name"].(type) {
	case nil:
		return ""
	case string:
		return name
	default:
		return fmt.Sprint(name)
	}
}

// loadChart loads the request's chart and gives it easyai-lib where it
// depends on it without vendoring it.
func loadChart(req Request) (*chart.Chart, error) {
	var c *chart.Chart
	var err error
	if req.ChartDir != "" {
		if c, err = loader.Load(req.ChartDir); err != nil {
			return nil, exit.UsageErrorf("--chart %s: %v", req.ChartDir, err)
		}
	} else if c, err = loadFS(req.Kind.Chart()); err != nil {
		return nil, fmt.Errorf("the %s chart: %w", req.Kind.Name(), err)
	}
	if err := attachLibrary(c); err != nil {
		return nil, err
	}
	return c, nil
}

// loadFS loads a chart from the files of its folder.
func loadFS(fsys fs.FS) (*chart.Chart, error) {
	var files []*archive.BufferedFile
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		files = append(files, &archive.BufferedFile{Name: name, Data: data})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return loader.LoadFiles(files)
}

// attachLibrary adds the embedded easyai-lib to c, and to the charts c
// vendors, wherever Chart.yaml depends on it and charts/ does not hold it,
// as "helm dependency build" would vendor it from file://../easyai-lib.
func attachLibrary(c *chart.Chart) error {
	for _, sub := range c.Dependencies() {
		if err := attachLibrary(sub); err != nil {
			return err
		}
	}
	for _, dep := range c.Metadata.Dependencies {
		if dep.Name != LibraryName {
			continue
		}
		for _, sub := range c.Dependencies() {
			if sub.Name() == LibraryName {
				return nil // vendored
			}
		}
		lib, err := loadFS(charts.Library())
		if err != nil {
			return fmt.Errorf("the %s chart: %w", LibraryName, err)
		}
		if dep.Version != "" {
			constraint, err := semver.NewConstraint(dep.Version)
			if err != nil {
				return exit.UsageErrorf("chart %s: dependency %s: version %q: %v", c.Name(), LibraryName, dep.Version, err)
			}
			v, err := semver.NewVersion(lib.Metadata.Version)
			if err != nil || !constraint.Check(v) {
				return exit.UsageErrorf("chart %s: needs %s %s, easyai has %s: vendor the version it needs in its charts/ folder (helm dependency build)",
					c.Name(), LibraryName, dep.Version, lib.Metadata.Version)
			}
		}
		c.AddDependency(lib)
		return nil
	}
	return nil
}

// userValues merges the value files, the CLI's values and --set, each over
// the ones before, as Helm merges -f and --set.
func userValues(req Request) (map[string]any, error) {
	base := map[string]any{}
	for _, file := range req.ValueFiles {
		current := map[string]any{}
		if err := yaml.Unmarshal(file.Data, &current); err != nil {
			return nil, exit.UsageErrorf("values file %s: %v", file.Name, err)
		}
		base = MergeMaps(base, current)
	}
	if len(req.Values) > 0 {
		// A JSON round trip gives the CLI's values the types values read
		// from YAML have (map[string]any, []any, float64), which Helm's
		// merging and the templates expect.
		data, err := json.Marshal(req.Values)
		if err != nil {
			return nil, fmt.Errorf("render: values: %w", err)
		}
		flags := map[string]any{}
		if err := json.Unmarshal(data, &flags); err != nil {
			return nil, fmt.Errorf("render: values: %w", err)
		}
		base = MergeMaps(base, flags)
	}
	for _, expr := range req.Set {
		if err := strvals.ParseInto(expr, base); err != nil {
			return nil, exit.UsageErrorf("--set %s: %v", expr, err)
		}
	}
	return base, nil
}

// mergeMaps merges b into a: b's tables merge into a's, anything else of b
// replaces a's (lists included). It is Helm's merging of value files.
func MergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bv, ok := v.(map[string]any); ok {
			if av, ok := out[k].(map[string]any); ok {
				out[k] = MergeMaps(av, bv)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// objects parses the rendered manifests, in Helm's manifest order, and
// decodes each with the kind.
func (p *prepared) objects(files map[string]string) ([]*unstructured.Unstructured, error) {
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name)
		}
	}
	// Hooks (helm.sh/hook annotations) are left out: Helm runs them around
	// an install, they are not part of the job.
	_, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, exit.UsageErrorf("chart %s: %v", p.chart.Name(), err)
	}
	kind := p.req.Kind
	want := kind.GroupVersionKind()
	var objs []*unstructured.Unstructured
	for _, m := range manifests {
		obj, err := parseObject(m.Content)
		if err != nil {
			return nil, exit.UsageErrorf("chart %s: %s: %v", p.chart.Name(), m.Name, err)
		}
		if obj == nil {
			continue
		}
		if gvk := obj.GroupVersionKind(); gvk != want {
			return nil, exit.UsageErrorf("chart %s: %s renders a %s (%s), not a %s (%s): a %s job chart renders only %s objects",
				p.chart.Name(), m.Name, gvk.Kind, gvk.GroupVersion(), want.Kind, want.GroupVersion(), kind.Name(), want.Kind)
		}
		if obj.GetName() == "" {
			return nil, exit.UsageErrorf("chart %s: %s: the %s has no metadata.name", p.chart.Name(), m.Name, want.Kind)
		}
		if _, err := kind.Decode(obj); err != nil {
			return nil, exit.UsageErrorf("chart %s: %s: %v", p.chart.Name(), m.Name, explainDecode(kind, obj, err))
		}
		objs = append(objs, obj)
	}
	if len(objs) == 0 {
		return nil, exit.UsageErrorf("chart %s renders no %s", p.chart.Name(), want.Kind)
	}
	return objs, nil
}

// parseObject parses one YAML document into an object (nil for a document
// with nothing but comments); whole numbers become int64.
func parseObject(doc string) (*unstructured.Unstructured, error) {
	data, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		return nil, err
	}
	var content map[string]any
	if err := utiljson.Unmarshal(data, &content); err != nil {
		return nil, fmt.Errorf("not an object: %w", err)
	}
	if content == nil {
		return nil, nil
	}
	obj := &unstructured.Unstructured{Object: content}
	if obj.GetAPIVersion() == "" || obj.GetKind() == "" {
		return nil, errors.New("an object without apiVersion or kind")
	}
	return obj, nil
}

// Origin says where the merged value at path (e.g. "name", "runPolicy.queue")
// came from, the last source that sets it winning as in the merge: Set is
// the --set expression, Flags that the CLI's flags gave it, File the values
// file; all empty for a chart default.
type Origin struct {
	Set   string
	Flags bool
	File  string
}

// OriginOf finds where the value at path of req's merged values came from.
func OriginOf(req Request, path string) Origin {
	keys := strings.Split(path, ".")
	for i := len(req.Set) - 1; i >= 0; i-- {
		m := map[string]any{}
		if strvals.ParseInto(req.Set[i], m) == nil && hasPath(m, keys) {
			return Origin{Set: req.Set[i]}
		}
	}
	if hasPath(req.Values, keys) {
		return Origin{Flags: true}
	}
	for i := len(req.ValueFiles) - 1; i >= 0; i-- {
		m := map[string]any{}
		if yaml.Unmarshal(req.ValueFiles[i].Data, &m) == nil && hasPath(m, keys) {
			return Origin{File: req.ValueFiles[i].Name}
		}
	}
	return Origin{}
}

func hasPath(m map[string]any, keys []string) bool {
	for i, k := range keys {
		v, ok := m[k]
		if !ok {
			return false
		}
		if i == len(keys)-1 {
			return true
		}
		if m, ok = v.(map[string]any); !ok {
			return false
		}
	}
	return false
}
