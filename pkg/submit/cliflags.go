package submit

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// AddFlags adds the common submit flags to cmd: submit KIND, submit -f and
// rerun take the same ones.
func (v *Flags) AddFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&v.Name, "name", "", "job name (default: a readable unique name, printed)")
	fs.StringVar(&v.Image, "image", "", "container image (default: the configuration's image)")
	fs.IntVar(&v.Workers, "workers", 1, "number of workers (PyTorch: nodes, the first being the master)")
	fs.Float64Var(&v.GPUs, "gpus", 0, "GPUs per worker (a fraction such as 0.5 on timaker clusters)")
	fs.StringVar(&v.CPU, "cpu", "", "CPU per replica, e.g. 4 or 500m")
	fs.StringVar(&v.Memory, "memory", "", "memory per replica, e.g. 16Gi")
	fs.IntVar(&v.Oversell, "oversell", 1, "request cpu and memory at their limit divided by N (N >= 1; never GPUs), the limits kept")
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
	fs.BoolVar(&v.Preemptible, "preemptible", false, "run at the low PriorityClass the configuration names (preemptible-priority-class): jobs of higher priority may preempt it")
	fs.StringVar(&v.Queue, "queue", "", "Volcano queue (default: the configuration's)")
	fs.BoolVar(&v.Gang, "gang", false, "gang-schedule all replicas together through a Volcano PodGroup")
	fs.IntVar(&v.Retry, "retry", 0, "times the job is retried after a failure (backoffLimit)")
	fs.DurationVar(&v.MaxDuration, "max-duration", 0, "stop the job after running this long, e.g. 24h")
	fs.DurationVar(&v.TTLAfterFinished, "ttl-after-finished", 0, "delete the finished job after this long, e.g. 72h")
	fs.StringVar(&v.CleanPodPolicy, "clean-pod-policy", "", "pods deleted when the job ends: All, Running or None")
	fs.StringVar(&v.Experiment, "experiment", "", "experiment the job belongs to (a label)")
	fs.StringArrayVar(&v.Data, "data", nil, "mount a PersistentVolumeClaim: PVC:/mount/path[:ro] (repeatable)")
	fs.StringVar(&v.Storage, "storage", "", "the team's shared storage, pvc:CLAIM[:/prefix] or nfs:SERVER:/export[:/prefix]: mounts the job's directories and sets summary_dir, model_dir, log_dir, data_dir, share_dir (default: the configuration's storage; docs/storage.md)")
	fs.StringVar(&v.DataDir, "data-dir", "", "with a storage: what /data_dir mounts, a path below the prefix (default data/USER)")
	fs.StringVar(&v.PretrainedFrom, "pretrained-from", "", "with a storage: mount that job's model_dir read-only at /pre_model_dir")
	fs.BoolVar(&v.PersistLogs, "persist-logs", false, "copy every replica's output into log_dir/TASK.log, read by logs after the pods are gone (default with a storage)")
	fs.BoolVar(&v.NoPersistLogs, "no-persist-logs", false, "with a storage: do not copy the replicas' output into log_dir")
	fs.StringVar(&v.Code, "code", "", "the job's code in its working directory: git:URL[@REF][#SUBDIR] (cloned by an init container) or dir:PATH (uploaded onto the storage)")
	fs.StringVar(&v.CodeSecret, "code-secret", "", "Secret with the credentials of --code git: (username and password, or ssh-privatekey and known_hosts)")
	fs.BoolVar(&v.Devtools.Debug, "debug", false, "debug mode: the replicas start with a wait in place of the command; easyai run starts it (docs/debug.md)")
	fs.StringArrayVar(&v.Devtools.DebugTasks, "debug-task", nil, "debug mode for this replica only, e.g. worker-0 (repeatable; implies --debug)")
	fs.DurationVar(&v.Devtools.DebugTimeout, "debug-timeout", 8*time.Hour, "in debug mode: the pods (a TrainJob: the job) are stopped after this long, so that they do not hold GPUs forever")
	fs.BoolVar(&v.Devtools.TensorBoard, "tensorboard", false, "run TensorBoard on the job's summary_dir beside the job (needs --storage): easyai open JOB tensorboard")
	fs.BoolVar(&v.Devtools.Jupyter, "jupyter", false, "run Jupyter Lab beside the command in the first replica: easyai open JOB jupyter")
	fs.BoolVar(&v.Devtools.CodeServer, "code-server", false, "run VS Code in the browser (code-server) beside the command in the first replica: easyai open JOB code-server")
	fs.BoolVar(&v.Devtools.SSH, "ssh", false, "run an sshd beside the command in every replica, for easyai ssh, scp, rsync and VS Code (docs/ssh.md)")
	fs.StringVar(&v.Devtools.SSHKey, "ssh-key", "", "with --ssh: the public key let in (default ~/.ssh/id_ed25519.pub, else id_ecdsa.pub, else id_rsa.pub)")
	for _, name := range NotYetFlags {
		_ = fs.MarkHidden(name)
	}
	fs.BoolVar(&v.RDMA, "rdma", false, "timaker clusters: use RDMA (only where the cluster has it)")
	fs.StringVar(&v.GPUType, "gpu-type", "", "timaker clusters: the GPU model, e.g. V100, A100, T4")
	fs.BoolVar(&v.Elastic, "elastic", false, "timaker clusters: run on elastic (shared, preemptible) resources")
	fs.StringVar(&v.FS, "fs", "", "timaker clusters: mount a file system at /opt/ml/code, TYPE:ENDPOINT:PATH[:ro]")
	_ = cmd.RegisterFlagCompletionFunc("image-pull-policy", cobra.FixedCompletions([]string{"Always", "IfNotPresent", "Never"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("clean-pod-policy", cobra.FixedCompletions([]string{"All", "Running", "None"}, cobra.ShellCompDirectiveNoFileComp))
}

// ValueFlags are the flags that give a submission its chart and values
// beside the common flags: --chart, -f, --set and --dry-run.
type ValueFlags struct {
	// JobFilePaths are -f as given (ReadJobFiles reads them).
	JobFilePaths []string
	// DryRunArg is --dry-run as given (ParseDryRun reads it).
	DryRunArg string
}

// AddFlags adds --chart, -f, --set and --dry-run to cmd, the chart and
// --set going into s.
func (v *ValueFlags) AddFlags(cmd *cobra.Command, s *Submission) {
	fs := cmd.Flags()
	fs.StringVar(&s.ChartDir, "chart", "", "render this chart directory instead of the kind's built-in chart")
	fs.StringArrayVarP(&v.JobFilePaths, "values", "f", nil, `values file, "-" for standard input (repeatable; later files win)`)
	fs.StringArrayVar(&s.Set, "set", nil, "set a chart value: key=value, as in Helm (repeatable; wins over everything)")
	fs.StringVar(&v.DryRunArg, "dry-run", string(DryRunNone), `print the job without creating it: "client", or "server" (validated by the API server)`)
	fs.Lookup("dry-run").NoOptDefVal = "client"
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cobra.FixedCompletions([]string{"client", "server"}, cobra.ShellCompDirectiveNoFileComp))
}

// ReadJobFiles reads the -f files once ("-" is standard input, which can be
// read only once), bounded, under ctx: Ctrl-C ends a read that waits.
func (v *ValueFlags) ReadJobFiles(ctx context.Context, in io.Reader) ([]render.ValueFile, error) {
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
