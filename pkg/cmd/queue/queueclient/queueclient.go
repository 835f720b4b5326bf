// Package queueclient is what the verbs of "easyai queue" share: a client
// of Volcano's queues on the factory's cluster.
package queueclient

import (
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/queue"
)

// Of is a client of Volcano's queues on the factory's cluster (Kubernetes
// only: on a timaker cluster the factory's jobs client says so).
func Of(f *cmdutil.Factory) (*queue.Client, error) {
	jobs, err := f.JobsClient()
	if err != nil {
		return nil, err
	}
	return &queue.Client{Dynamic: jobs.Dynamic}, nil
}
