package cmdutil

import (
	"github.com/spf13/cobra"
)

// JobCommand is the Options of a command on one job: its Steps, and the
// JobOptions it embeds, where the job argument goes.
type JobCommand interface {
	Steps
	jobOptions() *JobOptions
}

func (j *JobOptions) jobOptions() *JobOptions { return j }

// TakeOneJob makes cmd a command on one job: its one argument is the job,
// NAME or KIND/NAME (any other count is a usage error), completed with
// the namespace's jobs. Running cmd puts the argument in o's JobArg and
// runs o's steps; runF replaces Complete and Run in tests.
func TakeOneJob[O JobCommand](cmd *cobra.Command, f *Factory, o O, runF func(O) error) {
	cmd.Args = ExactArgs(1, "a job: NAME or KIND/NAME")
	cmd.ValidArgsFunction = CompleteJob(f)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.jobOptions().JobArg = args[0]
		return RunSteps(cmd.Context(), o, runF)
	}
}

// TakeNoArgs makes cmd a command of no arguments (any is a usage error)
// that runs o's steps; runF replaces Complete and Run in tests.
func TakeNoArgs[O Steps](cmd *cobra.Command, o O, runF func(O) error) {
	cmd.Args = NoArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return RunSteps(cmd.Context(), o, runF)
	}
}
