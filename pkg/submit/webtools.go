package submit

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// webToolValues are --tensorboard, --jupyter and --code-server as
// "devtools" values.
func (f *Flags) webToolValues() (map[string]any, error) { return nil, nil }

// fillWebTools completes devtools.tensorboard, jupyter and codeServer.
func (s *Submission) fillWebTools(ctx context.Context, req *Request) error { return nil }

// webToolObjects are what the web tools need beside the job.
func (s *Submission) webToolObjects(req *Request, values map[string]any, job *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	return nil, nil
}
