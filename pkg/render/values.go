package render

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
	helmchart "helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// The values a chart renders with, worked out as Helm works them out for
// "helm template": which dependencies are enabled (conditions, tags,
// aliases), the values they export (import-values), and the chart's
// defaults under the user's values, down through every subchart with the
// globals passed on.
//
// This is easyai's own code, not Helm's: Helm's (pkg/chart/common/util and
// pkg/chart/v2/util) sits in the same packages as its JSON Schema
// validation, whose library compiles every draft's metaschema when the
// program starts, a seventh of the CPU of an "easyai version". The
// package's tests run Helm's own functions on the same charts and values
// and compare (values_test.go), including the odd cases: a null removes a
// default, a global table is shared with the parent's, a dependency's
// values are merged rather than coalesced.

// globalKey is the table of values every subchart sees (.Values.global).
const globalKey = "global"

// asTable is v as a table of values (a YAML mapping). Only map[string]any
// counts, as in Helm.
func asTable(v any) (map[string]any, bool) {
	t, ok := v.(map[string]any)
	return t, ok
}

// copyValue copies the tables and lists of v, down to their scalars.
func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = copyValue(e)
		}
		return out
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = copyValue(e)
		}
		return out
	default:
		return v
	}
}

// chartValues returns c's defaults, and its subcharts', under vals (vals is
// copied, not changed). A null in vals removes the default under it, unless
// keepNulls (Helm's MergeValues, used for import-values, keeps them; its
// CoalesceValues, used for rendering, does not).
func chartValues(c *chart.Chart, vals map[string]any, keepNulls bool) (map[string]any, error) {
	out, _ := copyValue(vals).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return fillChart(c, out, keepNulls)
}

// fillChart puts c's defaults under dst, then does the same for each
// subchart in dst's table of the subchart's name, the globals passed down.
func fillChart(c *chart.Chart, dst map[string]any, keepNulls bool) (map[string]any, error) {
	fillDefaults(c, dst, keepNulls)
	for _, sub := range c.Dependencies() {
		name := sub.Name()
		given, ok := dst[name]
		if !ok {
			given = map[string]any{}
			dst[name] = given
		}
		subValues, ok := asTable(given)
		if !ok {
			return dst, fmt.Errorf("the values of subchart %s are a %s, not a table", name, describe(given))
		}
		passGlobals(subValues, dst)
		filled, err := fillChart(sub, subValues, keepNulls)
		dst[name] = filled
		if err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// describe names the type of a value as YAML would.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "list"
	case string:
		return "string"
	case bool:
		return "boolean"
	default:
		return "number"
	}
}

// fillDefaults puts c's own values (a copy) under dst: a key dst lacks
// takes the default; a null in dst removes it (unless keepNulls); two
// tables merge, dst's values winning.
func fillDefaults(c *chart.Chart, dst map[string]any, keepNulls bool) {
	defaults, _ := copyValue(c.Values).(map[string]any)
	for key, def := range defaults {
		given, ok := dst[key]
		switch {
		case !ok:
			dst[key] = def
		case given == nil:
			if !keepNulls {
				delete(dst, key)
			}
		default:
			givenTable, ok := asTable(given)
			if !ok {
				continue
			}
			if defTable, ok := asTable(def); ok {
				// A subchart's table in the parent's values keeps its
				// nulls: they reach the subchart, whose own defaults they
				// remove in their turn.
				mergeUnder(givenTable, defTable, keepNulls || isSubchart(c, key))
			}
		}
	}
}

// isSubchart says whether one of c's subcharts is named name.
func isSubchart(c *chart.Chart, name string) bool {
	for _, sub := range c.Dependencies() {
		if sub.Name() == name {
			return true
		}
	}
	return false
}

// mergeUnder puts src's values under dst's, tables merging all the way
// down, and returns dst. A key null in dst keeps src's value out (and, unless
// keepNulls, is removed from dst). A table never replaces a scalar nor a
// scalar a table.
func mergeUnder(dst, src map[string]any, keepNulls bool) map[string]any {
	if src == nil {
		return dst
	}
	if dst == nil {
		return src
	}
	var nulls []string
	for key, v := range dst {
		if v == nil {
			nulls = append(nulls, key)
		}
	}
	for key, sv := range src {
		dv, ok := dst[key]
		if !ok {
			dst[key] = sv
			continue
		}
		if dv == nil {
			continue
		}
		if srcTable, ok := asTable(sv); ok {
			if dstTable, ok := asTable(dv); ok {
				mergeUnder(dstTable, srcTable, keepNulls)
			}
		}
	}
	if !keepNulls {
		for _, key := range nulls {
			delete(dst, key)
		}
	}
	return dst
}

// passGlobals passes the parent's globals on to a subchart's values: each
// global the subchart's values do not set, and each global table merged
// with the subchart's (whose values win). A global table is copied one
// level deep only, as Helm copies it: tables below are the parent's own.
func passGlobals(child, parent map[string]any) {
	childGlobals := map[string]any{}
	if g, ok := child[globalKey]; ok {
		if childGlobals, ok = asTable(g); !ok {
			return
		}
	}
	parentGlobals := map[string]any{}
	if g, ok := parent[globalKey]; ok {
		if parentGlobals, ok = asTable(g); !ok {
			return
		}
	}
	for key, pv := range parentGlobals {
		existing, has := childGlobals[key]
		existingTable, existingIsTable := asTable(existing)
		if parentTable, ok := asTable(pv); ok {
			merged := make(map[string]any, len(parentTable))
			for k, v := range parentTable {
				merged[k] = v
			}
			switch {
			case !has:
				childGlobals[key] = merged
			case existingIsTable:
				mergeUnder(merged, existingTable, true)
				childGlobals[key] = merged
			}
			continue
		}
		if has && existingIsTable {
			continue
		}
		childGlobals[key] = pv
	}
	child[globalKey] = childGlobals
}

// processDependencies does to c what Helm does to a chart before rendering
// it: drops the dependencies their conditions or tags disable, renames the
// aliased ones, and brings each dependency's exported values into c's
// values (import-values).
func processDependencies(c *chart.Chart, vals map[string]any) error {
	if err := enableDependencies(c, vals, ""); err != nil {
		return err
	}
	return importValues(c)
}

// enableDependencies keeps the subcharts of c that Chart.yaml lists (a copy
// under its alias where it has one) or does not name at all, then drops the
// ones a tag or condition disables, and does the same in the ones kept. path
// is where c's values sit in the parent's ("sub.").
func enableDependencies(c *chart.Chart, vals map[string]any, path string) error {
	if c.Metadata.Dependencies == nil {
		return nil
	}
	var subs []*chart.Chart
	for _, sub := range c.Dependencies() {
		if !listed(c.Metadata.Dependencies, sub) {
			subs = append(subs, sub)
		}
	}
	for _, dep := range c.Metadata.Dependencies {
		if dep == nil {
			continue
		}
		if sub := dependencyChart(c.Dependencies(), dep); sub != nil {
			subs = append(subs, sub)
		}
		if dep.Alias != "" {
			dep.Name = dep.Alias
		}
	}
	c.SetDependencies(subs...)

	for _, dep := range c.Metadata.Dependencies {
		if dep != nil {
			dep.Enabled = true
		}
	}
	merged, err := chartValues(c, vals, false)
	if err != nil {
		return err
	}
	applyTags(c.Metadata.Dependencies, merged)
	applyConditions(c.Metadata.Dependencies, merged, path)

	disabled := map[string]bool{}
	for _, dep := range c.Metadata.Dependencies {
		if dep != nil && !dep.Enabled {
			disabled[dep.Name] = true
		}
	}
	var kept []*chart.Chart
	for _, sub := range c.Dependencies() {
		if !disabled[sub.Metadata.Name] {
			kept = append(kept, sub)
		}
	}
	var keptDeps []*chart.Dependency
	for _, dep := range c.Metadata.Dependencies {
		if dep == nil || !disabled[dep.Name] {
			keptDeps = append(keptDeps, dep)
		}
	}
	for _, sub := range kept {
		if err := enableDependencies(sub, merged, path+sub.Metadata.Name+"."); err != nil {
			return err
		}
	}
	c.Metadata.Dependencies = keptDeps
	c.SetDependencies(kept...)
	return nil
}

// listed says whether Chart.yaml lists sub, with a version range sub's
// version is in.
func listed(deps []*chart.Dependency, sub *chart.Chart) bool {
	for _, dep := range deps {
		if dep != nil && sub.Name() == dep.Name && inRange(dep.Version, sub.Metadata.Version) {
			return true
		}
	}
	return false
}

// inRange says whether version is in the range constraint; false when
// either does not parse.
func inRange(constraint, version string) bool {
	v, err := semver.NewVersion(version)
	if err != nil {
		return false
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return false
	}
	return c.Check(v)
}

// dependencyChart is the first subchart that dep names, in dep's version
// range, as a copy (its metadata and its own subcharts copied too) named
// after dep's alias if it has one; nil if there is none.
func dependencyChart(subs []*chart.Chart, dep *chart.Dependency) *chart.Chart {
	for _, sub := range subs {
		if sub == nil || sub.Name() != dep.Name || !inRange(dep.Version, sub.Metadata.Version) {
			continue
		}
		cp := *sub
		md := *sub.Metadata
		if md.Dependencies != nil {
			deps := make([]*chart.Dependency, len(md.Dependencies))
			for i, d := range md.Dependencies {
				if d != nil {
					dc := *d
					d = &dc
				}
				deps[i] = d
			}
			md.Dependencies = deps
		}
		cp.Metadata = &md
		cp.SetDependencies()
		for _, grandchild := range sub.Dependencies() {
			gc := *grandchild
			cp.AddDependency(&gc)
		}
		if dep.Alias != "" {
			cp.Metadata.Name = dep.Alias
		}
		return &cp
	}
	return nil
}

// applyTags disables a dependency whose tags are all false in the values'
// tags table (any true one enables it; tags not set count for nothing).
func applyTags(deps []*chart.Dependency, vals map[string]any) {
	tags, err := common.Values(vals).Table("tags")
	if err != nil {
		return
	}
	for _, dep := range deps {
		if dep == nil {
			continue
		}
		var anyTrue, anyFalse bool
		for _, tag := range dep.Tags {
			if b, ok := tags[tag].(bool); ok {
				anyTrue = anyTrue || b
				anyFalse = anyFalse || !b
			}
		}
		dep.Enabled = anyTrue || !anyFalse
	}
}

// applyConditions enables or disables a dependency by the first of its
// conditions (a comma list of value paths) that is a boolean in the values;
// conditions override tags.
func applyConditions(deps []*chart.Dependency, vals map[string]any, path string) {
	for _, dep := range deps {
		if dep == nil {
			continue
		}
		for _, cond := range strings.Split(strings.TrimSpace(dep.Condition), ",") {
			if cond == "" {
				continue
			}
			v, err := common.Values(vals).PathValue(path + cond)
			if err != nil {
				continue
			}
			if b, ok := v.(bool); ok {
				dep.Enabled = b
				break
			}
		}
	}
}

// importValues brings the values each dependency exports into its parent's
// values, the deepest charts first. An import-values entry is a child table
// path and a parent path ({child: a.b, parent: x}) or the name of a table
// under the dependency's "exports". The chart's own values win over what it
// imports; of two imports, the first wins.
func importValues(c *chart.Chart) error {
	for _, sub := range c.Dependencies() {
		if err := importValues(sub); err != nil {
			return err
		}
	}
	if c.Metadata.Dependencies == nil {
		return nil
	}
	vals, err := chartValues(c, nil, true)
	if err != nil {
		return err
	}
	imported := map[string]any{}
	for _, dep := range c.Metadata.Dependencies {
		if dep == nil {
			continue
		}
		var entries []any
		for _, entry := range dep.ImportValues {
			var child, parent string
			switch entry := entry.(type) {
			case map[string]any:
				child, parent = fmt.Sprintf("%v", entry["child"]), fmt.Sprintf("%v", entry["parent"])
			case string:
				child, parent = "exports."+entry, "."
			default:
				continue
			}
			// Written back in the one form, as Helm does.
			entries = append(entries, map[string]string{"child": child, "parent": parent})
			table, err := common.Values(vals).Table(dep.Name + "." + child)
			if err != nil {
				continue
			}
			imported = mergeUnder(imported, nestUnder(parent, table.AsMap()), true)
		}
		dep.ImportValues = entries
	}
	own, _ := copyValue(vals).(map[string]any)
	c.Values = mergeUnder(own, imported, true)
	return nil
}

// nestUnder puts table at the dotted path ("." is the top).
func nestUnder(path string, table map[string]any) map[string]any {
	if path == "." {
		return table
	}
	keys := strings.Split(path, ".")
	out := table
	for i := len(keys) - 1; i >= 0; i-- {
		out = map[string]any{keys[i]: out}
	}
	return out
}

// renderValues are the values a chart's templates see at the top (.Chart,
// .Capabilities, .Release, .Values), with the chart's values checked
// against its schemas.
func renderValues(c *chart.Chart, vals map[string]any, release common.ReleaseOptions) (common.Values, error) {
	merged, err := chartValues(c, vals, false)
	if err != nil {
		return nil, err
	}
	return renderValuesOf(c, merged, release)
}

// renderValuesOf is renderValues of values already merged by chartValues.
func renderValuesOf(c *chart.Chart, merged map[string]any, release common.ReleaseOptions) (common.Values, error) {
	acc, err := helmchart.NewAccessor(c)
	if err != nil {
		return nil, err
	}
	if err := checkSchemas(c, merged); err != nil {
		return nil, err
	}
	return common.Values{
		"Chart":        acc.MetadataAsMap(),
		"Capabilities": common.DefaultCapabilities,
		"Release": map[string]any{
			"Name":      release.Name,
			"Namespace": release.Namespace,
			"IsUpgrade": release.IsUpgrade,
			"IsInstall": release.IsInstall,
			"Revision":  release.Revision,
			"Service":   "Helm",
		},
		"Values": common.Values(merged),
	}, nil
}
