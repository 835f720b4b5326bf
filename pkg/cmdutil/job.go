package cmdutil

import (
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// JobOptions are the options every command that acts on one job has: the
// JOB argument (NAME, or KIND/NAME) and --kind, the reference ParseJob makes
// of them without the cluster, and the namespace and jobs client
// CompleteJob resolves. Commands embed it in their Options.
type JobOptions struct {
	JobArg   string
	KindName string

	// Set by ParseJob.
	Ref kinds.Ref

	// Set by CompleteJob or CompleteReplicas.
	Namespace string
	Client    *jobclient.Client

	// Set by CompletePlatform, for the commands that work on every platform.
	Platform platform.Platform
}

// ParseJob resolves the job argument and --kind into Ref.
func (j *JobOptions) ParseJob(reg *kinds.Registry) error {
	ref, err := kinds.ParseRef(reg, j.JobArg, j.KindName)
	if err != nil {
		return err
	}
	j.Ref = ref
	return nil
}

// CompleteJob resolves the namespace and the jobs client.
func (j *JobOptions) CompleteJob(f *Factory) error {
	var err error
	j.Namespace, j.Client, err = NamespacedJobs(f)
	return err
}

// CompleteReplicas resolves the namespace and the jobs client, and returns
// them with the clients that reach the job's pods (ReplicaClients).
func (j *JobOptions) CompleteReplicas(f *Factory) (*remote.Clients, error) {
	r, err := ReplicaClients(f)
	if err != nil {
		return nil, err
	}
	j.Namespace, j.Client = r.Namespace, r.Jobs
	return r, nil
}

// CompletePlatform resolves the platform the job is on.
func (j *JobOptions) CompletePlatform(f *Factory) error {
	var err error
	j.Platform, err = f.Platform()
	return err
}
