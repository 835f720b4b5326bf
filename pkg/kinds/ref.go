package kinds

import (
	"strings"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// Ref names the job a user means: NAME, or KIND/NAME.
type Ref struct {
	// Kind is nil when the user did not name one: every kind is searched.
	Kind Kind
	Name string
}

func (r Ref) String() string {
	if r.Kind == nil {
		return r.Name
	}
	return r.Kind.Name() + "/" + r.Name
}

// ParseRef reads a job argument: NAME, or KIND/NAME where KIND is a kind's
// name, alias or Kubernetes kind ("tf/mnist", "tfjob/mnist"). kind is the
// --kind flag ("" when not given); naming two different kinds is an error.
func ParseRef(reg *Registry, arg, kind string) (Ref, error) {
	var ref Ref
	name := arg
	if k, n, ok := strings.Cut(arg, "/"); ok {
		found, known := reg.Lookup(k)
		if !known {
			return Ref{}, exit.UsageErrorf("%q: unknown kind %q (known: %s)", arg, k, strings.Join(reg.Names(), ", "))
		}
		ref.Kind, name = found, n
	}
	if kind != "" {
		found, known := reg.Lookup(kind)
		if !known {
			return Ref{}, exit.UsageErrorf("--kind %q: unknown kind (known: %s)", kind, strings.Join(reg.Names(), ", "))
		}
		if ref.Kind != nil && ref.Kind.Name() != found.Name() {
			return Ref{}, exit.UsageErrorf("%q is a %s job but --kind says %s", arg, ref.Kind.Name(), found.Name())
		}
		ref.Kind = found
	}
	if name == "" || strings.Contains(name, "/") {
		return Ref{}, exit.UsageErrorf("%q: a job is NAME or KIND/NAME", arg)
	}
	ref.Name = name
	return ref, nil
}
