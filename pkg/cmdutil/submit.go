package cmdutil

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/storage"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/transfer"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// AddSubmitFlags adds the common submit flags (submit.Flags, declared by its
// table) to cmd, with their completions: submit KIND, submit -f and rerun
// take the same ones.
func AddSubmitFlags(cmd *cobra.Command, v *submit.Flags) {
	v.AddFlags(cmd.Flags())
	_ = cmd.RegisterFlagCompletionFunc("image-pull-policy", CompleteWords("Always", "IfNotPresent", "Never"))
	_ = cmd.RegisterFlagCompletionFunc("clean-pod-policy", CompleteWords("All", "Running", "None"))
}

// SubmitValueFlags are the flags that give a submission its chart and
// values beside the common flags: --chart, -f, --set and --dry-run.
type SubmitValueFlags struct {
	// JobFilePaths are -f as given (ReadJobFiles reads them).
	JobFilePaths []string
	// DryRunArg is --dry-run as given (submit.ParseDryRun reads it).
	DryRunArg string
}

// AddFlags adds --chart, -f, --set and --dry-run to cmd, the chart and
// --set going into s.
func (v *SubmitValueFlags) AddFlags(cmd *cobra.Command, s *submit.Submission) {
	fs := cmd.Flags()
	fs.StringVar(&s.ChartDir, "chart", "", "render this chart directory instead of the kind's built-in chart")
	fs.StringArrayVarP(&v.JobFilePaths, "values", "f", nil, `values file, "-" for standard input (repeatable; later files win)`)
	fs.StringArrayVar(&s.Set, "set", nil, "set a chart value: key=value, as in Helm (repeatable; wins over everything)")
	fs.StringVar(&v.DryRunArg, "dry-run", string(submit.DryRunNone), `print the job without creating it: "client", or "server" (validated by the API server)`)
	fs.Lookup("dry-run").NoOptDefVal = "client"
	_ = cmd.RegisterFlagCompletionFunc("dry-run", CompleteWords("client", "server"))
}

// ReadJobFiles reads the -f files once ("-" is standard input, which can be
// read only once), bounded, under ctx: Ctrl-C ends a read that waits.
func (v *SubmitValueFlags) ReadJobFiles(ctx context.Context, in io.Reader) ([]render.ValueFile, error) {
	stdins := 0
	for _, path := range v.JobFilePaths {
		if path == userfile.Stdin {
			stdins++
		}
	}
	if stdins > 1 {
		return nil, exit.UsageErrorf("-f -: standard input can be read only once")
	}
	return render.ReadValueFiles(ctx, in, v.JobFilePaths)
}

// CompleteSubmission gives a submission what it takes from the
// configuration and the run: the settings' defaults, the version recorded
// on the job, the prompter (on a terminal only) and stderr for its notes.
func CompleteSubmission(f *Factory, s *submit.Submission) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	s.Settings = submit.Settings{Image: cfg.Image, Queue: cfg.Queue, PriorityClass: cfg.PriorityClass, GPUResource: cfg.GPUResource,
		Labels: cfg.Labels, KubeflowBackend: cfg.KubeflowBackend, Storage: cfg.Storage, Preemptible: cfg.Preemptible}
	s.CLIVersion = build.Version
	if f.IOStreams.CanPrompt() {
		s.Prompter = f.Prompter
	}
	s.Notes = f.IOStreams.ErrOut
	s.UploadCode = func(ctx context.Context, job *unstructured.Unstructured, spec storage.Spec, subPath, jobDir, local string) (func(context.Context) error, error) {
		return uploadCode(ctx, f, cfg.FetcherImage, job, spec, subPath, jobDir, local)
	}
	return nil
}

// uploadCode uploads submit's --code dir:PATH through an uploader pod
// placed as the job's pods will be; the function it returns removes the
// job's directory again.
func uploadCode(ctx context.Context, f *Factory, image string, job *unstructured.Unstructured, spec storage.Spec, subPath, jobDir, local string) (func(context.Context) error, error) {
	r, err := ReplicaClients(f)
	if err != nil {
		return nil, err
	}
	placement, err := transfer.PlacementOf(job)
	if err != nil {
		return nil, err
	}
	vol := transfer.Volume{
		Kube: r.Kube, Config: r.Config, Executor: r.Executor(), Namespace: job.GetNamespace(), Storage: spec,
		JobName: job.GetName(), Placement: placement, Image: image, Now: f.Now,
	}
	req := transfer.UploadRequest{
		Volume: vol, SubPath: subPath, Local: local, MaxBytes: submit.MaxCodeBytes,
		Retries: transfer.DefaultRetries, Backoff: transfer.DefaultBackoff, Warnings: f.IOStreams.ErrOut,
	}
	res, err := transfer.Upload(ctx, req)
	if err != nil {
		// What arrived of it is of no use: the job is not created.
		if res.Pod != "" {
			if rerr := transfer.Remove(ctx, vol, jobDir); rerr != nil {
				fmt.Fprintf(f.IOStreams.ErrOut, "warning: %s of the storage was not removed: %v\n", jobDir, rerr)
			}
		}
		return nil, fmt.Errorf("--code dir:%s: %w", local, err)
	}
	fmt.Fprintf(f.IOStreams.ErrOut, "Uploaded %d files, %s\n", res.Files, printers.Bytes(res.Bytes))
	return func(ctx context.Context) error { return transfer.Remove(ctx, vol, jobDir) }, nil
}

// PrintSubmitted writes what a submission made as -o asks (name, json,
// yaml), else as byDefault: the line saying what was submitted, with how
// to see it on stderr, or yaml (a dry run).
func PrintSubmitted(f *Factory, p platform.Platform, print *printers.PrintFlags, res *platform.Submitted, byDefault printers.Format) error {
	out := f.IOStreams.Out
	if len(res.Beside) > 0 {
		verb := "Made"
		if res.Job == nil {
			verb = "Would make"
		}
		fmt.Fprintf(f.IOStreams.ErrOut, "%s beside the job, owned by it: %s\n", verb, strings.Join(res.Beside, ", "))
	}
	format := print.Format()
	if format == printers.FormatDefault {
		format = byDefault
	}
	switch format {
	case printers.FormatName:
		_, err := fmt.Fprintln(out, res.Name)
		return err
	case printers.FormatJSON:
		return printers.JSON(out, res.Shown)
	case printers.FormatYAML:
		return printers.YAML(out, res.Shown)
	}
	fmt.Fprintln(out, res.Line)
	if res.Job != nil {
		fmt.Fprintf(f.IOStreams.ErrOut, "See it with: %s get %s\n", f.ExecutableName, p.JobArgs(res.Job))
	}
	return nil
}
