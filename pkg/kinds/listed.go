package kinds

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// ListedTemplate is what list reads of a replica's pod template, decoded
// straight from JSON with the rest of a job: its containers' resources, for
// the GPUs its pods ask for. It is an alias of an unnamed struct, as the
// rest of a kind's listed job is, so that a decoding error names the
// fields holding it alike.
type ListedTemplate = struct {
	Spec struct {
		Containers []struct {
			Resources corev1.ResourceRequirements `json:"resources"`
		} `json:"containers"`
	} `json:"spec"`
}

// AddGPUs adds to the summary s the GPUs (the resource gpu) that n pods of
// template ask for.
func AddGPUs(s *jobmodel.Summary, n int32, template ListedTemplate, gpu corev1.ResourceName) {
	for _, c := range template.Spec.Containers {
		s.GPUs += float64(int64(n) * jobmodel.GPUs(c.Resources, gpu))
	}
}

// StrictDecode converts obj into into, its kind's typed API object,
// failing on any field the type does not have (the error names the
// field's path).
func StrictDecode(obj *unstructured.Unstructured, into runtime.Object) (runtime.Object, error) {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj.Object, into, true); err != nil {
		return nil, fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return into, nil
}
