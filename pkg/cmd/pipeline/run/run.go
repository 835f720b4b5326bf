// Package run is "easyai pipeline run": a pipeline file made into
// Volcano's JobFlow and JobTemplates.
package run

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/cmd/pipeline/pipelineargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/pipeline"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// Options of pipeline run.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	Print   *printers.PrintFlags

	File      string
	Name      string
	Wait      bool
	Timeout   time.Duration
	DryRunArg string

	dryRun    submit.DryRun
	client    *pipeline.Client
	namespace string
	data      []byte
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
(exit 4, naming it) or --timeout has passed (exit 5). --dry-run=client prints
the JobFlow and JobTemplates; --dry-run=server has the API server check them.
Nothing is left half-created when something fails.`

const examples = `  easyai pipeline run -f examples/pipeline/pipeline.yaml --wait
  easyai pipeline run -f pipeline.yaml --name nightly-3 --dry-run=server
  easyai pipeline run -f pipeline.yaml --dry-run -o yaml`

// NewCmdRun returns "pipeline run"; runF replaces Complete and Run in tests.
func NewCmdRun(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a line saying what was created (yaml for --dry-run=client)",
		printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
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
	cmdutil.AddWaitFlags(cmd, &o.Wait, "wait until every step has succeeded, or one failed", &o.Timeout, 24*time.Hour)
	fl.StringVar(&o.DryRunArg, "dry-run", string(submit.DryRunNone), `"client": print what would be created; "server": have the API server check it`)
	fl.Lookup("dry-run").NoOptDefVal = string(submit.DryRunClient)
	o.Print.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cmdutil.CompleteWords("client", "server"))
	return cmd
}

// Validate checks the flags without the cluster.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	if o.File == "" {
		return exit.UsageErrorf("-f PIPELINE_FILE is required (docs/pipelines.md)")
	}
	var err error
	if o.dryRun, err = submit.ParseDryRun(o.DryRunArg); err != nil {
		return err
	}
	if o.Wait && o.dryRun != submit.DryRunNone {
		return exit.UsageErrorf("--wait: a dry run creates nothing to wait for")
	}
	if o.Timeout < 0 {
		return exit.UsageErrorf("--timeout %s: must not be negative", o.Timeout)
	}
	return nil
}

// Complete resolves the namespace and the client, and reads the file.
func (o *Options) Complete() error {
	var err error
	if o.client, o.namespace, err = pipelineargs.Client(o.Factory); err != nil {
		return err
	}
	o.data, err = userfile.Read(context.Background(), "-f", o.File, userfile.JobFileLimit, o.IO.In)
	return err
}

// Run renders every step, creates the pipeline (unless a client dry run)
// and waits for it with --wait.
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
	user, err := o.user(ctx)
	if err != nil {
		return err
	}
	plan, err := pipeline.Build(ctx, f, o.File, o.namespace, o.kindOf, o.jobFile, o.renderStep(f.Name), pipeline.Meta{User: user, CLIVersion: build.Version})
	if err != nil {
		return err
	}
	if o.dryRun != submit.DryRunClient {
		if err := o.client.Create(ctx, plan, o.dryRun == submit.DryRunServer); err != nil {
			return err
		}
	}
	if err := o.print(plan); err != nil {
		return err
	}
	if !o.Wait {
		return nil
	}
	st, err := o.client.Wait(ctx, o.namespace, plan.Name, o.Timeout, o.IO.ErrOut)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "Pipeline %s succeeded: %d steps\n", st.Name, len(st.Steps))
	return nil
}

func (o *Options) user(ctx context.Context) (string, error) {
	if o.dryRun == submit.DryRunClient {
		u, _ := o.Factory.KubeconfigUser()
		return u, nil
	}
	return o.Factory.User(ctx)
}

// kindOf is the kind a step's job file names.
func (o *Options) kindOf(data []byte) (kinds.Kind, error) {
	return submit.KindOfJobFile(o.Factory.Kinds, render.ValueFile{Name: o.File, Data: data})
}

// jobFile is a step's job file: the file it names, relative to the
// pipeline file, or its inline job.
func (o *Options) jobFile(s *pipeline.Step) (string, []byte, error) {
	dir := filepath.Dir(o.File)
	if o.File == "-" {
		dir = "."
	}
	return s.JobFile(o.File, dir, func(path string) ([]byte, error) {
		return userfile.Read(context.Background(), "file", path, userfile.JobFileLimit, nil)
	})
}

// renderStep renders a step's job as "submit -f" would, as a dry run: the
// same values, checks and messages, named and labelled as the pipeline's.
// Unless the whole run is a client dry run, it is a server dry run: the API
// server and Volcano's admission check each step's job now (its claim, its
// queue), not when the JobFlow creates it, where a refusal would be said
// only in the JobFlow controller's log.
func (o *Options) renderStep(pipelineName string) pipeline.RenderStep {
	return func(ctx context.Context, step, name string, file []byte, fileName string, set []string) (*unstructured.Unstructured, error) {
		req := &submit.JobRequest{
			Kinds: o.Factory.Kinds, JobFiles: []render.ValueFile{{Name: fileName, Data: file}}, Set: set, DryRun: submit.DryRunServer,
			Flags: submit.Flags{Name: name, Experiment: pipelineName, Labels: []string{pipeline.Label + "=" + pipelineName, pipeline.StepLabel + "=" + step}},
		}
		if o.dryRun == submit.DryRunClient {
			req.DryRun = submit.DryRunClient
		}
		req.Flags.Changed = func(flag string) bool { return flag == "name" || flag == "label" || flag == "experiment" }
		if err := cmdutil.CompleteSubmission(o.Factory, req); err != nil {
			return nil, err
		}
		req.Prompter, req.Notes = nil, nil
		if err := req.Validate(); err != nil {
			return nil, err
		}
		p, err := o.Factory.Platform()
		if err != nil {
			return nil, err
		}
		res, err := p.Submit(ctx, req)
		if err != nil {
			return nil, err
		}
		obj := &unstructured.Unstructured{Object: res.Shown}
		if obj.GetKind() == "List" {
			items, _, _ := unstructured.NestedSlice(obj.Object, "items")
			if len(items) == 0 {
				return nil, fmt.Errorf("step %s rendered nothing", step)
			}
			m, _ := items[0].(map[string]any)
			obj = &unstructured.Unstructured{Object: m}
		}
		return obj, nil
	}
}

// print says what was created (or would be), as -o asks.
func (o *Options) print(p *pipeline.Plan) error {
	list := map[string]any{"apiVersion": "v1", "kind": "List"}
	items := []any{p.Flow.Object}
	for _, t := range p.Templates {
		items = append(items, t.Object)
	}
	list["items"] = items
	format := o.Print.Format()
	if format == printers.FormatDefault && o.dryRun == submit.DryRunClient {
		format = printers.FormatYAML
	}
	switch format {
	case printers.FormatJSON:
		return printers.JSON(o.IO.Out, list)
	case printers.FormatYAML:
		return printers.YAML(o.IO.Out, list)
	case printers.FormatName:
		fmt.Fprintf(o.IO.Out, "pipeline/%s\n", p.Name)
		return nil
	}
	what := "created"
	if o.dryRun == submit.DryRunServer {
		what = "checked by the API server (server dry run; nothing was created)"
	}
	fmt.Fprintf(o.IO.Out, "pipeline %s %s in namespace %s: %d steps\n", p.Name, what, p.Namespace, len(p.Templates))
	if o.dryRun == submit.DryRunNone {
		fmt.Fprintf(o.IO.ErrOut, "See it with: %s pipeline get %s\n", o.Factory.ExecutableName, p.Name)
	}
	return nil
}
