// Package create is "easyai serve create": a model server on a Deployment
// and a Service.
package create

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/cmd/serve/serveargs"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/serving"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// Options of serve create.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	Print   *printers.PrintFlags

	Spec          serving.Spec
	FrameworkName string
	ModelFrom     string
	Model         string
	Tolerations   []string
	Data          []string
	Backend       string
	Wait          bool
	Timeout       time.Duration
	DryRunArg     string

	dryRun submit.DryRun
	client *serving.Client
}

const long = `Create a serving: a Deployment of --replicas pods running the model server,
and a Service NAME in front of them, on the server's port.

--framework fills in what the server needs: its command, its port, the paths
that say it is ready and alive, and where the model is mounted (vllm, tgi,
triton, torchserve, tfserving; docs/serving.md has the table). A command after
"--" replaces the framework's; --port and --ready-path replace its port and
readiness path. custom (the default) runs the command given, on --port
(8000), ready once the port accepts connections unless --ready-path is given.

--model-from JOB mounts the model_dir of a job of the namespace submitted with
--storage, read-only, where the framework reads the model; the serving records
the job. --model pvc:CLAIM/PATH mounts a directory of a claim, --model PATH one
of the configured storage. Without either the image holds the model.

--backend auto makes a KServe InferenceService (RawDeployment mode) where the
cluster serves KServe, else a Deployment, and says on stderr which and why;
--backend deployment or kserve chooses. Either way a Service NAME is made in
front of every version's pods, and every serve command works the same on
both. With --wait the command returns
once every replica is ready: exit 5 at --timeout, naming why not (a pull
failure is said as soon as it is seen). --dry-run=client prints what would be
created; --dry-run=server has the API server check it.

Nothing is left half-created: when the Service cannot be made, the Deployment
(or InferenceService) is deleted again.`

const examples = `  # the model of a finished job, served by vLLM on one GPU
  easyai serve create bert --framework vllm --image vllm/vllm-openai:v0.6.3 --model-from mnist --gpus 1 --wait

  # your own server
  easyai serve create echo --image python:3.12 --port 9000 --ready-path / -- python -m http.server 9000

  # on KServe, even where the cluster also allows plain Deployments
  easyai serve create bert --backend kserve --framework vllm --image vllm/vllm-openai:v0.6.3 --model-from mnist --gpus 1

  # what would be created
  easyai serve create bert --framework tgi --image ghcr.io/huggingface/text-generation-inference:2.4 --model pvc:team-data/models/bert --dry-run=client`

// NewCmdCreate returns "serve create"; runF replaces Complete and Run in tests.
func NewCmdCreate(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams, Print: printers.NewPrintFlags("a line", printers.FormatJSON, printers.FormatYAML, printers.FormatName)}
	cmd := &cobra.Command{
		Use:     "create NAME --image IMAGE [--framework FRAMEWORK] [--model-from JOB] [-- COMMAND ARGS...]",
		Short:   "Create a serving of a model",
		Long:    long,
		Example: examples,
		Args:    cmdutil.MinimumArgs(1, "the serving's name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Spec.Name = args[0]
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				if dash != 1 {
					return exit.UsageErrorf(`give one NAME before "--" (got %d arguments)`, dash)
				}
				o.Spec.Command = args[dash:]
			} else if len(args) > 1 {
				return exit.UsageErrorf(`put the server's command after "--": easyai serve create %s --image IMAGE -- %s`, args[0], strings.Join(args[1:], " "))
			}
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	o.addFlags(cmd)
	return cmd
}

func (o *Options) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	s := &o.Spec
	fl.StringVar(&s.Image, "image", "", "the model server's image (required)")
	fl.StringVar(&o.FrameworkName, "framework", "custom", "the model server: "+strings.Join(serving.FrameworkNames(), ", "))
	fl.StringVar(&o.ModelFrom, "model-from", "", "serve the model_dir of this job (submitted with --storage)")
	fl.StringVar(&o.Model, "model", "", "serve the model in pvc:CLAIM/PATH, or in PATH of the configured storage")
	fl.Int32Var(&s.Replicas, "replicas", 1, "how many pods run the server")
	fl.Int64Var(&s.GPUs, "gpus", 0, "GPUs of each pod")
	fl.StringVar(&s.CPU, "cpu", "", "CPU of each pod, requested and limited (e.g. 4, 500m)")
	fl.StringVar(&s.Memory, "memory", "", "memory of each pod, requested and limited (e.g. 16Gi)")
	fl.Int32Var(&s.Port, "port", 0, "the port the server listens on (default: the framework's; custom: 8000)")
	fl.StringVar(&s.ReadyPath, "ready-path", "", "an HTTP path that answers 2xx once the model is loaded (default: the framework's)")
	fl.StringArrayVarP(&s.Env, "env", "e", nil, "an environment variable of the server, NAME=VALUE; repeatable")
	fl.StringToStringVar(&s.NodeSelector, "node-selector", nil, "run the pods on nodes with these labels, KEY=VALUE[,...]")
	fl.StringArrayVar(&o.Tolerations, "toleration", nil, "let the pods run on nodes with this taint, key[=value]:effect; repeatable")
	fl.StringArrayVar(&o.Data, "data", nil, "mount a claim of the namespace, PVC:/mount/path[:ro]; repeatable")
	fl.StringVar(&s.ShmSize, "shm-size", "", "size of /dev/shm (a memory volume), e.g. 8Gi")
	fl.StringVar(&s.Priority, "priority", "", "the PriorityClass of the pods")
	fl.StringVar(&s.Queue, "queue", "", "a Volcano queue to schedule the pods in (default: none, the default scheduler)")
	fl.StringArrayVar(&s.PullSecrets, "image-pull-secret", nil, "a Secret of the namespace to pull the image with; repeatable")
	fl.StringVar(&o.Backend, "backend", "auto", "what the serving is made of: auto, deployment, kserve")
	cmdutil.AddWaitFlags(cmd, &o.Wait, "wait until every replica is ready", &o.Timeout, 10*time.Minute)
	fl.StringVar(&o.DryRunArg, "dry-run", string(submit.DryRunNone), `"client": print what would be created; "server": have the API server check it`)
	fl.Lookup("dry-run").NoOptDefVal = string(submit.DryRunClient)
	o.Print.AddFlags(cmd)
	_ = cmd.RegisterFlagCompletionFunc("framework", cmdutil.CompleteWords(serving.FrameworkNames()...))
	_ = cmd.RegisterFlagCompletionFunc("backend", cmdutil.CompleteWords("auto", "deployment", "kserve"))
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cmdutil.CompleteWords("client", "server"))
	_ = cmd.RegisterFlagCompletionFunc("model-from", cmdutil.CompleteJob(o.Factory))
}

// Validate checks the flags without the cluster.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	fw, err := serving.ParseFramework(o.FrameworkName)
	if err != nil {
		return err
	}
	o.Spec.Framework = fw
	if o.dryRun, err = submit.ParseDryRun(o.DryRunArg); err != nil {
		return err
	}
	switch o.Backend {
	case "auto", serving.BackendDeployment, serving.BackendKServe:
	default:
		return exit.UsageErrorf("--backend %q: auto, deployment or kserve", o.Backend)
	}
	if o.ModelFrom != "" && o.Model != "" {
		return exit.UsageErrorf("--model-from and --model both name the model: give one")
	}
	if o.ModelFrom != "" {
		if _, err := kinds.ParseRef(o.Factory.Kinds, o.ModelFrom, ""); err != nil {
			return exit.UsageErrorf("--model-from %q: %v", o.ModelFrom, err)
		}
	}
	if o.Spec.Queue != "" {
		if err := submit.CheckObjectName("queue")("--queue", o.Spec.Queue); err != nil {
			return err
		}
	}
	if o.Spec.Priority != "" {
		if err := submit.CheckObjectName("PriorityClass")("--priority", o.Spec.Priority); err != nil {
			return err
		}
	}
	for _, t := range o.Tolerations {
		tol, err := submit.ParseToleration(t)
		if err != nil {
			return err
		}
		o.Spec.Tolerations = append(o.Spec.Tolerations, tol)
	}
	for _, d := range o.Data {
		m, err := submit.ParseData(d)
		if err != nil {
			return err
		}
		o.Spec.Data = append(o.Spec.Data, m)
	}
	if o.Wait && o.dryRun != submit.DryRunNone {
		return exit.UsageErrorf("--wait: a dry run creates nothing to wait for")
	}
	if o.Timeout < 0 {
		return exit.UsageErrorf("--timeout %s: must not be negative", o.Timeout)
	}
	return o.Spec.Validate()
}

// Complete resolves the namespace, the client, the user and the settings.
func (o *Options) Complete() error {
	c, ns, err := serveargs.Client(o.Factory)
	if err != nil {
		return err
	}
	o.client, o.Spec.Namespace = c, ns
	cfg, err := o.Factory.Config()
	if err != nil {
		return err
	}
	o.Spec.GPUResource = cfg.GPUResource
	o.Spec.CLIVersion = build.Version
	if o.Model != "" {
		if o.Spec.Model, err = serving.ParseModel(o.Model, cfg.Storage); err != nil {
			return err
		}
	}
	return nil
}

// Run creates the serving (or renders it, for a dry run) and waits for it
// with --wait.
func (o *Options) Run(ctx context.Context) error {
	if err := o.chooseBackend(ctx); err != nil {
		return err
	}
	if o.dryRun != submit.DryRunClient {
		if err := submit.CheckPlacementOf(ctx, o.Factory.DynamicClient, o.served, o.IO.ErrOut, o.Spec.Queue, o.Spec.Priority); err != nil {
			return err
		}
	}
	if err := o.fillUser(ctx); err != nil {
		return err
	}
	if err := o.modelFrom(ctx); err != nil {
		return err
	}
	objs, err := serving.Render(&o.Spec)
	if err != nil {
		return err
	}
	if o.dryRun != submit.DryRunClient {
		if objs, err = o.client.Create(ctx, objs, o.dryRun == submit.DryRunServer); err != nil {
			return err
		}
	}
	if err := o.print(objs); err != nil {
		return err
	}
	if !o.Wait {
		return nil
	}
	doc, err := o.client.Wait(ctx, o.Spec.Namespace, o.Spec.Name, o.Timeout, o.IO.ErrOut)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "Serving %s is available: %d/%d replicas ready, at %s inside the cluster\n", o.Spec.Name, doc.Ready, doc.Replicas, doc.Endpoint)
	return nil
}

// chooseBackend chooses what the serving is made of, and says which and
// why on stderr: KServe's InferenceService where the cluster serves it
// (auto) or where asked (kserve), else a Deployment.
func (o *Options) chooseBackend(ctx context.Context) error {
	o.Spec.Backend = serving.BackendDeployment
	if o.Backend == serving.BackendDeployment {
		fmt.Fprintf(o.IO.ErrOut, "Backend: a Deployment and a Service (--backend deployment)\n")
		return nil
	}
	if o.dryRun == submit.DryRunClient {
		if o.Backend == serving.BackendKServe {
			o.Spec.Backend = serving.BackendKServe
			fmt.Fprintf(o.IO.ErrOut, "Backend: a KServe InferenceService (RawDeployment) and a Service (--backend kserve; a client dry run asks the cluster nothing)\n")
			return nil
		}
		fmt.Fprintf(o.IO.ErrOut, "Backend: a Deployment and a Service (a client dry run asks the cluster nothing; --backend kserve to render KServe's)\n")
		return nil
	}
	served, err := o.served(ctx, serving.InferenceServices)
	if err != nil {
		if o.Backend == serving.BackendKServe {
			return fmt.Errorf("--backend kserve: asking the cluster whether it serves %s: %w", serving.KServeGroup, err)
		}
		fmt.Fprintf(o.IO.ErrOut, "Warning: could not ask the cluster whether it serves KServe (%v)\n", err)
	}
	switch {
	case o.Backend == serving.BackendKServe && !served:
		return exit.UsageErrorf("--backend kserve: the cluster serves no %s/%s (KServe is not installed): use --backend deployment", serving.KServeGroup, serving.KServeVersion)
	case served && o.Backend == "auto" && serving.KServeHostFits(o.Spec.Name, o.Spec.Namespace) != nil:
		fmt.Fprintf(o.IO.ErrOut, "Backend: a Deployment and a Service (the cluster serves KServe, but %v)\n", serving.KServeHostFits(o.Spec.Name, o.Spec.Namespace))
	case served:
		o.Spec.Backend = serving.BackendKServe
		why := "--backend kserve"
		if o.Backend == "auto" {
			why = "the cluster serves KServe; --backend deployment for a plain Deployment"
		}
		fmt.Fprintf(o.IO.ErrOut, "Backend: a KServe InferenceService (RawDeployment) and a Service (%s)\n", why)
	default:
		fmt.Fprintf(o.IO.ErrOut, "Backend: a Deployment and a Service (the cluster serves no KServe)\n")
	}
	return nil
}

// served tells whether the cluster serves a resource (discovery, which
// every user may read).
func (o *Options) served(_ context.Context, gvr schema.GroupVersionResource) (bool, error) {
	kc, err := o.Factory.KubeClient()
	if err != nil {
		return false, err
	}
	return kube.Served(kc, gvr)
}

// fillUser records who creates the serving (for a client dry run, the
// kubeconfig's user: nothing is asked).
func (o *Options) fillUser(ctx context.Context) error {
	var err error
	if o.dryRun == submit.DryRunClient {
		o.Spec.User, _ = o.Factory.KubeconfigUser()
		return nil
	}
	o.Spec.User, err = o.Factory.User(ctx)
	return err
}

// modelFrom mounts --model-from's model_dir.
func (o *Options) modelFrom(ctx context.Context) error {
	if o.ModelFrom == "" {
		return nil
	}
	if o.dryRun == submit.DryRunClient {
		return exit.UsageErrorf("--model-from reads the job from the cluster: not with --dry-run=client (--dry-run=server asks it)")
	}
	ref, err := kinds.ParseRef(o.Factory.Kinds, o.ModelFrom, "")
	if err != nil {
		return exit.UsageErrorf("--model-from %q: %v", o.ModelFrom, err)
	}
	jobs, err := o.Factory.JobsClient()
	if err != nil {
		return err
	}
	_, obj, err := jobs.Find(ctx, o.Spec.Namespace, ref)
	if err != nil {
		return err
	}
	if o.Spec.Model, err = serving.ModelOfJob(ref.Name, obj); err != nil {
		return err
	}
	o.Spec.ModelFrom = ref.Name
	return nil
}

// print says what was created (or would be), as -o asks.
func (o *Options) print(objs *serving.Objects) error {
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List"}}
	list.Items = []unstructured.Unstructured{*objs.Workload, *objs.Service}
	byDefault := printers.FormatDefault
	if o.dryRun == submit.DryRunClient {
		byDefault = printers.FormatYAML
	}
	format := o.Print.Format()
	if format == printers.FormatDefault {
		format = byDefault
	}
	switch format {
	case printers.FormatJSON:
		return printers.JSON(o.IO.Out, list.UnstructuredContent())
	case printers.FormatYAML:
		return printers.YAML(o.IO.Out, list.UnstructuredContent())
	case printers.FormatName:
		fmt.Fprintf(o.IO.Out, "serving/%s\n", o.Spec.Name)
		return nil
	}
	what := "created"
	if o.dryRun == submit.DryRunServer {
		what = "checked by the API server (server dry run; nothing was created)"
	}
	fmt.Fprintf(o.IO.Out, "serving %s %s in namespace %s\n", o.Spec.Name, what, o.Spec.Namespace)
	if o.dryRun == submit.DryRunNone {
		fmt.Fprintf(o.IO.ErrOut, "See it with: %s serve get %s\n", o.Factory.ExecutableName, o.Spec.Name)
	}
	return nil
}
