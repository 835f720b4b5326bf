package cmdutil

import "github.com/easyai-dev/easyai/pkg/queue"

// QueueClient is a client of Volcano's queues on the factory's cluster
// (Kubernetes only: on a timaker cluster the factory's jobs client says
// so).
func QueueClient(f *Factory) (*queue.Client, error) {
	jobs, err := f.JobsClient()
	if err != nil {
		return nil, err
	}
	return &queue.Client{Dynamic: jobs.Dynamic}, nil
}
