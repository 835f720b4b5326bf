// Package submit turns what a user asked for (flags, values files, --set) into
// a job's objects, stamped with easyai's labels and annotations, and sends
// them to the cluster in one request.
package submit

import (
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// Flags are the common submit flags, as typed (declared by the table of
// flags.go, AddFlags). Changed tells which ones the user set: only those
// become values, so that a values file is not overridden by a flag's
// default.
type Flags struct {
	Name             string
	Image            string
	Workers          int
	GPUs             float64
	CPU, Memory      string
	Env              []string
	WorkingDir       string
	Labels           []string
	Annotations      []string
	NodeSelectors    []string
	Tolerations      []string
	ImagePullSecrets []string
	ImagePullPolicy  string
	ShmSize          string
	Priority         string
	Queue            string
	QueueSystem      string
	Gang             bool
	Retry            int
	MaxDuration      time.Duration
	// Oversell: cpu and memory requested at their limit divided by it.
	Oversell int
	// Preemptible runs the job at the configuration's low PriorityClass
	// (Settings.Preemptible).
	Preemptible      bool
	TTLAfterFinished time.Duration
	CleanPodPolicy   string
	Experiment       string
	Data             []string
	Command          []string

	// The team's shared storage (docs/storage.md): --storage, --data-dir,
	// --pretrained-from JOB, --persist-logs / --no-persist-logs, and the
	// code: --code git:URL[@REF][#SUBDIR] | dir:PATH, --code-secret.
	Storage        string
	DataDir        string
	PretrainedFrom string
	PersistLogs    bool
	NoPersistLogs  bool
	Code           string
	CodeSecret     string

	// Develop and debug inside the cluster (docs/debug.md).
	Devtools DevtoolsFlags

	// The flags of platforms other than Kubernetes (timaker): RDMA,
	// a GPU model, elastic (shared) resources and a file system mounted at
	// the code directory, TYPE:ENDPOINT:PATH[:ro].
	RDMA    bool
	GPUType string
	Elastic bool
	FS      string

	Changed func(flag string) bool
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// Values maps the flags the user set to chart values (see charts/*/values.yaml).
// Labels and annotations of the job are added by Build, not here.
func (f *Flags) Values() (map[string]any, error) {
	v := map[string]any{}
	for _, part := range []func(map[string]any) error{f.containerValues, f.resourceValues, f.madeValues, f.runPolicyValues} {
		if err := part(v); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// setChanged sets v[key] to value when the user set flag.
func (f *Flags) setChanged(v map[string]any, flag, key string, value any) {
	if f.Changed(flag) {
		v[key] = value
	}
}

// checkStrings checks the flags of one word (the name, the image, the
// working directory, the PriorityClass, the queue) and --workers, as they
// were given.
func (f *Flags) checkStrings() error {
	if f.Changed("name") {
		if err := CheckName("--name", f.Name); err != nil {
			return err
		}
	}
	checks := []struct {
		flag  string
		value string
		check func(flag, value string) error
	}{
		{"image", f.Image, CheckImage},
		{"working-dir", f.WorkingDir, CheckWorkingDir},
		{"priority", f.Priority, CheckObjectName("PriorityClass")},
		{"queue", f.Queue, CheckObjectName("queue")},
	}
	for _, c := range checks {
		// "" leaves the value to the job file, the configuration or the image.
		if f.Changed(c.flag) && c.value != "" {
			if err := c.check("--"+c.flag, c.value); err != nil {
				return err
			}
		}
	}
	if f.Changed("workers") {
		return kinds.CheckCount("--workers", f.Workers, 0)
	}
	return nil
}

// containerValues are the values of the job's containers: the name, image,
// working directory, /dev/shm, PriorityClass, the image's pull policy and
// secrets, and the command.
func (f *Flags) containerValues(v map[string]any) error {
	if err := f.checkStrings(); err != nil {
		return err
	}
	f.setChanged(v, "name", "name", f.Name)
	f.setChanged(v, "image", "image", f.Image)
	f.setChanged(v, "working-dir", "workingDir", f.WorkingDir)
	f.setChanged(v, "shm-size", "shmSize", f.ShmSize)
	f.setChanged(v, "priority", "priorityClassName", f.Priority)
	if f.Preemptible && f.Changed("priority") {
		return exit.UsageErrorf("--preemptible and --priority %s: choose one (--preemptible is the configuration's preemptible-priority-class)", f.Priority)
	}
	if f.ShmSize != "" {
		if err := kinds.CheckQuantity("--shm-size", f.ShmSize); err != nil {
			return err
		}
	}
	if f.Changed("image-pull-policy") {
		switch corev1.PullPolicy(f.ImagePullPolicy) {
		case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
			v["imagePullPolicy"] = f.ImagePullPolicy
		default:
			return exit.UsageErrorf("--image-pull-policy %q: must be Always, IfNotPresent or Never", f.ImagePullPolicy)
		}
	}
	if len(f.ImagePullSecrets) > 0 {
		for _, s := range f.ImagePullSecrets {
			if err := CheckObjectName("Secret")("--image-pull-secret", s); err != nil {
				return err
			}
		}
		v["imagePullSecrets"] = toAny(f.ImagePullSecrets)
	}
	if len(f.Command) > 0 {
		v["command"] = toAny(f.Command)
	}
	return nil
}

// resourceValues are --gpus, --cpu and --memory: the "resources" value.
func (f *Flags) resourceValues(v map[string]any) error {
	res := map[string]any{}
	if f.Changed("gpus") {
		gpus, err := f.gpus()
		if err != nil {
			return err
		}
		res["gpus"] = gpus
	}
	for flag, value := range map[string]string{"cpu": f.CPU, "memory": f.Memory} {
		if f.Changed(flag) {
			if err := kinds.CheckQuantity("--"+flag, value); err != nil {
				return err
			}
			res[flag] = value
		}
	}
	if len(res) > 0 {
		v["resources"] = res
	}
	return nil
}

// madeValues are the values each made of a few flags by a method of its
// own, in this order: the pods' repeatable flags (--env, --node-selector,
// --toleration, --data), then the storage, the code and the devtools. A
// value is set only when not empty.
func (f *Flags) madeValues(v map[string]any) error {
	for _, part := range []struct {
		key    string
		values func() (any, error)
	}{
		{"env", anyOf(f.envValues)},
		{"nodeSelector", anyOf(f.nodeSelectorValues)},
		{"tolerations", anyOf(f.tolerationValues)},
		{"data", anyOf(f.dataValues)},
		{"storage", anyOf(f.storageValues)},
		{"code", anyOf(f.codeValues)},
		{"devtools", anyOf(f.devtoolsValues)},
	} {
		value, err := part.values()
		if err != nil {
			return err
		}
		if value != nil && !emptyCollection(value) {
			v[part.key] = value
		}
	}
	return nil
}

// anyOf is values with its value as any.
func anyOf[T any](values func() (T, error)) func() (any, error) {
	return func() (any, error) { return values() }
}

// nodeSelectorValues are --node-selector KEY=VALUE as the "nodeSelector"
// value.
func (f *Flags) nodeSelectorValues() (map[string]any, error) {
	sel, err := parseLabelPairs("--node-selector", f.NodeSelectors)
	if err != nil {
		return nil, err
	}
	return anyValues(sel), nil
}

// tolerationValues are --toleration key[=value]:effect as the
// "tolerations" value.
func (f *Flags) tolerationValues() ([]any, error) {
	tols := []any{}
	for _, t := range f.Tolerations {
		tol, err := ParseToleration(t)
		if err != nil {
			return nil, err
		}
		tols = append(tols, tol)
	}
	return tols, nil
}

// envValues are --env NAME=VALUE as the "env" value: each name once.
func (f *Flags) envValues() ([]any, error) {
	env := []any{}
	seen := map[string]bool{}
	for _, kv := range f.Env {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || !envName.MatchString(k) {
			return nil, exit.UsageErrorf("--env %q: must be NAME=VALUE with a valid variable name", kv)
		}
		if seen[k] {
			return nil, exit.UsageErrorf("--env %q: %s is given twice", kv, k)
		}
		seen[k] = true
		env = append(env, map[string]any{"name": k, "value": val})
	}
	return env, nil
}

// dataValues are --data PVC:/mount[:ro] as the "data" value: each mount
// path once.
func (f *Flags) dataValues() ([]any, error) {
	data := []any{}
	mounts := map[string]bool{}
	for _, d := range f.Data {
		m, err := ParseData(d)
		if err != nil {
			return nil, err
		}
		mount := m["mountPath"].(string)
		if mounts[mount] {
			return nil, exit.UsageErrorf("--data %q: another --data is mounted at %s", d, mount)
		}
		mounts[mount] = true
		data = append(data, m)
	}
	return data, nil
}

// runPolicyValues are the flags of how the job runs: --gang, --queue,
// --retry, --max-duration, --ttl-after-finished and --clean-pod-policy, the
// "runPolicy" value.
func (f *Flags) runPolicyValues(v map[string]any) error {
	run := map[string]any{}
	f.setChanged(run, "gang", "gang", f.Gang)
	f.setChanged(run, "queue", "queue", f.Queue)
	if f.Changed("retry") {
		if err := kinds.CheckCount("--retry", f.Retry, 0); err != nil {
			return err
		}
		run["backoffLimit"] = f.Retry
	}
	if f.Changed("max-duration") {
		if f.MaxDuration < time.Second {
			return exit.UsageErrorf("--max-duration %s: must be at least 1s", f.MaxDuration)
		}
		run["activeDeadlineSeconds"] = int64(f.MaxDuration / time.Second)
	}
	if f.Changed("ttl-after-finished") {
		// 500ms would be rendered as 0 seconds: the job deleted as it ends.
		if f.TTLAfterFinished < 0 || (f.TTLAfterFinished > 0 && f.TTLAfterFinished < time.Second) || f.TTLAfterFinished/time.Second > kinds.MaxCount {
			return exit.UsageErrorf("--ttl-after-finished %s: must be 0 (delete the job as it ends) or between 1s and %ds", f.TTLAfterFinished, kinds.MaxCount)
		}
		run["ttlSecondsAfterFinished"] = int64(f.TTLAfterFinished / time.Second)
	}
	if f.Changed("clean-pod-policy") {
		switch f.CleanPodPolicy {
		case "All", "Running", "None":
			run["cleanPodPolicy"] = f.CleanPodPolicy
		default:
			return exit.UsageErrorf("--clean-pod-policy %q: must be All, Running or None", f.CleanPodPolicy)
		}
	}
	if len(run) > 0 {
		v["runPolicy"] = run
	}
	return nil
}

// Metadata returns the user's --label and --annotation pairs, validated.
func (f *Flags) Metadata() (labels, annotations map[string]string, err error) {
	if labels, err = parseLabelPairs("--label", f.Labels); err != nil {
		return nil, nil, err
	}
	annotations = map[string]string{}
	for _, kv := range f.Annotations {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || len(validation.IsQualifiedName(k)) > 0 {
			return nil, nil, exit.UsageErrorf("--annotation %q: must be KEY=VALUE with a valid annotation key", kv)
		}
		annotations[k] = val
	}
	if f.Experiment != "" {
		if errs := validation.IsValidLabelValue(f.Experiment); len(errs) > 0 {
			return nil, nil, exit.UsageErrorf("--experiment %q: %s", f.Experiment, strings.Join(errs, "; "))
		}
	}
	return labels, annotations, nil
}

// MaxNameLength is the longest job name: the operators name pods and
// Services after the job, with a role and an index added.
const MaxNameLength = 50

// CheckName fails unless name is a DNS-1035 label (lower-case letters,
// digits and '-', starting with a letter) of at most MaxNameLength
// characters: the operators make Services named after the job. what names
// where it came from (--name, or a key in a job file).
func CheckName(what, name string) error {
	if errs := validation.IsDNS1035Label(name); len(errs) > 0 || len(name) > MaxNameLength {
		return exit.UsageErrorf("%s %q: must be lower-case letters, digits and '-', start with a letter, end with a letter or digit, and be at most %d characters", what, name, MaxNameLength)
	}
	return nil
}

var imageRef = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:@+-]*$`)

// CheckImage fails unless image looks like an image reference
// (registry/name:tag or name@sha256:...): no spaces, newlines or quotes.
func CheckImage(what, image string) error {
	if !imageRef.MatchString(image) {
		return exit.UsageErrorf("%s %q: not an image reference (e.g. pytorch/pytorch:2.4, registry.example.com/team/img@sha256:...)", what, image)
	}
	return nil
}

// CheckWorkingDir fails unless dir is an absolute path.
func CheckWorkingDir(what, dir string) error {
	if !path.IsAbs(dir) {
		return exit.UsageErrorf("%s %q: must be an absolute path", what, dir)
	}
	return nil
}

// CheckObjectName checks the name of an API object of the given kind (a
// DNS-1123 subdomain), as a PriorityClass, Secret or queue name must be.
func CheckObjectName(kind string) func(what, name string) error {
	return func(what, name string) error {
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return exit.UsageErrorf("%s %q: not a %s name: %s", what, name, kind, strings.Join(errs, "; "))
		}
		return nil
	}
}

func parseLabelPairs(flag string, pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range pairs {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(val)) > 0 {
			return nil, exit.UsageErrorf("%s %q: must be KEY=VALUE with a valid label key and value", flag, kv)
		}
		out[k] = val
	}
	return out, nil
}

// ParseToleration reads --toleration key[=value]:effect.
func ParseToleration(s string) (map[string]any, error) {
	bad := func(why string) error {
		return exit.UsageErrorf("--toleration %q: %s (want key[=value]:effect, effect NoSchedule, PreferNoSchedule or NoExecute)", s, why)
	}
	i := strings.LastIndex(s, ":")
	if i < 0 {
		return nil, bad("no effect")
	}
	kv, effect := s[:i], s[i+1:]
	switch corev1.TaintEffect(effect) {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
	default:
		return nil, bad(fmt.Sprintf("unknown effect %q", effect))
	}
	key, value, hasValue := strings.Cut(kv, "=")
	if len(validation.IsQualifiedName(key)) > 0 {
		return nil, bad(fmt.Sprintf("bad key %q", key))
	}
	if hasValue && len(validation.IsValidLabelValue(value)) > 0 {
		return nil, bad(fmt.Sprintf("bad value %q (a label value: letters, digits, '-', '_' and '.', at most 63)", value))
	}
	tol := map[string]any{"key": key, "effect": effect, "operator": string(corev1.TolerationOpExists)}
	if hasValue {
		tol["operator"] = string(corev1.TolerationOpEqual)
		tol["value"] = value
	}
	return tol, nil
}

// ParseData reads --data PVC:/mount[:ro].
func ParseData(s string) (map[string]any, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, exit.UsageErrorf("--data %q: want PVC:/mount/path[:ro]", s)
	}
	claim, mount := parts[0], parts[1]
	if len(validation.IsDNS1123Subdomain(claim)) > 0 {
		return nil, exit.UsageErrorf("--data %q: %q is not a valid PersistentVolumeClaim name", s, claim)
	}
	if !path.IsAbs(mount) || path.Clean(mount) != mount {
		return nil, exit.UsageErrorf("--data %q: the mount path must be absolute and clean", s)
	}
	d := map[string]any{"claim": claim, "mountPath": mount}
	if len(parts) == 3 {
		if parts[2] != "ro" && parts[2] != "rw" {
			return nil, exit.UsageErrorf("--data %q: the mode must be ro or rw", s)
		}
		d["readOnly"] = parts[2] == "ro"
	}
	return d, nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// gpus checks --gpus: a whole number (a platform that shares GPUs reads
// a fraction itself, before).
func (f *Flags) gpus() (any, error) {
	g := f.GPUs
	text := strconv.FormatFloat(g, 'f', -1, 64)
	switch {
	case g < 0 || math.IsNaN(g) || math.IsInf(g, 0):
		return nil, exit.UsageErrorf("--gpus %s: must be 0 or more", text)
	case g > math.MaxInt32:
		return nil, exit.UsageErrorf("--gpus %s: must be at most %d", text, math.MaxInt32)
	case g != math.Trunc(g):
		return nil, exit.UsageErrorf("--gpus %s: Kubernetes jobs ask for whole GPUs (fractions are for timaker clusters, --cluster)", text)
	}
	return int(g), nil
}
