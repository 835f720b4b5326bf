package jobmodel

import (
	"encoding/json"
	"fmt"
)

// ReadRequest decodes RequestAnnotation, the values a job was submitted with,
// from a job's annotations into into: a map, or a struct of the values the
// caller reads. found is false when there is none (a job easyai did not
// submit). Anyone who may edit the job may have rewritten it, so a value that
// is not JSON of into's shape is an error naming the annotation; the caller
// says what that costs (get warns and shows the pod templates' command,
// download cannot find the job's storage).
func ReadRequest(annotations map[string]string, into any) (found bool, err error) {
	raw, ok := annotations[RequestAnnotation]
	if !ok || raw == "" {
		return false, nil
	}
	if err := json.Unmarshal([]byte(raw), into); err != nil {
		return true, fmt.Errorf("annotation %s: %w", RequestAnnotation, err)
	}
	return true, nil
}
