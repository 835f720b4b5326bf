package submit

import (
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/render"
)

// Overcommit is a limit divided by n: cpu in millicores, memory in bytes,
// at least 1 of either.
func Overcommit(limit string, n int, cpu bool) (string, error) {
	q, err := resource.ParseQuantity(limit)
	if err != nil {
		return "", err
	}
	if cpu {
		return resource.NewMilliQuantity(max(q.MilliValue()/int64(n), 1), resource.DecimalSI).String(), nil
	}
	return resource.NewQuantity(max(q.Value()/int64(n), 1), resource.BinarySI).String(), nil
}

// fillOversell applies --oversell N: the cpu and memory of the job (and of
// each role that has its own) are requested at their limit divided by N,
// the limits kept (the chart's resources.requests). GPUs never.
func (s *Submission) fillOversell(req *Request) error {
	n := s.Flags.Oversell
	if !s.Flags.given("oversell") || n == 1 {
		return nil
	}
	if n < 1 {
		return exit.UsageErrorf("--oversell %d: must be 1 or more (cpu and memory are requested at their limit divided by it)", n)
	}
	resolved, err := req.Resolved()
	if err != nil {
		return err
	}
	patch, err := oversellPatch(resolved, n)
	if err != nil {
		return err
	}
	if len(patch) == 0 {
		return exit.UsageErrorf("--oversell %d divides the cpu and memory limits, and the job has none: give --cpu or --memory", n)
	}
	req.Values = render.MergeMaps(req.Values, patch)
	return nil
}

// oversellPatch are the values that request the cpu and memory of the
// resolved values (at the top, and of each role or task) at their limits
// divided by n: empty when they have no limit.
func oversellPatch(resolved map[string]any, n int) (map[string]any, error) {
	patch, err := requestsPatch(resolved, n)
	if err != nil {
		return nil, err
	}
	for _, key := range []string{"roles", "tasks"} {
		roles, _ := resolved[key].(map[string]any)
		for name, v := range roles {
			role, _ := v.(map[string]any)
			r, err := requestsPatch(role, n)
			if err != nil {
				return nil, err
			}
			if len(r) == 0 {
				continue
			}
			rp, _ := patch[key].(map[string]any)
			if rp == nil {
				rp = map[string]any{}
				patch[key] = rp
			}
			rp[name] = r
		}
	}
	return patch, nil
}

// requestsPatch are the values that request the cpu and memory of the
// resources of values (the job's or a role's) at their limits divided by
// n: {"resources": {"requests": ...}}, empty when they have no limit.
func requestsPatch(values map[string]any, n int) (map[string]any, error) {
	res, _ := values["resources"].(map[string]any)
	requests := map[string]any{}
	for _, k := range []string{"cpu", "memory"} {
		limit, _ := res[k].(string)
		if limit == "" {
			continue
		}
		r, err := Overcommit(limit, n, k == "cpu")
		if err != nil {
			return nil, exit.UsageErrorf("--oversell: resources.%s %q: %v", k, limit, err)
		}
		requests[k] = r
	}
	if len(requests) == 0 {
		return map[string]any{}, nil
	}
	return map[string]any{"resources": map[string]any{"requests": requests}}, nil
}
