package submit

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// Source names where the merged value at path came from, as the user gave
// it: the flag ("--name"), the --set expression ("--set name=MyJob: name"),
// or the key in a values file ("-f job.yaml: name").
func (r *Request) Source(path string) string {
	o := render.OriginOf(r.render(), path)
	// (A URL's credentials in the expression are never repeated.)
	switch from, flag := givenBy(o, path, userInfo.ReplaceAllString(o.Set, "//REDACTED@")); {
	case flag:
		return from
	case from != "":
		return from + ": " + path
	}
	return path
}

// givenBy names what gave the value at key, o being its origin: the --set
// expression (set, as it is to be shown), the flag (flag true), or the
// values file ("-f job.yaml"); "" when none did (a chart's default).
func givenBy(o render.Origin, key, set string) (by string, flag bool) {
	switch {
	case o.Set != "":
		return "--set " + set, false
	case o.Flags && flagOfValue[key] != "":
		return flagOfValue[key], true
	case o.File != "":
		return "-f " + o.File, false
	}
	return "", false
}

// checkGitCode checks code.git of the merged values as ParseCode checks
// --code git:, wherever they came from (--set, a job file, a rerun's
// recorded request): a URL without credentials, a ref, a subdirectory
// below the clone. The URL's credentials are never shown.
func (r *Request) checkGitCode(values map[string]any) error {
	code, _ := values["code"].(map[string]any)
	git, _ := code["git"].(map[string]any)
	if git == nil {
		return nil
	}
	if u, _ := git["url"].(string); u != "" {
		if err := checkGitURL(u); err != nil {
			return exit.UsageErrorf("%s: %v", r.Source("code.git.url"), err)
		}
	}
	if ref, _ := git["ref"].(string); ref != "" && (!gitRef.MatchString(ref) || strings.Contains(ref, "..")) {
		return exit.UsageErrorf("%s: %q is not a branch, tag or commit", r.Source("code.git.ref"), jobmodel.OneLine(ref))
	}
	if subdir, _ := git["subdir"].(string); subdir != "" {
		if err := storage.CheckSubPath(r.Source("code.git.subdir"), subdir); err != nil {
			return err
		}
	}
	return nil
}

// checkValues checks the merged values as the flags are checked where they
// are parsed, so that a value from a job file or --set that the API server
// or an operator would reject later fails here, naming where it came from.
func (r *Request) checkValues(values map[string]any) error {
	if err := r.checkGitCode(values); err != nil {
		return err
	}
	if err := r.checkString(values, "", "name", CheckName); err != nil {
		return err
	}
	if err := r.checkString(values, "", "priorityClassName", CheckObjectName("PriorityClass")); err != nil {
		return err
	}
	if secrets, ok := values["imagePullSecrets"].([]any); ok {
		for _, s := range secrets {
			if s, ok := s.(string); ok {
				if err := CheckObjectName("Secret")(r.Source("imagePullSecrets"), s); err != nil {
					return err
				}
			}
		}
	}
	if err := r.checkContainer("", values); err != nil {
		return err
	}
	if m, ok := repeated(values["data"], "mountPath"); ok {
		return exit.UsageErrorf("%s: two volumes are mounted at %s", r.Source("data"), m)
	}
	pods, err := r.checkRoles(values)
	if err != nil {
		return err
	}
	return r.checkRunPolicy(values, pods)
}

// checkRoles checks the replicas and the container of each role ("roles")
// or task ("tasks") of the values, and counts the job's pods.
func (r *Request) checkRoles(values map[string]any) (pods float64, err error) {
	for _, rolesKey := range []string{"roles", "tasks"} {
		roles, _ := values[rolesKey].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(roles)) {
			role, _ := roles[name].(map[string]any)
			prefix := rolesKey + "." + name + "."
			if n, ok := number(role["replicas"]); ok {
				if err := r.checkCount(prefix+"replicas", n); err != nil {
					return 0, err
				}
				pods += n
			}
			if err := r.checkContainer(prefix, role); err != nil {
				return 0, err
			}
		}
	}
	return pods, nil
}

// checkRunPolicy checks the counts of the "runPolicy" value, and that
// minAvailable is no more than the job's pods (when they are counted).
func (r *Request) checkRunPolicy(values map[string]any, pods float64) error {
	runPolicy, _ := values["runPolicy"].(map[string]any)
	for _, key := range []string{"backoffLimit", "ttlSecondsAfterFinished", "minAvailable"} {
		if n, ok := number(runPolicy[key]); ok {
			if err := r.checkCount("runPolicy."+key, n); err != nil {
				return err
			}
		}
	}
	if n, ok := number(runPolicy["minAvailable"]); ok && pods > 0 && n > pods {
		return exit.UsageErrorf("%s %v: more than the job's %v pods, it would never start", r.Source("runPolicy.minAvailable"), n, pods)
	}
	return nil
}

// checkContainer checks the values of a container: at the top (prefix "")
// or of a role ("roles.worker.").
func (r *Request) checkContainer(prefix string, values map[string]any) error {
	if err := r.checkString(values, prefix, "image", CheckImage); err != nil {
		return err
	}
	if err := r.checkString(values, prefix, "workingDir", CheckWorkingDir); err != nil {
		return err
	}
	if name, ok := repeated(values["env"], "name"); ok {
		return exit.UsageErrorf("%s: %s is given twice", r.Source(prefix+"env"), name)
	}
	res, _ := values["resources"].(map[string]any)
	if n, ok := number(res["gpus"]); ok {
		return r.checkCount(prefix+"resources.gpus", n)
	}
	return nil
}

// checkString checks the string at key of values (of a container under
// prefix) with check, naming where it came from; no string, or "", passes.
func (r *Request) checkString(values map[string]any, prefix, key string, check func(what, value string) error) error {
	if s, ok := values[key].(string); ok && s != "" {
		return check(r.Source(prefix+key), s)
	}
	return nil
}

// repeated is the first string at key that two of the maps of list (a list
// of the values) share: two env variables of one name, two volumes at one
// mount path. false: none.
func repeated(list any, key string) (string, bool) {
	items, _ := list.([]any)
	seen := map[string]bool{}
	for _, item := range items {
		m, _ := item.(map[string]any)
		if s, ok := m[key].(string); ok {
			if seen[s] {
				return s, true
			}
			seen[s] = true
		}
	}
	return "", false
}

func (r *Request) checkCount(path string, n float64) error {
	if n > kinds.MaxCount {
		return exit.UsageErrorf("%s %.0f: must be at most %d", r.Source(path), n, kinds.MaxCount)
	}
	return nil
}

// number reads a whole number of the values (float64 from YAML and JSON,
// int64 from --set, int from flags).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, !math.IsNaN(n)
	}
	return 0, false
}
