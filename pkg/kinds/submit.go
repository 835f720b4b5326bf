package kinds

import (
	"context"
	"math"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// SubmitCommon are the common submit flags a kind's own values depend on.
type SubmitCommon struct {
	// Workers is --workers: how many workers (for PyTorch: nodes, the first
	// being the master).
	Workers int
	// Changed tells whether the user set a flag; a kind emits values only for
	// flags that were set, so values files are not overridden by defaults.
	Changed func(flag string) bool
}

// KindValues turns a kind's own submit flags into chart values.
type KindValues func(common SubmitCommon) (map[string]any, error)

// CheckQuantity is a usage error naming flag when value is not a Kubernetes
// quantity ("2", "500m", "16Gi") of 0 or more.
func CheckQuantity(flag, value string) error {
	q, err := resource.ParseQuantity(value)
	if err != nil {
		return exit.UsageErrorf("%s %q: not a quantity (e.g. 2, 500m, 16Gi)", flag, value)
	}
	if q.Sign() < 0 {
		return exit.UsageErrorf("%s %q: must not be negative", flag, value)
	}
	return nil
}

// MaxCount is the most replicas, pods, GPUs or retries a flag may ask for:
// the API's fields are 32-bit integers.
const MaxCount = math.MaxInt32

// CheckCount is a usage error naming flag when n is below min or above
// MaxCount (--workers 2147483648 would not fit the job's int32 field).
func CheckCount(flag string, n, min int) error {
	if n < min || n > MaxCount {
		return exit.UsageErrorf("%s %d: must be between %d and %d", flag, n, min, MaxCount)
	}
	return nil
}

// Replicas is the value of a role of n replicas.
func Replicas(n int) map[string]any { return map[string]any{"replicas": n} }

// Roles is the roles value a kind's flags make, by role; a role's value
// is its replicas, image, resources, ...
type Roles map[string]map[string]any

// Set sets one key of role's value.
func (r Roles) Set(role, key string, value any) {
	if r[role] == nil {
		r[role] = map[string]any{}
	}
	r[role][key] = value
}

// Merge adds values to role's value (none when values is empty).
func (r Roles) Merge(role string, values map[string]any) {
	for key, v := range values {
		r.Set(role, key, v)
	}
}

// SetWorkers sets role's replicas to --workers when the user set it; it is
// a usage error, "--workers N: " and why, when they set it below 1 (why:
// "an MPI job needs at least 1 worker").
func (r Roles) SetWorkers(role string, common SubmitCommon, why string) error {
	if !common.Changed("workers") {
		return nil
	}
	if common.Workers < 1 {
		return exit.UsageErrorf("--workers %d: %s", common.Workers, why)
	}
	r.Set(role, "replicas", common.Workers)
	return nil
}

// SetNodes sets a master of one replica and workers of the others from
// --workers, which counts the nodes, when the user set it; it is a usage
// error, "--workers N: " and why, when they set it below 1.
func (r Roles) SetNodes(common SubmitCommon, why string) error {
	if err := r.SetWorkers("worker", common, why); err != nil || !common.Changed("workers") {
		return err
	}
	r.Set("master", "replicas", 1)
	r.Set("worker", "replicas", common.Workers-1)
	return nil
}

// AddTo sets values' "roles" to the roles, when the flags made any.
func (r Roles) AddTo(values map[string]any) {
	if len(r) == 0 {
		return
	}
	roles := make(map[string]any, len(r))
	for role, v := range r {
		roles[role] = v
	}
	values["roles"] = roles
}

// RoleFlags are the flags of a role's own resources and image, beside the
// common --cpu, --memory and --image: --ROLE-cpu, --ROLE-memory and
// perhaps --ROLE-image (e.g. --ps-cpu).
type RoleFlags struct {
	role               string
	cpu, memory, image string
}

// AddRoleFlags adds --ROLE-cpu and --ROLE-memory, whose help says they are
// of each (e.g. "each parameter server"), and, when all is not "",
// --ROLE-image, whose help says it is of all ("the parameter servers").
func AddRoleFlags(fs *pflag.FlagSet, role, each, all string) *RoleFlags {
	r := &RoleFlags{role: role}
	fs.StringVar(&r.cpu, role+"-cpu", "", "CPU of "+each+" (default: --cpu)")
	fs.StringVar(&r.memory, role+"-memory", "", "memory of "+each+" (default: --memory)")
	if all != "" {
		fs.StringVar(&r.image, role+"-image", "", "image of "+all+" (default: --image)")
	}
	return r
}

// Values is the role's value of the flags the user set: its image and
// resources (empty when none is set); a usage error names a flag that is
// not a quantity.
func (r *RoleFlags) Values() (map[string]any, error) {
	values := map[string]any{}
	if r.image != "" {
		values["image"] = r.image
	}
	res, err := RoleResources(r.role, r.cpu, r.memory)
	if err != nil {
		return nil, err
	}
	if res != nil {
		values["resources"] = res
	}
	return values, nil
}

// RoleResources is the resources value of one role from its --ROLE-cpu and
// --ROLE-memory flags (e.g. --ps-cpu): nil when neither is set, a usage
// error naming the flag when one is not a quantity.
func RoleResources(role, cpu, memory string) (map[string]any, error) {
	res := map[string]any{}
	for _, q := range []struct{ key, value string }{{"cpu", cpu}, {"memory", memory}} {
		if q.value == "" {
			continue
		}
		if err := CheckQuantity("--"+role+"-"+q.key, q.value); err != nil {
			return nil, err
		}
		res[q.key] = q.value
	}
	if len(res) == 0 {
		return nil, nil
	}
	return res, nil
}

// SubmitExampler is a kind with examples of its own for "easyai submit
// KIND --help". Kinds without it get one generic line (SubmitExample).
type SubmitExampler interface {
	// SubmitExample is its runnable examples, indented as cobra shows them.
	SubmitExample() string
}

// SubmitExample is the examples of "easyai submit KIND --help": the kind's
// own, else a line naming its image and command.
func SubmitExample(k Kind) string {
	if e, ok := k.(SubmitExampler); ok {
		return e.SubmitExample()
	}
	return "  easyai submit " + k.Name() + " --image IMAGE -- COMMAND"
}

// SubmitDoc is a kind that explains its own submit command: which replicas
// the flags make and which of them run the command, and its examples.
// Kinds without it get a generic help.
type SubmitDoc interface {
	// SubmitLong is the long help of "easyai submit KIND".
	SubmitLong() string
	SubmitExampler
}

// DescribeWorkers sets the help of the common --workers flag to what it
// counts for the kind (worker pods, or nodes with the first as the master).
func DescribeWorkers(fs *pflag.FlagSet, usage string) {
	if f := fs.Lookup("workers"); f != nil {
		f.Usage = usage
	}
}

// BackendChooser is a kind that can be submitted as another API kind, e.g.
// ColossalAI as T9k's ColossalAIJob or, on a cluster without T9k, as a
// Volcano Job. Submit asks it, before rendering, which kind to render the
// job as; the job is then created and read back as the registered kind of
// that GroupVersionKind.
type BackendChooser interface {
	// SubmitBackend returns the kind to render the job as (its Chart,
	// Decode and GroupVersionKind are used; its Name labels the job) and a
	// note for stderr saying what was chosen and why ("" for none). flags
	// are the submit command's (a job file's submit may lack the kind's own).
	SubmitBackend(ctx context.Context, flags *pflag.FlagSet, probe BackendProbe) (Kind, string, error)
}

// BackendProbe tells a BackendChooser about the cluster.
type BackendProbe struct {
	// Offline is true when the submit asks no cluster (--dry-run=client).
	Offline bool
	// Served reports whether the cluster serves the API resource (its CRD
	// is installed); nil when Offline.
	Served func(ctx context.Context, gvr schema.GroupVersionResource) (bool, error)
	// Get reads one object (namespace "" for a cluster-scoped one), e.g.
	// the runtime a TrainJob names; nil when Offline.
	Get func(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error)
	// Namespace is the job's.
	Namespace string
	// KubeflowBackend is the configuration's choice where both Kubeflow
	// operators serve a kind ("" for the default).
	KubeflowBackend string
}
