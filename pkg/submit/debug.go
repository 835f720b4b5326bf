package submit

import "context"

// debugValues are --debug, --debug-task and --debug-timeout as the
// "devtools.debug" value.
func (f *Flags) debugValues() (map[string]any, error) { return nil, nil }

// fillDebug completes devtools.debug.
func (s *Submission) fillDebug(ctx context.Context, req *Request) error { return nil }
