// Package create is "easyai cron create": a training job on a schedule.
package create

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/cmd/cron/cronargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cron"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// DefaultImage is the launcher's image when neither --image nor the
// cron-image setting gives one: easyai's release image of this version.
func DefaultImage() string {
	tag := build.Version
	if tag == "" || tag == "dev" {
		tag = "latest"
	}
	return "ghcr.io/easyai-dev/easyai:" + strings.TrimPrefix(tag, "v")
}

// Options of cron create.
type Options struct {
	cronargs.Named
	Print *printers.PrintFlags

	Spec cron.Spec
	File string
	// Submit is a submit command line (KIND [flags] -- COMMAND), the job
	// file's other form, given after "--".
	Submit       []string
	cmd          *cobra.Command
	DryRunArg    string
	NodeSelector []string
	Tolerations  []string
	Env          []string

	dryRun submit.DryRun
}

const long = `Create a schedule: the job of a job file (-f, as "submit -f" takes it), or
of a submit command line after "--" (KIND [submit flags] -- COMMAND, kept as
the job file it makes), submitted at every time of --schedule (cron's five fields: minute hour
day-of-month month day-of-week, or @daily, @hourly, ...; in --timezone, UTC by
default) by a Kubernetes CronJob. Its pod runs easyai itself ("easyai cron
launch NAME", the image of --image or the cron-image setting) as the
namespace's ServiceAccount easyai-cron (examples/rbac makes it): nothing has
to keep running on your machine (docs/cron.md).

Each run's job is named NAME-YYYYMMDD-HHMMSS, carries the label
easyai.io/cron=NAME and the schedule's name as its experiment: easyai list -e
NAME lists them. --concurrency says what a run does while a job of the
schedule still runs: Forbid (the default) submits nothing, Replace deletes it
first, Allow submits beside it. --keep N deletes the oldest finished jobs of
the schedule beyond N (0: keeps them all).

The job file is checked now, as submit checks it (a server dry run with
--dry-run=server), and kept in a ConfigMap NAME-cron.

--backend volcano makes Volcano's own CronJob instead (a cluster whose
Volcano serves batch.volcano.sh CronJobs, 1.13 or later): no launcher and no
image; Volcano creates each run's Volcano Job (NAME-MINUTES) of the job as
rendered now, applying --concurrency to it and keeping --keep jobs of each
outcome. Only a job that runs as a Volcano Job can (kind volcano, or tf,
pytorch or mpi with Volcano's plugin), every run writes in the same job
directory, and the launcher's checks of each run (the job file rendered
afresh, quotas) do not happen: kubernetes stays the default (docs/cron.md).`

// NewCmdCreate returns "cron create"; runF replaces Complete and Run in tests.
func NewCmdCreate(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Named: cronargs.NewNamed(f), Print: printers.NewPrintFlags("a line saying what was created (yaml for --dry-run=client)",
		printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
	cmd := &cobra.Command{
		Use:   "create NAME --schedule SCHEDULE (-f JOB_FILE | -- KIND [submit flags] -- COMMAND)",
		Short: "Submit a job file's job on a schedule, by a CronJob running easyai",
		Long:  long,
		Example: `  easyai cron create nightly --schedule "0 2 * * *" --timezone Asia/Shanghai -f examples/cron/job.yaml
  easyai cron create hourly-eval --schedule @hourly --concurrency Replace --keep 24 -f eval.yaml
  # the job as submit's flags: everything after the first "--" is what "easyai submit" takes
  easyai cron create nightly --schedule "0 2 * * *" -- tf --workers 2 --gpus 1 --image IMAGE -- python train.py
  # Volcano's CronJob, no launcher (Volcano 1.13+)
  easyai cron create nightly --schedule "0 2 * * *" --backend volcano -f examples/cron/job.yaml`,
	}
	cmd.Args = cmdutil.MinimumArgs(1, "the schedule's name")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if dash := cmd.ArgsLenAtDash(); dash > 1 || (dash < 0 && len(args) > 1) {
			return exit.UsageErrorf("cron create takes one name, then the job: -f JOB_FILE, or -- KIND [submit flags] -- COMMAND")
		}
		o.Name, o.Submit, o.cmd = args[0], args[1:], cmd
		return cmdutil.RunSteps(cmd.Context(), o, runF)
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Spec.Schedule, "schedule", "", `when to submit: cron's five fields ("0 2 * * *") or @daily, @hourly, ...`)
	fl.StringVar(&o.Spec.TimeZone, "timezone", "", "the schedule's time zone (default UTC): Asia/Shanghai, Europe/Berlin, ...")
	fl.StringVar(&o.Spec.Concurrency, "concurrency", cron.Forbid, "while a job of the schedule runs: Forbid (skip the run), Replace (delete it first), Allow")
	fl.IntVar(&o.Spec.Keep, "keep", 0, "finished jobs of the schedule to keep, the oldest deleted (0: all)")
	fl.StringVarP(&o.File, "filename", "f", "", "the job file each run submits (- for stdin)")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml")
	fl.StringVar(&o.Spec.Backend, "backend", cron.BackendKubernetes, "kubernetes: a CronJob running easyai's launcher; volcano: Volcano's CronJob (1.13+)")
	fl.StringVar(&o.Spec.Image, "image", "", "the launcher's image, easyai's (default: the cron-image setting, else "+DefaultImage()+")")
	fl.StringVar(&o.Spec.ServiceAccount, "service-account", cron.DefaultServiceAccount, "the ServiceAccount the launcher runs as")
	fl.StringArrayVar(&o.NodeSelector, "node-selector", nil, "KEY=VALUE: a node label the launcher's pod needs (repeatable; the job's pods are its job file's)")
	fl.StringArrayVar(&o.Tolerations, "toleration", nil, "key[=value]:effect the launcher's pod tolerates, as submit takes it (repeatable)")
	fl.StringArrayVar(&o.Env, "env", nil, "NAME=VALUE in the launcher's pod (repeatable; e.g. HTTPS_PROXY to reach the API server)")
	fl.StringVar(&o.DryRunArg, "dry-run", string(submit.DryRunNone), `"client": print what would be created; "server": have the API server check it`)
	fl.Lookup("dry-run").NoOptDefVal = string(submit.DryRunClient)
	o.Print.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("concurrency", cmdutil.CompleteWords(cron.Forbid, cron.Replace, cron.Allow))
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cmdutil.CompleteWords("client", "server"))
	_ = cmd.RegisterFlagCompletionFunc("backend", cmdutil.CompleteWords(cron.BackendKubernetes, cron.BackendVolcano))
	return cmd
}

// Validate checks the flags without the cluster.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	if err := o.Named.Validate(); err != nil {
		return err
	}
	if o.Spec.Schedule == "" {
		return exit.UsageErrorf("--schedule is required: when to submit the job (\"0 2 * * *\")")
	}
	switch {
	case o.File == "" && len(o.Submit) == 0:
		return exit.UsageErrorf("give the job each run submits: -f JOB_FILE, or -- KIND [submit flags] -- COMMAND")
	case o.File != "" && len(o.Submit) > 0:
		return exit.UsageErrorf("-f and a submit command line after \"--\" both give the job: give one")
	}
	var err error
	if o.dryRun, err = submit.ParseDryRun(o.DryRunArg); err != nil {
		return err
	}
	if o.Spec.Backend == cron.BackendVolcano {
		for _, flag := range []string{"image", "service-account", "node-selector", "toleration", "env"} {
			if o.cmd != nil && o.cmd.Flags().Changed(flag) {
				return exit.UsageErrorf("--%s is the launcher's, and a schedule on Volcano's CronJob (--backend volcano) has no launcher", flag)
			}
		}
	}
	return o.launcherPod()
}

// launcherPod reads --node-selector, --toleration and --env of the
// launcher's pod.
func (o *Options) launcherPod() error {
	for _, kv := range o.NodeSelector {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return exit.UsageErrorf("--node-selector %q: want KEY=VALUE", kv)
		}
		if o.Spec.NodeSelector == nil {
			o.Spec.NodeSelector = map[string]string{}
		}
		o.Spec.NodeSelector[k] = v
	}
	for _, t := range o.Tolerations {
		m, err := submit.ParseToleration(t)
		if err != nil {
			return err
		}
		var tol corev1.Toleration
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &tol); err != nil {
			return exit.UsageErrorf("--toleration %q: %v", t, err)
		}
		o.Spec.Tolerations = append(o.Spec.Tolerations, tol)
	}
	for _, e := range o.Env {
		k, v, ok := strings.Cut(e, "=")
		if !ok || len(validation.IsEnvVarName(k)) > 0 {
			return exit.UsageErrorf("--env %q: want NAME=VALUE, NAME a variable name", e)
		}
		o.Spec.Env = append(o.Spec.Env, corev1.EnvVar{Name: k, Value: v})
	}
	return nil
}

// Complete reads the job file (or makes it of the submit command line)
// and the settings.
func (o *Options) Complete() error {
	var err error
	if len(o.Submit) > 0 {
		if o.Spec.JobFile, err = o.jobFileOfSubmit(); err != nil {
			return err
		}
		o.File = "the job of \"easyai submit " + strings.Join(o.Submit, " ") + "\""
	} else if o.Spec.JobFile, err = userfile.Read(context.Background(), "-f", o.File, userfile.JobFileLimit, o.Factory.IOStreams.In); err != nil {
		return err
	}
	cfg, err := o.Factory.Config()
	if err != nil {
		return err
	}
	if o.Spec.Image == "" && o.Spec.Backend != cron.BackendVolcano {
		o.Spec.Image = cfg.CronImage
	}
	if o.Spec.Image == "" && o.Spec.Backend != cron.BackendVolcano {
		o.Spec.Image = DefaultImage()
	}
	o.Spec.Name, o.Spec.CLIVersion = o.Name, build.Version
	return nil
}

// Run checks the job file as submit would, makes the schedule's objects
// and creates them (or prints them, for a client dry run).
func (o *Options) Run(ctx context.Context) error {
	c, ns, err := cronargs.Client(o.Factory)
	if err != nil {
		return err
	}
	o.Spec.Namespace = ns
	if err := o.Spec.Validate(); err != nil {
		return err
	}
	if o.dryRun == submit.DryRunClient {
		o.Spec.User, _ = o.Factory.KubeconfigUser()
	} else if o.Spec.User, err = o.Factory.User(ctx); err != nil {
		return err
	}
	var objs *cron.Objects
	if o.Spec.Backend == cron.BackendVolcano {
		objs, err = o.volcanoObjects(ctx)
	} else if err = o.checkJobFile(ctx); err == nil {
		objs, err = cron.Render(&o.Spec)
	}
	if err != nil {
		return err
	}
	if o.dryRun != submit.DryRunClient {
		if err := c.Create(ctx, objs, o.dryRun == submit.DryRunServer); err != nil {
			return err
		}
	}
	return o.print(objs)
}

// jobFileOfSubmit is the job file of the submit command line: submit's
// own command in the tree renders it as a client dry run (its flags, its
// checks), and what it would record as the job's values becomes the file.
func (o *Options) jobFileOfSubmit() ([]byte, error) {
	sub, rest, err := o.cmd.Root().Find(append([]string{"submit"}, o.Submit...))
	if err != nil || (sub.Name() != "submit" && sub.Parent().Name() != "submit") {
		return nil, exit.UsageErrorf("-- %s: not a submit command line (KIND [flags] -- COMMAND)", strings.Join(o.Submit, " "))
	}
	cmdutil.DeclareFlags(sub)
	if err := sub.ParseFlags(append([]string{"--dry-run=client", "-o", "json"}, rest...)); err != nil {
		return nil, exit.UsageErrorf("-- %s: %v", strings.Join(o.Submit, " "), err)
	}
	io := o.Factory.IOStreams
	var rendered bytes.Buffer
	out := io.Out
	io.Out = &rendered
	sub.SetContext(o.cmd.Context())
	err = sub.RunE(sub, sub.Flags().Args())
	io.Out = out
	if err != nil {
		return nil, err
	}
	obj := &unstructured.Unstructured{}
	if err := json.Unmarshal(rendered.Bytes(), &obj.Object); err != nil {
		return nil, fmt.Errorf("reading what submit rendered: %w", err)
	}
	if obj.IsList() {
		items, _, _ := unstructured.NestedSlice(obj.Object, "items")
		if len(items) == 0 {
			return nil, fmt.Errorf("submit rendered nothing")
		}
		m, _ := items[0].(map[string]any)
		obj = &unstructured.Unstructured{Object: m}
	}
	values, found, err := jobmodel.SubmittedValues(obj.GetAnnotations())
	if !found || err != nil {
		return nil, fmt.Errorf("submit recorded no values of the job: %v", err)
	}
	k, ok := o.Factory.Kinds.LookupSubmittable(obj.GetLabels()[jobmodel.KindLabel])
	if !ok {
		return nil, fmt.Errorf("submit rendered a job of no kind easyai knows")
	}
	return (&platform.Recorded{Kind: k, Values: values}).JobFile()
}

// checkJobFile renders the job file as a run would submit it (a dry run):
// what submit refuses, create refuses now, not at 2 in the morning.
func (o *Options) checkJobFile(ctx context.Context) error {
	dryRun := submit.DryRunClient
	if o.dryRun == submit.DryRunServer {
		dryRun = submit.DryRunServer
	}
	_, err := cmdutil.SubmitJobFile(ctx, o.Factory, cmdutil.JobFileSubmission{
		File: render.ValueFile{Name: o.File, Data: o.Spec.JobFile}, Name: cron.RunName(o.Name, o.Factory.Now()),
		Experiment: o.Name, Labels: []string{cron.Label + "=" + o.Name}, DryRun: dryRun,
	})
	return err
}

func (o *Options) print(objs *cron.Objects) error {
	out := o.Factory.IOStreams.Out
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": objs.Items()}
	format := o.Print.Format()
	if format == printers.FormatDefault && o.dryRun == submit.DryRunClient {
		format = printers.FormatYAML
	}
	switch format {
	case printers.FormatJSON:
		return printers.JSON(out, list)
	case printers.FormatYAML:
		return printers.YAML(out, list)
	case printers.FormatName:
		fmt.Fprintf(out, "cron/%s\n", o.Name)
		return nil
	}
	what := "created"
	if o.dryRun == submit.DryRunServer {
		what = "checked by the API server (server dry run; nothing was created)"
	}
	on := ""
	if o.Spec.Backend == cron.BackendVolcano {
		on = " (Volcano's CronJob)"
	}
	fmt.Fprintf(out, "schedule %s %s in namespace %s%s: %s\n", o.Name, what, o.Spec.Namespace, on, o.Spec.Schedule)
	return nil
}
