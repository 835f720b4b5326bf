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

// SubmittedValues reads RequestAnnotation as the values to submit the job
// again with: the job's name is left out (a new job needs a new one), and so
// are easyai's own keys under the values' labels and annotations, which a
// submission adds anew. found is false when there is none; a value that is
// not a JSON object is an error naming the annotation.
func SubmittedValues(annotations map[string]string) (values map[string]any, found bool, err error) {
	found, err = ReadRequest(annotations, &values)
	if !found || err != nil {
		return nil, found, err
	}
	if values == nil {
		return nil, true, fmt.Errorf("annotation %s: null is not the values of a job", RequestAnnotation)
	}
	delete(values, "name")
	for key, own := range map[string]func(string) bool{"labels": IsOwnLabel, "annotations": IsOwnAnnotation} {
		m, ok := values[key].(map[string]any)
		if !ok {
			continue
		}
		for k := range m {
			if own(k) {
				delete(m, k)
			}
		}
	}
	return values, true, nil
}
