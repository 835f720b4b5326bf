package jobmodel

import (
	"encoding/json"
	"sort"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// EndpointsAnnotation holds, as JSON, the web tools a job serves (Jupyter,
// TensorBoard, ...) by name: which replica, which port, which path, and for
// a tool that wants a login token, the Secret holding it. "easyai open" reads
// it; the token itself is never in an annotation.
const EndpointsAnnotation = "easyai.io/endpoints"

// TokenSecretKey is the key of an endpoint's token in its Secret.
const TokenSecretKey = "token"

// Endpoint is one tool of EndpointsAnnotation.
type Endpoint struct {
	// Task is the replica serving it (ROLE-INDEX); empty: the job's default
	// replica (chief, master, launcher or worker-0).
	Task string `json:"task,omitempty"`
	// Port is the container port.
	Port int32 `json:"port"`
	// Path is the URL path to open ("/lab"); empty: "/".
	Path string `json:"path,omitempty"`
	// TokenSecret names a Secret in the job's namespace whose TokenSecretKey
	// is the login token, passed to the browser as Login says.
	TokenSecret string `json:"tokenSecret,omitempty"`
	// Login is how the token logs the browser in: LoginToken ("" too) as
	// ?token= in the URL (Jupyter), LoginPassword as the password of a
	// login form posted to the path's login page (code-server).
	Login string `json:"login,omitempty"`
	// Service, when given, serves the tool instead of a replica: a Service
	// in the job's namespace, owned by the job, whose selector finds the
	// pod (TensorBoard). Port is then that pod's container port.
	Service string `json:"service,omitempty"`
}

// The ways of Endpoint.Login.
const (
	LoginToken    = "token"
	LoginPassword = "password"
)

// DefaultTasks are the replicas a command goes to without --task, in order
// of preference: the one that coordinates the job, else the first worker.
var DefaultTasks = []string{"chief", "master", "launcher", "worker-0"}

// Endpoints reads EndpointsAnnotation from a job's annotations; none is an
// empty map, a malformed one a usage error naming the annotation (and the
// endpoint and field at fault). Anyone who may edit the job writes it, so
// every field is checked here: the port, and the Secret's name.
func Endpoints(annotations map[string]string) (map[string]Endpoint, error) {
	out := map[string]Endpoint{}
	raw, ok := annotations[EndpointsAnnotation]
	if !ok || raw == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, exit.UsageErrorf("annotation %s: %v", EndpointsAnnotation, err)
	}
	if out == nil { // "null"
		out = map[string]Endpoint{}
	}
	for name, e := range out {
		if e.Port < 1 || e.Port > 65535 {
			return nil, exit.UsageErrorf("annotation %s: %q has port %d, want 1 to 65535", EndpointsAnnotation, name, e.Port)
		}
		if e.TokenSecret != "" && len(validation.IsDNS1123Subdomain(e.TokenSecret)) > 0 {
			return nil, exit.UsageErrorf("annotation %s: %q has tokenSecret %q, which is not a Secret's name", EndpointsAnnotation, name, e.TokenSecret)
		}
		if e.Service != "" && len(validation.IsDNS1035Label(e.Service)) > 0 {
			return nil, exit.UsageErrorf("annotation %s: %q has service %q, which is not a Service's name", EndpointsAnnotation, name, e.Service)
		}
		if e.Service != "" && e.Task != "" {
			return nil, exit.UsageErrorf("annotation %s: %q has both a service and a task: give one", EndpointsAnnotation, name)
		}
		if e.Login != "" && e.Login != LoginToken && e.Login != LoginPassword {
			return nil, exit.UsageErrorf("annotation %s: %q has login %q, want %s or %s", EndpointsAnnotation, name, e.Login, LoginToken, LoginPassword)
		}
	}
	return out, nil
}

// EndpointNames are the names of endpoints, sorted.
func EndpointNames(endpoints map[string]Endpoint) []string {
	names := make([]string, 0, len(endpoints))
	for n := range endpoints {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
