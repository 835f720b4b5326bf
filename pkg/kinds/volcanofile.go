package kinds

import "sigs.k8s.io/yaml"

// AsVolcanoJobFile is a job file of kind as a Volcano Job's job file: a
// volcano job's as it is; one of a kind that runs as a Volcano Job with a
// framework's plugin (VolcanoFramework: tf, pytorch, mpi) made kind
// volcano with that framework, its roles as tasks. ok is false for a kind
// that cannot run as a Volcano Job (or a registry of no kind that makes
// Volcano Jobs as they are); err is a file that is not YAML.
func (r *Registry) AsVolcanoJobFile(kind Kind, data []byte) (out []byte, ok bool, err error) {
	vf, ok := kind.(VolcanoFramework)
	if !ok {
		return nil, false, nil
	}
	framework, tasks := vf.VolcanoFramework()
	if framework == "" {
		return data, true, nil
	}
	host := r.volcanoJobs()
	if host == nil {
		return nil, false, nil
	}
	var job map[string]any
	if err := yaml.Unmarshal(data, &job); err != nil {
		return nil, true, err
	}
	job["kind"] = host.Name()
	if _, set := job["framework"]; !set {
		job["framework"] = framework
	}
	if roles, ok := job["roles"].(map[string]any); ok {
		for role, task := range tasks {
			if r, ok := roles[role]; ok {
				roles[task] = r
				delete(roles, role)
			}
		}
		job["tasks"] = roles
		delete(job, "roles")
	}
	out, err = yaml.Marshal(job)
	return out, true, err
}

// volcanoJobs is the kind whose jobs are Volcano Jobs as they are: a
// VolcanoFramework of no framework.
func (r *Registry) volcanoJobs() Kind {
	for _, k := range r.kinds {
		if vf, ok := k.(VolcanoFramework); ok {
			if framework, _ := vf.VolcanoFramework(); framework == "" {
				return k
			}
		}
	}
	return nil
}
