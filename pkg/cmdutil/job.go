package cmdutil

import (
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// JobOptions are the options every command that acts on one job has: the
// JOB argument (NAME, or KIND/NAME) and --kind, the reference ParseJob makes
// of them without the cluster, and the namespace and jobs client
// CompleteJob resolves. Commands embed it in their Options.
type JobOptions struct {
	JobArg   string
	KindName string

	// Set by ParseJob.
	Ref jobclient.Ref

	// Set by CompleteJob (or by ReplicaClients' caller).
	Namespace string
	Client    *jobclient.Client

	// Set by CompletePlatform, for the commands that work on every platform.
	Platform platform.Platform
}

// ParseJob resolves the job argument and --kind into Ref.
func (j *JobOptions) ParseJob(reg *kinds.Registry) error {
	ref, err := jobclient.ParseRef(reg, j.JobArg, j.KindName)
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

// CompletePlatform resolves the platform the job is on.
func (j *JobOptions) CompletePlatform(f *Factory) error {
	var err error
	j.Platform, err = f.Platform()
	return err
}
