// Package submit is "easyai submit KIND -- COMMAND" and "easyai submit -f job.yaml".
package submit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/shlex"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/build"
	logscmd "github.com/easyai-dev/easyai/pkg/cmd/logs"
	waitcmd "github.com/easyai-dev/easyai/pkg/cmd/wait"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/logs"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/userfile"
	"github.com/easyai-dev/easyai/pkg/waiter"
)

// Options of one submit.
type Options struct {
	Factory *cmdutil.Factory
	Kind    kinds.Kind

	Flags      submit.Flags
	kindValues kinds.KindValues
	// flagSet is the command's, for a kinds.BackendChooser.
	flagSet *pflag.FlagSet

	ChartDir   string
	ValueFiles []string
	// valueFiles are ValueFiles as read, once: a file from a pipe can be
	// read only once.
	valueFiles []render.ValueFile
	Set        []string
	DryRun     string
	Output     string
	// Wait for the job to finish (--wait), at most Timeout; with Logs,
	// stream every replica's log meanwhile.
	Wait    bool
	Logs    bool
	Timeout time.Duration
}

// NewCmdSubmit returns "submit" with a subcommand per kind; runF replaces
// Run in tests.
func NewCmdSubmit(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f}
	cmd := &cobra.Command{
		Use:   "submit KIND [flags] -- COMMAND [ARGS...]",
		Short: "Submit a training job",
		Long: `Submit a distributed training job of the given kind. The job is rendered
from the kind's chart (or --chart) with the values of the flags, -f files and
--set, checked against the kind's API, and created in one request.

"easyai submit -f job.yaml" submits a job file kept in git: a values file
whose "kind" key names the kind (tf, pytorch, ...).

--wait waits for the job to end and exits with its result (0 succeeded, 4
failed, 5 --timeout ran out), which suits CI; --wait --logs also streams the
logs of every replica meanwhile, as "easyai logs -f" does.`,
		Example: `  easyai submit -f examples/tf-mnist/job.yaml
  easyai submit tf -f job.yaml --dry-run -o yaml
  # in CI: stream the logs, exit with the job's result, keep the final state
  easyai submit -f job.yaml --wait --logs --timeout 2h -o json > result.json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(o.ValueFiles) == 0 {
				return exit.UsageErrorf("name the kind (%s) or give a job file with -f", strings.Join(f.Kinds.Names(), ", "))
			}
			if err := o.readValueFiles(cmd); err != nil {
				return err
			}
			k, err := kindOfJobFile(f.Kinds, o.valueFiles[0])
			if err != nil {
				return err
			}
			o.Kind = k
			o.kindValues = func(kinds.SubmitCommon) (map[string]any, error) { return nil, nil }
			return o.complete(cmd, args, runF)
		},
	}
	addCommonFlags(cmd.Flags(), o)
	for _, k := range f.Kinds.All() {
		cmd.AddCommand(newCmdKind(f, k, runF))
	}
	return cmd
}

func newCmdKind(f *cmdutil.Factory, k kinds.Kind, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, Kind: k}
	gvk := k.GroupVersionKind()
	cmd := &cobra.Command{
		Use:     k.Name() + " [flags] -- COMMAND [ARGS...]",
		Aliases: k.Aliases(),
		Short:   fmt.Sprintf("Submit a %s (%s)", gvk.Kind, gvk.Group),
		Long: fmt.Sprintf(`Submit a %s, served by %s. The command after "--" is run by
every replica; the operator injects the framework's environment.`, gvk.Kind, k.Operator()),
		Example: examples(k.Name()),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.complete(cmd, args, runF)
		},
	}
	if doc, ok := k.(kinds.SubmitDoc); ok {
		cmd.Long, cmd.Example = doc.SubmitLong(), doc.SubmitExample()
	}
	addCommonFlags(cmd.Flags(), o)
	o.kindValues = k.SubmitFlags(cmd.Flags())
	return cmd
}

func examples(kind string) string {
	switch kind {
	case "tf":
		return `  # 1 parameter server and 4 GPU workers
  easyai submit tf --ps 1 --workers 4 --gpus 1 --image tensorflow/tensorflow:2.16.1-gpu -- python train.py
  # print the TFJob instead of creating it, validated by the API server
  easyai submit tf --workers 2 --image tf:1 --dry-run=server -o yaml -- python train.py`
	case "pytorch":
		return `  # 3 nodes (1 master + 2 workers), 8 GPUs and 8 processes each, gang-scheduled
  easyai submit pytorch --workers 3 --gpus 8 --nproc-per-node 8 --gang --image pytorch/pytorch:2.4 -- torchrun train.py
  # elastic between 2 and 4 nodes
  easyai submit pytorch --workers 2 --elastic-min 2 --elastic-max 4 --image pt:1 -- python train.py`
	}
	return "  easyai submit " + kind + " --image IMAGE -- COMMAND"
}

func addCommonFlags(fs *pflag.FlagSet, o *Options) {
	v := &o.Flags
	fs.StringVar(&v.Name, "name", "", "job name (default: a readable unique name, printed)")
	fs.StringVar(&v.Image, "image", "", "container image (default: the configuration's image)")
	fs.IntVar(&v.Workers, "workers", 1, "number of workers (PyTorch: nodes, the first being the master)")
	fs.IntVar(&v.GPUs, "gpus", 0, "GPUs per worker")
	fs.StringVar(&v.CPU, "cpu", "", "CPU per replica, e.g. 4 or 500m")
	fs.StringVar(&v.Memory, "memory", "", "memory per replica, e.g. 16Gi")
	fs.StringArrayVar(&v.Env, "env", nil, "environment variable NAME=VALUE (repeatable)")
	fs.StringVar(&v.WorkingDir, "working-dir", "", "working directory of the command")
	fs.StringArrayVar(&v.Labels, "label", nil, "label KEY=VALUE on the job and its pods (repeatable)")
	fs.StringArrayVar(&v.Annotations, "annotation", nil, "annotation KEY=VALUE on the job (repeatable)")
	fs.StringArrayVar(&v.NodeSelectors, "node-selector", nil, "node label KEY=VALUE the pods must run on (repeatable)")
	fs.StringArrayVar(&v.Tolerations, "toleration", nil, "tolerate a taint: key[=value]:effect (repeatable)")
	fs.StringArrayVar(&v.ImagePullSecrets, "image-pull-secret", nil, "Secret to pull the image with (repeatable)")
	fs.StringVar(&v.ImagePullPolicy, "image-pull-policy", "IfNotPresent", "Always, IfNotPresent or Never")
	fs.StringVar(&v.ShmSize, "shm-size", "", "size of /dev/shm (a memory volume), e.g. 8Gi")
	fs.StringVar(&v.Priority, "priority", "", "PriorityClass of the pods (default: the configuration's)")
	fs.StringVar(&v.Queue, "queue", "", "Volcano queue (default: the configuration's)")
	fs.BoolVar(&v.Gang, "gang", false, "gang-schedule all replicas together through a Volcano PodGroup")
	fs.IntVar(&v.Retry, "retry", 0, "times the job is retried after a failure (backoffLimit)")
	fs.DurationVar(&v.MaxDuration, "max-duration", 0, "stop the job after running this long, e.g. 24h")
	fs.DurationVar(&v.TTLAfterFinished, "ttl-after-finished", 0, "delete the finished job after this long, e.g. 72h")
	fs.StringVar(&v.CleanPodPolicy, "clean-pod-policy", "", "pods deleted when the job ends: All, Running or None")
	fs.StringVar(&v.Experiment, "experiment", "", "experiment the job belongs to (a label)")
	fs.StringArrayVar(&v.Data, "data", nil, "mount a PersistentVolumeClaim: PVC:/mount/path[:ro] (repeatable)")

	fs.StringVar(&o.ChartDir, "chart", "", "render this chart directory instead of the kind's built-in chart")
	fs.StringArrayVarP(&o.ValueFiles, "values", "f", nil, `values file, "-" for standard input (repeatable; later files win)`)
	fs.StringArrayVar(&o.Set, "set", nil, "set a chart value: key=value, as in Helm (repeatable; wins over everything)")
	fs.StringVar(&o.DryRun, "dry-run", "none", `print the job without creating it: "client", or "server" (validated by the API server)`)
	fs.Lookup("dry-run").NoOptDefVal = "client"
	fs.StringVarP(&o.Output, "output", "o", "", "output: name, json or yaml (dry runs default to yaml)")
	fs.BoolVar(&o.Wait, "wait", false, "wait for the job to finish; exit 0 succeeded, 4 failed, 5 timed out (-o json: print it as get does)")
	fs.BoolVar(&o.Logs, "logs", false, "with --wait: stream every replica's log until the job ends (on stderr with -o json)")
	fs.DurationVar(&o.Timeout, "timeout", waitcmd.DefaultTimeout, "with --wait: give up after this long (exit 5)")
}

// readValueFiles reads the -f files once ("-" is stdin), bounded, and
// under the command's context (Ctrl-C ends a read that waits).
func (o *Options) readValueFiles(cmd *cobra.Command) error {
	if o.valueFiles != nil || len(o.ValueFiles) == 0 {
		return nil
	}
	stdins := 0
	for _, path := range o.ValueFiles {
		if path == userfile.Stdin {
			stdins++
		}
	}
	if stdins > 1 {
		return exit.UsageErrorf("-f -: standard input can be read only once")
	}
	files, err := render.ReadValueFiles(cmd.Context(), o.Factory.IOStreams.In, o.ValueFiles)
	if err != nil {
		return err
	}
	o.valueFiles = files
	return nil
}

// kindOfJobFile reads the kind a job file names.
func kindOfJobFile(reg *kinds.Registry, file render.ValueFile) (kinds.Kind, error) {
	path := file.Name
	var head struct {
		Kind string `json:"kind"`
	}
	if err := yaml.Unmarshal(file.Data, &head); err != nil {
		return nil, exit.UsageErrorf("-f %s: %v", path, err)
	}
	if head.Kind == "" {
		return nil, exit.UsageErrorf("-f %s: the job file names no kind (add e.g. \"kind: tf\"), or use easyai submit KIND -f", path)
	}
	k, ok := reg.Lookup(head.Kind)
	if !ok {
		return nil, exit.UsageErrorf("-f %s: unknown kind %q (known: %s)", path, head.Kind, strings.Join(reg.Names(), ", "))
	}
	return k, nil
}

// checkJobFileKind fails when a values file names a kind other than k.
func checkJobFileKind(reg *kinds.Registry, file render.ValueFile, k kinds.Kind) error {
	named, err := kindOfJobFile(reg, file)
	if err != nil {
		if exit.Code(err) == exit.Usage && strings.Contains(err.Error(), "names no kind") {
			return nil
		}
		return err
	}
	if named.Name() != k.Name() {
		return exit.UsageErrorf("-f %s is a %s job file, not %s", file.Name, named.Name(), k.Name())
	}
	return nil
}

// complete collects the command line into Options and validates it.
func (o *Options) complete(cmd *cobra.Command, args []string, runF func(*Options) error) error {
	dash := cmd.ArgsLenAtDash()
	switch {
	case dash > 0 || (dash < 0 && len(args) > 0):
		return exit.UsageErrorf("unexpected arguments %q: put the command after \"--\" (easyai submit %s [flags] -- python train.py)", args, o.Kind.Name())
	case dash == 0:
		o.Flags.Command = args
	}
	o.flagSet = cmd.Flags()
	o.Flags.Changed = func(flag string) bool {
		if flag == "command" {
			return len(o.Flags.Command) > 0
		}
		fl := cmd.Flags().Lookup(flag)
		return fl != nil && fl.Changed
	}
	if err := o.readValueFiles(cmd); err != nil {
		return err
	}
	for _, file := range o.valueFiles {
		if err := checkJobFileKind(o.Factory.Kinds, file, o.Kind); err != nil {
			return err
		}
	}
	switch o.DryRun {
	case "none", "client", "server":
	default:
		return exit.UsageErrorf(`--dry-run %q: must be "client" or "server"`, o.DryRun)
	}
	switch o.Output {
	case "", "name", "json", "yaml":
	default:
		return exit.UsageErrorf("--output %q: must be name, json or yaml", o.Output)
	}
	if o.Logs && !o.Wait {
		return exit.UsageErrorf("--logs streams the logs while waiting: add --wait")
	}
	if o.Wait && o.DryRun != "none" {
		return exit.UsageErrorf("--wait waits for a submitted job: not with --dry-run")
	}
	if runF != nil {
		return runF(o)
	}
	return o.Run(cmd.Context())
}

// Run builds the job and submits it (or prints it, for a dry run).
func (o *Options) Run(ctx context.Context) error {
	f := o.Factory
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	values, err := o.Flags.Values()
	if err != nil {
		return err
	}
	kindValues, err := o.kindValues(kinds.SubmitCommon{Workers: o.Flags.Workers, Changed: o.Flags.Changed})
	if err != nil {
		return err
	}
	mergeValues(values, kindValues)
	labels, annotations, err := o.Flags.Metadata()
	if err != nil {
		return err
	}
	for k, v := range cfg.Labels {
		if _, ok := labels[k]; !ok {
			labels[k] = v
		}
	}
	values["gpuResource"] = cfg.GPUResource
	ns, _, err := f.Namespace()
	if err != nil {
		return err
	}
	renderAs, err := o.backend(ctx)
	if err != nil {
		return err
	}
	req := &submit.Request{
		Kind: renderAs, Namespace: ns, ChartDir: o.ChartDir, ValueFiles: o.valueFiles, Values: values, Set: o.Set,
		Experiment: o.Flags.Experiment, Labels: labels, Annotations: annotations, CLIVersion: build.Version,
	}
	if err := o.fillDefaults(req, cfg.Image, cfg.Queue, cfg.PriorityClass); err != nil {
		return err
	}
	if err := o.checkKindValue(req); err != nil {
		return err
	}

	if o.DryRun == "client" {
		// A client dry run makes no call: the user is the kubeconfig's.
		req.User, _ = f.KubeconfigUser()
	} else if req.User, err = f.User(ctx); err != nil {
		return err
	}

	objs, err := submit.Build(req)
	if err != nil {
		return err
	}
	obj := objs[0]
	// A job rendered as another kind (ColossalAI on Volcano) is created and
	// read back as that kind.
	if k, ok := f.Kinds.ForGVK(renderAs.GroupVersionKind()); ok {
		o.Kind = k
	}
	if o.DryRun == "client" {
		return o.print(obj, "yaml")
	}
	client, err := f.DynamicClient()
	if err != nil {
		return err
	}
	created, err := submit.Create(ctx, client, o.Kind, obj, o.DryRun == "server")
	if err != nil {
		return err
	}
	if o.DryRun == "server" {
		return o.print(created, "yaml")
	}
	if !o.Wait {
		return o.print(created, "")
	}
	return o.waitFor(ctx, created)
}

// backend is the kind to render the job as: the kind itself, or what a
// kinds.BackendChooser picks for this cluster.
func (o *Options) backend(ctx context.Context) (kinds.Kind, error) {
	chooser, ok := o.Kind.(kinds.BackendChooser)
	if !ok {
		return o.Kind, nil
	}
	probe := kinds.BackendProbe{Offline: o.DryRun == "client"}
	if !probe.Offline {
		probe.Served = o.served
	}
	flags := o.flagSet
	if flags == nil {
		flags = pflag.NewFlagSet("submit", pflag.ContinueOnError)
	}
	k, note, err := chooser.SubmitBackend(ctx, flags, probe)
	if note != "" {
		fmt.Fprintln(o.Factory.IOStreams.ErrOut, note)
	}
	return k, err
}

// served asks the API server's discovery whether it serves gvr.
func (o *Options) served(ctx context.Context, gvr schema.GroupVersionResource) (bool, error) {
	kube, err := o.Factory.KubeClient()
	if err != nil {
		return false, err
	}
	list, err := kube.Discovery().ServerResourcesForGroupVersion(gvr.GroupVersion().String())
	switch {
	case apierrors.IsNotFound(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("asking the cluster whether it serves %s: %w", gvr.GroupResource(), err)
	}
	for _, r := range list.APIResources {
		if r.Name == gvr.Resource {
			return true, nil
		}
	}
	return false, nil
}

// waitFor waits for a submitted job to finish: -o json prints its final get
// document instead of the submitted object; the error is the job's result.
func (o *Options) waitFor(ctx context.Context, created *unstructured.Unstructured) error {
	output := ""
	if o.Output == "json" {
		output = "json"
	} else if err := o.print(created, ""); err != nil {
		return err
	}
	client, err := o.Factory.JobsClient()
	if err != nil {
		return err
	}
	if !o.Logs {
		return waitcmd.Until(ctx, o.Factory, client, o.Kind, created, waiter.Finished, o.Timeout, output)
	}
	logOut := o.Factory.IOStreams.Out
	if output == "json" {
		// stdout stays one JSON document.
		logOut = o.Factory.IOStreams.ErrOut
	}
	follow := o.followLogs(ctx, client, created, logOut)
	return waitcmd.UntilThen(ctx, o.Factory, client, o.Kind, created, waiter.Finished, o.Timeout, output, follow)
}

// LogDrainTimeout bounds how long submit --wait --logs lets the log streams
// finish after the job has ended.
var LogDrainTimeout = 30 * time.Second

// followLogs starts following the logs of every replica of the created job
// and returns the step that ends it once the wait is over: after the job
// ended, the streams are given LogDrainTimeout to print their last lines;
// after a timeout or an interrupt they are cut at once. A log error does not
// change the result, which is the job's: it is reported on stderr.
func (o *Options) followLogs(ctx context.Context, client *jobclient.Client, created *unstructured.Unstructured, out io.Writer) func(error) {
	io := o.Factory.IOStreams
	logCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 1)
	go func() {
		done <- logs.Run(logCtx, logs.Config{
			Kind: o.Kind, Job: created, Kube: client.Kube, Dynamic: client.Dynamic,
			Follow: true, Tail: -1, MaxLogRequests: logscmd.DefaultMaxLogRequests,
			Colour: io.ColorEnabled() && out == io.Out, Out: out, ErrOut: io.ErrOut,
		})
	}()
	return func(waitErr error) {
		defer cancel()
		var err error
		switch code := exit.Code(waitErr); {
		case waitErr == nil || code == exit.JobFailed:
			select {
			case err = <-done:
			case <-time.After(LogDrainTimeout):
				cancel()
				err = <-done
				fmt.Fprintf(io.ErrOut, "Warning: the logs did not end within %s of the job's end; stopped following them\n", LogDrainTimeout)
				return
			}
		default:
			cancel()
			err = <-done
		}
		if err != nil && !errors.Is(err, context.Canceled) && exit.Code(err) != exit.JobFailed && exit.Code(err) != exit.NotFound {
			fmt.Fprintf(io.ErrOut, "Warning: following the logs: %v\n", err)
		}
	}
}

// fillDefaults completes the values: a generated name, and the image and
// command from the configuration or, on a terminal, from the user.
func (o *Options) fillDefaults(req *submit.Request, image, queue, priority string) error {
	f := o.Factory
	resolved, err := req.Resolved()
	if err != nil {
		return err
	}
	if name, _ := resolved["name"].(string); name == "" {
		name = submit.GenerateName(o.Kind.Name())
		req.Values["name"] = name
		fmt.Fprintf(f.IOStreams.ErrOut, "Job name: %s\n", name)
	}
	if rp, _ := resolved["runPolicy"].(map[string]any); queue != "" && (rp == nil || rp["queue"] == nil || rp["queue"] == "") {
		mergeValues(req.Values, map[string]any{"runPolicy": map[string]any{"queue": queue}})
	}
	if p, _ := resolved["priorityClassName"].(string); p == "" && priority != "" {
		if err := submit.CheckObjectName("PriorityClass")("the configuration's priority-class", priority); err != nil {
			return err
		}
		req.Values["priorityClassName"] = priority
	}
	if missing(resolved, "image") {
		if image == "" && f.IOStreams.CanPrompt() {
			if image, err = f.Prompter.Input("Image", "the container image every replica runs", ""); err != nil {
				return err
			}
		}
		if image == "" {
			return exit.UsageErrorf("--image is required (or set a default: easyai config set image IMAGE)")
		}
		if err := submit.CheckImage("image", image); err != nil {
			return err
		}
		req.Values["image"] = image
	}
	if missing(resolved, "command") {
		if !f.IOStreams.CanPrompt() {
			return exit.UsageErrorf(`the command is required: put it after "--" (easyai submit %s [flags] -- python train.py)`, o.Kind.Name())
		}
		line, err := f.Prompter.Input("Command", "what every replica runs, e.g. python train.py --epochs 10", "")
		if err != nil {
			return err
		}
		argv, err := shlex.Split(line)
		if err != nil || len(argv) == 0 {
			return exit.UsageErrorf("command %q: %v", line, err)
		}
		req.Values["command"] = toAny(argv)
	}
	return nil
}

// checkKindValue fails when the merged values name a kind (a job file's
// "kind", or --set kind=...) other than the one submitted.
func (o *Options) checkKindValue(req *submit.Request) error {
	resolved, err := req.Resolved()
	if err != nil {
		return err
	}
	named, ok := resolved["kind"].(string)
	if !ok || named == "" {
		return nil
	}
	if k, known := o.Factory.Kinds.Lookup(named); !known || k.Name() != o.Kind.Name() {
		return exit.UsageErrorf("%s %q: this is a %s job (known kinds: %s)", req.Source("kind"), named, o.Kind.Name(), strings.Join(o.Factory.Kinds.Names(), ", "))
	}
	return nil
}

// missing reports whether key is set neither at the top of the values nor
// in every role that has replicas.
func missing(values map[string]any, key string) bool {
	if !empty(values[key]) {
		return false
	}
	roles, _ := values["roles"].(map[string]any)
	running := 0
	for _, r := range roles {
		role, _ := r.(map[string]any)
		if number(role["replicas"]) == 0 {
			continue
		}
		running++
		if empty(role[key]) {
			return true
		}
	}
	return running == 0
}

// number reads a count from values (YAML files give float64, flags int).
func number(v any) float64 {
	switch n := v.(type) {
	case int:
		return float64(n)
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return 0
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	}
	return false
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// mergeValues deep-merges src into dst (src wins).
func mergeValues(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeValues(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}

// print writes the job as asked: -o name|json|yaml, or a line saying what was
// submitted.
func (o *Options) print(obj *unstructured.Unstructured, defaultOutput string) error {
	out := o.Factory.IOStreams.Out
	obj = obj.DeepCopy()
	obj.SetManagedFields(nil) // the API server's bookkeeping, as kubectl hides it
	output := o.Output
	if output == "" {
		output = defaultOutput
	}
	switch output {
	case "name":
		_, err := fmt.Fprintf(out, "%s/%s\n", o.Kind.Name(), obj.GetName())
		return err
	case "json":
		data, err := json.MarshalIndent(obj.Object, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(out, string(data))
		return err
	case "yaml":
		data, err := yaml.Marshal(obj.Object)
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		return err
	}
	fmt.Fprintf(out, "%s/%s submitted to namespace %s\n", o.Kind.Name(), obj.GetName(), obj.GetNamespace())
	fmt.Fprintf(o.Factory.IOStreams.ErrOut, "See it with: %s get %s/%s -n %s\n", o.Factory.ExecutableName, o.Kind.Name(), obj.GetName(), obj.GetNamespace())
	return nil
}
