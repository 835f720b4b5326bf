package submit

import (
	"time"

	"github.com/spf13/pflag"
)

// Platforms is a set of the platforms a submit flag is honoured on.
type Platforms uint8

// The platforms.
const (
	// Kubernetes is a Kubernetes cluster: the job is a custom resource.
	Kubernetes Platforms = 1 << iota
	// Timaker is a timaker cluster (--cluster NAME): the job is a request
	// to its HTTP API.
	Timaker
	// Everywhere is every platform.
	Everywhere = Kubernetes | Timaker
)

// FlagSpec is one submit flag as it is declared, once: its name, the field
// of Flags it sets with its default and help, the platforms that honour it
// and the checked value it gives.
type FlagSpec struct {
	// Name is the flag's name, without "--".
	Name string
	// Platforms are the platforms that honour the flag: any other refuses
	// it (exit 2) rather than ignore it.
	Platforms Platforms
	// Value is the path of the value the flag gives when that value is
	// checked again once merged (checkValues): a message about it names
	// the flag when the flag gave it. "": none.
	Value string
	// Usage is the flag's help.
	Usage string
	// declare adds the flag to a flag set, bound to its field of the Flags
	// the table was made of, with its default. nil: the command declares
	// the flag beside -f and --set (--chart), it is in the table for its
	// platforms only.
	declare func(fs *pflag.FlagSet, name, usage string)
}

// specs is the table of the submit flags, bound to f, in the order of the
// help: the one place a flag is declared.
func (f *Flags) specs() []FlagSpec {
	d := &f.Devtools
	return []FlagSpec{
		{Name: "name", Platforms: Everywhere, Value: "name", declare: stringVar(&f.Name, ""), Usage: "job name (default: a readable unique name, printed)"},
		{Name: "image", Platforms: Everywhere, Value: "image", declare: stringVar(&f.Image, ""), Usage: "container image (default: the configuration's image)"},
		{Name: "workers", Platforms: Everywhere, declare: intVar(&f.Workers, 1), Usage: "number of workers (PyTorch: nodes, the first being the master)"},
		{Name: "gpus", Platforms: Everywhere, Value: "resources.gpus", declare: float64Var(&f.GPUs), Usage: "GPUs per worker (a fraction such as 0.5 on timaker clusters)"},
		{Name: "cpu", Platforms: Everywhere, declare: stringVar(&f.CPU, ""), Usage: "CPU per replica, e.g. 4 or 500m"},
		{Name: "memory", Platforms: Everywhere, declare: stringVar(&f.Memory, ""), Usage: "memory per replica, e.g. 16Gi"},
		{Name: "oversell", Platforms: Kubernetes, declare: intVar(&f.Oversell, 1), Usage: "request cpu and memory at their limit divided by N (N >= 1; never GPUs), the limits kept"},
		{Name: "env", Platforms: Everywhere, Value: "env", declare: stringsVar(&f.Env), Usage: "environment variable NAME=VALUE (repeatable)"},
		{Name: "working-dir", Platforms: Everywhere, Value: "workingDir", declare: stringVar(&f.WorkingDir, ""), Usage: "working directory of the command"},
		{Name: "label", Platforms: Kubernetes, declare: stringsVar(&f.Labels), Usage: "label KEY=VALUE on the job and its pods (repeatable)"},
		{Name: "annotation", Platforms: Kubernetes, declare: stringsVar(&f.Annotations), Usage: "annotation KEY=VALUE on the job (repeatable)"},
		{Name: "node-selector", Platforms: Kubernetes, declare: stringsVar(&f.NodeSelectors), Usage: "node label KEY=VALUE the pods must run on (repeatable)"},
		{Name: "toleration", Platforms: Kubernetes, declare: stringsVar(&f.Tolerations), Usage: "tolerate a taint: key[=value]:effect (repeatable)"},
		{Name: "image-pull-secret", Platforms: Kubernetes, Value: "imagePullSecrets", declare: stringsVar(&f.ImagePullSecrets), Usage: "Secret to pull the image with (repeatable)"},
		{Name: "image-pull-policy", Platforms: Kubernetes, declare: stringVar(&f.ImagePullPolicy, "IfNotPresent"), Usage: "Always, IfNotPresent or Never"},
		{Name: "shm-size", Platforms: Kubernetes, declare: stringVar(&f.ShmSize, ""), Usage: "size of /dev/shm (a memory volume), e.g. 8Gi"},
		{Name: "priority", Platforms: Kubernetes, Value: "priorityClassName", declare: stringVar(&f.Priority, ""), Usage: "PriorityClass of the pods (default: the configuration's)"},
		{Name: "preemptible", Platforms: Kubernetes, declare: boolVar(&f.Preemptible), Usage: "run at the low PriorityClass the configuration names (preemptible-priority-class): jobs of higher priority may preempt it"},
		{Name: "queue", Platforms: Kubernetes, declare: stringVar(&f.Queue, ""), Usage: "the queue the job waits in: a Kueue LocalQueue of the namespace, or a Volcano queue (--queue-system; default: the configuration's)"},
		{Name: "queue-system", Platforms: Kubernetes, declare: stringVar(&f.QueueSystem, ""), Usage: "what --queue names: kueue or volcano (default: the queue-system setting, else Kueue where the namespace has LocalQueues)"},
		{Name: "gang", Platforms: Kubernetes, declare: boolVar(&f.Gang), Usage: "gang-schedule all replicas together through a Volcano PodGroup"},
		{Name: "retry", Platforms: Kubernetes, Value: "runPolicy.backoffLimit", declare: intVar(&f.Retry, 0), Usage: "times the job is retried after a failure (backoffLimit)"},
		{Name: "max-duration", Platforms: Kubernetes, declare: durationVar(&f.MaxDuration, 0), Usage: "stop the job after running this long, e.g. 24h"},
		{Name: "ttl-after-finished", Platforms: Kubernetes, Value: "runPolicy.ttlSecondsAfterFinished", declare: durationVar(&f.TTLAfterFinished, 0), Usage: "delete the finished job after this long, e.g. 72h"},
		{Name: "clean-pod-policy", Platforms: Kubernetes, declare: stringVar(&f.CleanPodPolicy, ""), Usage: "pods deleted when the job ends: All, Running or None"},
		{Name: "experiment", Platforms: Everywhere, declare: stringVar(&f.Experiment, ""), Usage: "experiment the job belongs to (a label)"},
		{Name: "data", Platforms: Kubernetes, Value: "data", declare: stringsVar(&f.Data), Usage: "mount a PersistentVolumeClaim: PVC:/mount/path[:ro] (repeatable)"},
		{Name: "chart", Platforms: Kubernetes},
		{Name: "storage", Platforms: Kubernetes, declare: stringVar(&f.Storage, ""), Usage: "the team's shared storage, pvc:CLAIM[:/prefix] or nfs:SERVER:/export[:/prefix]: mounts the job's directories and sets summary_dir, model_dir, log_dir, data_dir, share_dir (default: the configuration's storage; docs/storage.md)"},
		{Name: "data-dir", Platforms: Kubernetes, declare: stringVar(&f.DataDir, ""), Usage: "with a storage: what /data_dir mounts, a path below the prefix (default data/USER)"},
		{Name: "pretrained-from", Platforms: Kubernetes, declare: stringVar(&f.PretrainedFrom, ""), Usage: "with a storage: mount that job's model_dir read-only at /pre_model_dir"},
		{Name: "persist-logs", Platforms: Kubernetes, declare: boolVar(&f.PersistLogs), Usage: "copy every replica's output into log_dir/TASK.log, read by logs after the pods are gone (default with a storage)"},
		{Name: "no-persist-logs", Platforms: Kubernetes, declare: boolVar(&f.NoPersistLogs), Usage: "with a storage: do not copy the replicas' output into log_dir"},
		{Name: "code", Platforms: Kubernetes, declare: stringVar(&f.Code, ""), Usage: "the job's code in its working directory: git:URL[@REF][#SUBDIR] (cloned by an init container) or dir:PATH (uploaded onto the storage)"},
		{Name: "code-secret", Platforms: Kubernetes, declare: stringVar(&f.CodeSecret, ""), Usage: "Secret with the credentials of --code git: (username and password, or ssh-privatekey and known_hosts)"},
		{Name: "debug", Platforms: Kubernetes, declare: boolVar(&d.Debug), Usage: "debug mode: the replicas start with a wait in place of the command; easyai run starts it (docs/debug.md)"},
		{Name: "debug-task", Platforms: Kubernetes, declare: stringsVar(&d.DebugTasks), Usage: "debug mode for this replica only, e.g. worker-0 (repeatable; implies --debug)"},
		{Name: "debug-timeout", Platforms: Kubernetes, declare: durationVar(&d.DebugTimeout, 8*time.Hour), Usage: "in debug mode: the pods (a TrainJob: the job) are stopped after this long, so that they do not hold GPUs forever"},
		{Name: "tensorboard", Platforms: Kubernetes, declare: boolVar(&d.TensorBoard), Usage: "run TensorBoard on the job's summary_dir beside the job (needs --storage): easyai open JOB tensorboard"},
		{Name: "jupyter", Platforms: Kubernetes, declare: boolVar(&d.Jupyter), Usage: "run Jupyter Lab beside the command in the first replica: easyai open JOB jupyter"},
		{Name: "code-server", Platforms: Kubernetes, declare: boolVar(&d.CodeServer), Usage: "run VS Code in the browser (code-server) beside the command in the first replica: easyai open JOB code-server"},
		{Name: "ssh", Platforms: Kubernetes, declare: boolVar(&d.SSH), Usage: "run an sshd beside the command in every replica, for easyai ssh, scp, rsync and VS Code (docs/ssh.md)"},
		{Name: "ssh-key", Platforms: Kubernetes, declare: stringVar(&d.SSHKey, ""), Usage: "with --ssh: the public key let in (default ~/.ssh/id_ed25519.pub, else id_ecdsa.pub, else id_rsa.pub)"},
		{Name: "rdma", Platforms: Timaker, declare: boolVar(&f.RDMA), Usage: "timaker clusters: use RDMA (only where the cluster has it)"},
		{Name: "gpu-type", Platforms: Timaker, declare: stringVar(&f.GPUType, ""), Usage: "timaker clusters: the GPU model, e.g. V100, A100, T4"},
		{Name: "elastic", Platforms: Timaker, declare: boolVar(&f.Elastic), Usage: "timaker clusters: run on elastic (shared, preemptible) resources"},
		{Name: "fs", Platforms: Timaker, declare: stringVar(&f.FS, ""), Usage: "timaker clusters: mount a file system at /opt/ml/code, TYPE:ENDPOINT:PATH[:ro]"},
	}
}

// Declare declares the submit flags of the table on fs, bound to f, in
// its order (cmdutil.AddSubmitFlags adds them to a command, with their
// completions).
// --chart is ValueFlags', beside -f and --set.
func (f *Flags) Declare(fs *pflag.FlagSet) {
	for _, spec := range f.specs() {
		if spec.declare != nil {
			spec.declare(fs, spec.Name, spec.Usage)
		}
	}
}

// FlagsNotOn are the submit flags platform p does not honour, in the order
// of the help.
func FlagsNotOn(p Platforms) []string {
	var out []string
	for _, spec := range new(Flags).specs() {
		if spec.Platforms&p == 0 {
			out = append(out, spec.Name)
		}
	}
	return out
}

// ChangedNotOn is the first flag, in the order of the help, that the user
// set and platform p does not honour ("": none).
func (f *Flags) ChangedNotOn(p Platforms) string {
	for _, flag := range FlagsNotOn(p) {
		if f.given(flag) {
			return flag
		}
	}
	return ""
}

// given reports whether the user set flag, as Changed does; false without
// Changed (a submission made without the command's flags).
func (f *Flags) given(flag string) bool {
	return f.Changed != nil && f.Changed(flag)
}

// flagOfValue is the submit flag that sets each checked value, for
// messages: the table's, and the kind (an argument) and Volcano's
// --min-available (a kind's flag).
var flagOfValue = valueFlags(map[string]string{"kind": "the kind", "runPolicy.minAvailable": "--min-available"})

// valueFlags is the flag of each checked value of the table, with more
// (not of the table) added.
func valueFlags(more map[string]string) map[string]string {
	out := map[string]string{}
	for _, spec := range new(Flags).specs() {
		if spec.Value != "" {
			out[spec.Value] = "--" + spec.Name
		}
	}
	for value, flag := range more {
		out[value] = flag
	}
	return out
}

// flagVar binds declare, a pflag declaration such as
// (*pflag.FlagSet).StringVar, to the field p and the default value.
func flagVar[T any](declare func(*pflag.FlagSet, *T, string, T, string), p *T, value T) func(*pflag.FlagSet, string, string) {
	return func(fs *pflag.FlagSet, name, usage string) { declare(fs, p, name, value, usage) }
}

func stringVar(p *string, value string) func(*pflag.FlagSet, string, string) {
	return flagVar((*pflag.FlagSet).StringVar, p, value)
}

// stringsVar is a repeatable flag: each one given is one more value.
func stringsVar(p *[]string) func(*pflag.FlagSet, string, string) {
	return flagVar((*pflag.FlagSet).StringArrayVar, p, nil)
}

func intVar(p *int, value int) func(*pflag.FlagSet, string, string) {
	return flagVar((*pflag.FlagSet).IntVar, p, value)
}

func float64Var(p *float64) func(*pflag.FlagSet, string, string) {
	return flagVar((*pflag.FlagSet).Float64Var, p, 0)
}

func boolVar(p *bool) func(*pflag.FlagSet, string, string) {
	return flagVar((*pflag.FlagSet).BoolVar, p, false)
}

func durationVar(p *time.Duration, value time.Duration) func(*pflag.FlagSet, string, string) {
	return flagVar((*pflag.FlagSet).DurationVar, p, value)
}
