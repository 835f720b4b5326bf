package remote

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Target is a web endpoint of a job to open: a port of one replica, with the
// URL path to open and, for a tool that wants a login, the Secret of its
// token.
type Target struct {
	// Task is the replica serving it; Service, when set instead, a Service
	// of the job whose pod serves it (ServicePod finds it).
	Task        string
	Service     string
	Port        int32
	Path        string
	TokenSecret string
	// Login is how the token logs in: jobmodel.LoginToken ("") or
	// jobmodel.LoginPassword.
	Login string
	// From says where the port was found, for the user.
	From string
}

// Where is what serves the target, for messages: a replica's task or
// "service NAME".
func (t Target) Where() string {
	if t.Service != "" {
		return "service " + t.Service
	}
	return t.Task
}

// Target finds the endpoint called name: a tool the job's endpoints
// annotation names (jupyter, tensorboard, ...), a named container port of a
// replica, or a port number. task (optional) is the replica to look in;
// without one, a named port is looked for in the default replica first,
// then in the others in order.
func (j *Job) Target(name, task string) (Target, error) {
	endpoints, err := jobmodel.Endpoints(j.Object.GetAnnotations())
	if err != nil {
		return Target{}, err
	}
	if e, ok := endpoints[name]; ok {
		return j.endpointTarget(name, task, e)
	}
	if n, err := strconv.ParseUint(name, 10, 16); err == nil && n > 0 {
		r, _, err := j.Choose(task)
		if err != nil {
			return Target{}, err
		}
		return Target{Task: r.Task, Port: int32(n), From: "the port number"}, nil
	}
	candidates := j.Replicas
	if task != "" {
		r, err := FindReplica(j.Replicas, task)
		if err != nil {
			return Target{}, err
		}
		candidates = []jobmodel.Replica{r}
	} else if r, err := DefaultReplica(j.Replicas); err == nil {
		candidates = append([]jobmodel.Replica{r}, j.Replicas...)
	}
	t, named, found := j.namedPort(name, candidates)
	if found {
		return t, nil
	}
	known := jobmodel.EndpointNames(endpoints)
	for n := range named {
		if _, dup := endpoints[n]; !dup {
			known = append(known, n)
		}
	}
	sort.Strings(known)
	where := "the job"
	if task != "" {
		where = task
	}
	if len(known) == 0 {
		return Target{}, exit.NotFoundErrorf("%s has no endpoint or named container port %q (and none other): give a port number, or use easyai port-forward", where, name)
	}
	return Target{}, exit.NotFoundErrorf("%s has no endpoint or named container port %q: it has %s", where, name, strings.Join(known, ", "))
}

// endpointTarget is the target of endpoint e, name in the job's endpoints
// annotation: its Service, or its replica (task's when given, else its
// own, else the default replica), which must exist.
func (j *Job) endpointTarget(name, task string, e jobmodel.Endpoint) (Target, error) {
	t := Target{Task: e.Task, Service: e.Service, Port: e.Port, Path: e.Path, TokenSecret: e.TokenSecret, Login: e.Login, From: "the job's " + jobmodel.EndpointsAnnotation + " annotation"}
	if t.Service != "" {
		if task != "" {
			return Target{}, exit.UsageErrorf("--task %s: %q is served by Service %s beside the job, not by a replica", task, name, t.Service)
		}
		return t, nil
	}
	if task != "" {
		t.Task = task
	}
	if t.Task == "" {
		r, err := DefaultReplica(j.Replicas)
		if err != nil {
			return Target{}, err
		}
		t.Task = r.Task
	}
	if _, err := FindReplica(j.Replicas, t.Task); err != nil {
		return Target{}, err
	}
	return t, nil
}

// namedPort finds the container port called name in the pods of the
// candidates, in order; found is false when none has it, named then being
// every port name the candidates' pods have.
func (j *Job) namedPort(name string, candidates []jobmodel.Replica) (t Target, named map[string]bool, found bool) {
	named = map[string]bool{}
	for _, r := range candidates {
		for _, p := range j.Pods {
			if p.Name != r.Pod || r.Pod == "" {
				continue
			}
			for _, c := range p.Spec.Containers {
				for _, cp := range c.Ports {
					if cp.Name == name {
						return Target{Task: r.Task, Port: cp.ContainerPort, From: fmt.Sprintf("container port %q of %s", name, r.Task)}, nil, true
					}
					if cp.Name != "" {
						named[cp.Name] = true
					}
				}
			}
		}
	}
	return Target{}, named, false
}
