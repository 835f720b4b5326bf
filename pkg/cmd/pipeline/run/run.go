// Package run is "easyai pipeline run": a pipeline file made into
// Volcano's JobFlow and JobTemplates.
package run

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/pipelineargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/pipeline"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// Options of pipeline run.
type Options struct {
	pipelineargs.Launch

	File string
	Name string

	data []byte
}

const long = `Run a pipeline: the steps of a pipeline file (docs/pipelines.md), each a
training job, run by Volcano's JobFlow, each step once the steps it runs
after have completed. A step's job is a job file (file:) or an inline job
(job:), as "submit -f" takes it: kind volcano, or tf, pytorch or mpi, which
run as Volcano Jobs with that framework's plugin. pretrainedFrom: STEP mounts
that step's model_dir as the step's pre_model_dir (serial training): both
need a storage.

Each step's job is named PIPELINE-PIPELINE-STEP (Volcano names it after the
JobFlow and the step's JobTemplate, PIPELINE-STEP), carries the pipeline as
its experiment, and works with every job command; "pipeline get" lists them.
Nothing of easyai keeps running: the JobFlow's controller creates the steps.

When a step fails, Volcano's JobFlow creates none of the steps after it:
"pipeline get" and "pipeline wait" say which will never run.

--wait waits until every step has succeeded (exit 0), one has failed
(exit 4, naming it) or --timeout has passed (exit 5); with --logs it follows
each step's logs from when its job is made, each line prefixed with the
step and replica ("[train/worker-0] "). --dry-run=client prints
the JobFlow and JobTemplates; --dry-run=server has the API server check them.
Nothing is left half-created when something fails.`

const examples = `  easyai pipeline run -f examples/pipeline/pipeline.yaml --wait --logs
  easyai pipeline run -f pipeline.yaml --name nightly-3 --dry-run=server
  easyai pipeline run -f pipeline.yaml --dry-run -o yaml`

// NewCmdRun returns "pipeline run"; runF replaces Complete and Run in tests.
func NewCmdRun(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Launch: pipelineargs.NewLaunch(f)}
	cmd := &cobra.Command{
		Use:     "run -f PIPELINE_FILE",
		Short:   "Run a pipeline file's steps as a Volcano JobFlow",
		Long:    long,
		Example: examples,
	}
	cmdutil.TakeNoArgs(cmd, o, runF)
	fl := cmd.Flags()
	fl.StringVarP(&o.File, "filename", "f", "", "the pipeline file (- for stdin)")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml")
	fl.StringVar(&o.Name, "name", "", "the pipeline's name (default: the file's name:)")
	o.AddFlags(cmd)
	return cmd
}

// Validate checks the flags without the cluster.
func (o *Options) Validate() error {
	if o.File == "" {
		return exit.UsageErrorf("-f PIPELINE_FILE is required (docs/pipelines.md)")
	}
	return o.Launch.Validate()
}

// Complete reads the file.
func (o *Options) Complete() error {
	var err error
	o.data, err = userfile.Read(context.Background(), "-f", o.File, userfile.JobFileLimit, o.Factory.IOStreams.In)
	return err
}

// Run checks the file, then renders every step, creates the pipeline
// (unless a client dry run) and waits for it with --wait.
func (o *Options) Run(ctx context.Context) error {
	f, err := pipeline.Parse(o.File, o.data)
	if err != nil {
		return err
	}
	if o.Name != "" {
		f.Name = o.Name
	}
	if err := f.Validate(o.File); err != nil {
		return err
	}
	return o.Launch.Run(ctx, f, o.File)
}
