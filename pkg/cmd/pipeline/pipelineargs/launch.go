package pipelineargs

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/pipeline"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// Launch is what run and retry share: their flags (--wait, --timeout,
// --dry-run, -o), and rendering every step of a pipeline file, creating
// it, saying what was made and waiting for it.
type Launch struct {
	Factory   *cmdutil.Factory
	Print     *printers.PrintFlags
	Wait      bool
	Logs      bool
	Timeout   time.Duration
	DryRunArg string

	dryRun submit.DryRun
}

// NewLaunch is a Launch of f's.
func NewLaunch(f *cmdutil.Factory) Launch {
	return Launch{Factory: f, Print: printers.NewPrintFlags("a line saying what was created (yaml for --dry-run=client)",
		printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
}

// AddFlags adds --wait, --logs, --timeout, --dry-run and -o.
func (l *Launch) AddFlags(cmd *cobra.Command) {
	cmdutil.AddWaitFlags(cmd, &l.Wait, "wait until every step has succeeded, or one failed", &l.Timeout, 24*time.Hour)
	cmd.Flags().BoolVar(&l.Logs, "logs", false, "with --wait: follow each step's logs once its job is created, prefixed with the step (on stderr with -o)")
	cmd.Flags().StringVar(&l.DryRunArg, "dry-run", string(submit.DryRunNone), `"client": print what would be created; "server": have the API server check it`)
	cmd.Flags().Lookup("dry-run").NoOptDefVal = string(submit.DryRunClient)
	l.Print.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cmdutil.CompleteWords("client", "server"))
}

// Validate checks the flags without the cluster.
func (l *Launch) Validate() error {
	if err := l.Print.Validate(); err != nil {
		return err
	}
	var err error
	if l.dryRun, err = submit.ParseDryRun(l.DryRunArg); err != nil {
		return err
	}
	if l.Logs && !l.Wait {
		return exit.UsageErrorf("--logs follows the steps' logs while waiting: add --wait")
	}
	if l.Wait && l.dryRun != submit.DryRunNone {
		return exit.UsageErrorf("--wait: a dry run creates nothing to wait for")
	}
	if l.Timeout < 0 {
		return exit.UsageErrorf("--timeout %s: must not be negative", l.Timeout)
	}
	return nil
}

// Run renders every step of f (source names it in messages; its job files
// are relative to source's directory), creates the pipeline (unless a
// client dry run), says what was made, and waits with --wait.
func (l *Launch) Run(ctx context.Context, f *pipeline.File, source string) error {
	c, ns, err := Client(l.Factory)
	if err != nil {
		return err
	}
	user, err := l.user(ctx)
	if err != nil {
		return err
	}
	plan, err := pipeline.Build(ctx, f, source, ns, pipeline.Steps{Kinds: l.Factory.Kinds, KindOf: l.kindOf, JobFile: l.jobFile(source), Render: l.renderStep(f.Name)},
		pipeline.Meta{User: user, CLIVersion: build.Version})
	if err != nil {
		return err
	}
	if l.dryRun != submit.DryRunClient {
		if err := c.Create(ctx, plan, l.dryRun == submit.DryRunServer); err != nil {
			return err
		}
	}
	if err := l.print(plan); err != nil {
		return err
	}
	if !l.Wait {
		return nil
	}
	return l.wait(ctx, c, ns, plan.Name)
}

// wait waits for the pipeline, following its steps' logs with --logs:
// their last lines come before the line saying how it ended.
func (l *Launch) wait(ctx context.Context, c *pipeline.Client, ns, name string) error {
	var onJob func(pipeline.StepStatus)
	var logs *stepLogs
	if l.Logs {
		var err error
		if logs, err = l.followSteps(ctx); err != nil {
			return err
		}
		onJob = logs.follow
	}
	st, err := c.Wait(ctx, ns, name, l.Timeout, l.Factory.IOStreams.ErrOut, onJob)
	if logs != nil {
		logs.end(err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(l.Factory.IOStreams.ErrOut, "Pipeline %s succeeded: %d steps\n", st.Name, len(st.Steps))
	return nil
}

func (l *Launch) user(ctx context.Context) (string, error) {
	if l.dryRun == submit.DryRunClient {
		u, _ := l.Factory.KubeconfigUser()
		return u, nil
	}
	return l.Factory.User(ctx)
}

// kindOf is the kind a step's job file names.
func (l *Launch) kindOf(data []byte) (kinds.Kind, error) {
	return submit.KindOfJobFile(l.Factory.Kinds, render.ValueFile{Name: "a step's job", Data: data})
}

// jobFile is a step's job file: the file it names, relative to the
// pipeline file source, or its inline job.
func (l *Launch) jobFile(source string) func(s *pipeline.Step) (string, []byte, error) {
	dir := filepath.Dir(source)
	if source == "-" {
		dir = "."
	}
	return func(s *pipeline.Step) (string, []byte, error) {
		return s.JobFile(source, dir, func(path string) ([]byte, error) {
			return userfile.Read(context.Background(), "file", path, userfile.JobFileLimit, nil)
		})
	}
}

// renderStep renders a step's job as "submit -f" would, as a dry run: the
// same values, checks and messages, named and labelled as the pipeline's.
// Unless the whole run is a client dry run, it is a server dry run: the API
// server and Volcano's admission check each step's job now (its claim, its
// queue), not when the JobFlow creates it, where a refusal would be said
// only in the JobFlow controller's log.
func (l *Launch) renderStep(pipelineName string) pipeline.RenderStep {
	return func(ctx context.Context, step, name string, file []byte, fileName string, set []string) (*unstructured.Unstructured, error) {
		dryRun := submit.DryRunServer
		if l.dryRun == submit.DryRunClient {
			dryRun = submit.DryRunClient
		}
		res, err := cmdutil.SubmitJobFile(ctx, l.Factory, cmdutil.JobFileSubmission{
			File: render.ValueFile{Name: fileName, Data: file}, Name: name, Experiment: pipelineName,
			Labels: []string{pipeline.Label + "=" + pipelineName, pipeline.StepLabel + "=" + step}, Set: set, DryRun: dryRun,
		})
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
func (l *Launch) print(p *pipeline.Plan) error {
	out := l.Factory.IOStreams.Out
	items := []any{p.Flow.Object}
	for _, t := range p.Templates {
		items = append(items, t.Object)
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	format := l.Print.Format()
	if format == printers.FormatDefault && l.dryRun == submit.DryRunClient {
		format = printers.FormatYAML
	}
	switch format {
	case printers.FormatJSON:
		return printers.JSON(out, list)
	case printers.FormatYAML:
		return printers.YAML(out, list)
	case printers.FormatName:
		fmt.Fprintf(out, "pipeline/%s\n", p.Name)
		return nil
	}
	what := "created"
	if l.dryRun == submit.DryRunServer {
		what = "checked by the API server (server dry run; nothing was created)"
	}
	fmt.Fprintf(out, "pipeline %s %s in namespace %s: %d steps\n", p.Name, what, p.Namespace, len(p.Templates))
	if l.dryRun == submit.DryRunNone {
		fmt.Fprintf(l.Factory.IOStreams.ErrOut, "See it with: %s pipeline get %s\n", l.Factory.ExecutableName, p.Name)
	}
	return nil
}
