package submit

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// sshValues are --ssh as the "devtools.ssh" value.
func (f *Flags) sshValues() (map[string]any, error) { return nil, nil }

// fillSSH completes devtools.ssh.
func (s *Submission) fillSSH(ctx context.Context, req *Request) error { return nil }

// sshObjects are what the sshd needs beside the job.
func (s *Submission) sshObjects(req *Request, values map[string]any, job *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	return nil, nil
}
