package job

import (
	"encoding/json"
	"fmt"
	"sort"
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
	// is the login token, passed to the browser as ?token=.
	TokenSecret string `json:"tokenSecret,omitempty"`
}

// Endpoints reads EndpointsAnnotation from a job's annotations; none is an
// empty map, a malformed one an error naming the annotation.
func Endpoints(annotations map[string]string) (map[string]Endpoint, error) {
	out := map[string]Endpoint{}
	raw, ok := annotations[EndpointsAnnotation]
	if !ok || raw == "" {
		return out, nil
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("annotation %s: %w", EndpointsAnnotation, err)
	}
	for name, e := range out {
		if e.Port < 1 || e.Port > 65535 {
			return nil, fmt.Errorf("annotation %s: %s has port %d, want 1 to 65535", EndpointsAnnotation, name, e.Port)
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
