// Package colossalai is the ColossalAI kind: T9k's ColossalAIJob
// (batch.tensorstack.dev/v1beta1), one launcher that runs "colossalai run"
// and workers that run sshd for it, or, on a cluster without T9k, the same
// job as a Volcano Job (the Volcano backend).
//
// T9k's controller is not public. What this kind reads of it is its API
// reference: the spec, status.phase, conditions, tasks and aggregate, and
// how T9k names and labels a job's pods: JOB-launcher and JOB-worker-N, with
// the label tensorstack.dev/owner-name=JOB (what T9k's documentation selects
// a job's pods by).
package colossalai

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/charts"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/volcano"
)

// OwnerLabel is the label T9k puts on the pods of a job, its value the job's
// name.
const OwnerLabel = "tensorstack.dev/owner-name"

// The backends of --backend.
const (
	BackendAuto    = "auto"
	BackendT9k     = "t9k"
	BackendVolcano = "volcano"
)

// Kind is the ColossalAI kind; use New.
type Kind struct{}

// New returns the kind.
func New() Kind { return Kind{} }

func (Kind) Name() string      { return "colossalai" }
func (Kind) Aliases() []string { return []string{"colossalaijob", "colossal"} }
func (Kind) Chart() fs.FS      { return charts.Get("colossalai") }
func (Kind) Operator() string  { return "T9k (its ColossalAIJob controller)" }

// GroupVersionKind of ColossalAIJobs.
func (Kind) GroupVersionKind() schema.GroupVersionKind { return GroupVersion.WithKind(KindName) }

// Resource of ColossalAIJobs.
func (Kind) Resource() schema.GroupVersionResource { return GroupVersion.WithResource(Plural) }

// PodSelector selects the pods T9k made for the job.
func (Kind) PodSelector(jobName string) string { return OwnerLabel + "=" + jobName }

// Decode strictly decodes a rendered ColossalAIJob, and checks what T9k's
// API reference requires beyond types: a worker container named "worker".
func (Kind) Decode(obj *unstructured.Unstructured) (runtime.Object, error) {
	into := &Job{}
	if _, err := kinds.StrictDecode(obj, into); err != nil {
		return nil, err
	}
	if _, hasSpec := obj.Object["spec"]; hasSpec {
		found := false
		for _, c := range into.Spec.Worker.Template.Spec.Containers {
			found = found || c.Name == "worker"
		}
		if !found {
			return nil, fmt.Errorf("%s %s: spec.worker.template.spec.containers: T9k needs a container named \"worker\"", obj.GetKind(), obj.GetName())
		}
	}
	return into, nil
}

// SubmitLong implements kinds.SubmitDoc.
func (Kind) SubmitLong() string {
	return `Submit a ColossalAI job: one launcher pod that runs "colossalai run" and
--workers worker pods (--gpus each) that run sshd, on which "colossalai run"
starts the training over ssh, --nproc-per-node processes per worker
(torchrun). The command after "--" is the training script and its
arguments, not a shell command: -- train.py --epochs 10.

--backend says what serves the job:
  t9k      T9k's ColossalAIJob (batch.tensorstack.dev/v1beta1), rendered
           per T9k's API reference; "easyai get" reads back its phase,
           conditions, tasks and aggregate. --debug sets runMode.debug
           (every replica sleeps: exec into them; docs/debug.md); suspend
           and resume set runMode.pause.
  volcano  a Volcano Job (batch.volcano.sh/v1alpha1), for clusters without
           T9k: tasks launcher and worker, gang-scheduled, with Volcano's svc
           and ssh plugins. The workers run sshd (--sshd-path) with the
           plugin's keys; the launcher waits until every worker's sshd
           answers, then runs colossalai run --nproc_per_node N
           --hostfile /etc/volcano/worker.host COMMAND. When the launcher
           completes, a policy completes the job and Volcano deletes the
           workers (cleanUpWorkers); a pod failing fails the job (ColossalAI
           cannot take a restarted pod back). The job is then a Volcano Job,
           labelled easyai.io/kind=colossalai: see it as volcano/NAME.
           --debug: the launcher prints the colossalai run command instead
           of running it, and sleeps.
--debug is ColossalAI's own debug mode on either backend: every replica
waits (--debug-task does not apply) until --debug-timeout, and "easyai run"
does not apply: start the training with "easyai exec".
  auto     (default) t9k when the cluster serves ColossalAIJobs, else
           volcano. A client dry run asks no cluster: auto is volcano there.

T9k's launcher exits 0 even when the training failed: a Succeeded
ColossalAIJob may not have trained; its launcher's log says (easyai logs
colossalai/NAME --task launcher-0). easyai names T9k's pods JOB-launcher
(replica launcher-0) and JOB-worker-N (worker-N), as T9k does, and finds
them by T9k's label tensorstack.dev/owner-name=JOB.`
}

// SubmitExample implements kinds.SubmitDoc.
func (Kind) SubmitExample() string {
	return `  # 2 workers with 4 GPUs and 4 training processes each
  easyai submit colossalai --workers 2 --gpus 4 --nproc-per-node 4 --image hpcaitech/colossalai:0.3.0 -- train.py --config config.py
  # on T9k, in debug mode: the replicas wait for you (easyai exec)
  easyai submit colossalai --backend t9k --debug --workers 2 --image hpcaitech/colossalai:0.3.0 -- train.py
  # without T9k; sshd lives elsewhere in this image, the launcher is small
  easyai submit colossalai --backend volcano --sshd-path /usr/bin/sshd --launcher-cpu 1 --launcher-memory 2Gi --image my/colossalai:1 -- train.py`
}

var torchArg = regexp.MustCompile(`^--?[A-Za-z0-9_][-A-Za-z0-9_.=:/]*$`)

// submitFlags are a ColossalAI job's own submit flags.
type submitFlags struct {
	backend, sshdPath string
	nproc             int
	torchArgs         []string
	cleanUp           bool
	launcher          *kinds.RoleFlags
}

// SubmitFlags adds ColossalAI's own flags.
func (Kind) SubmitFlags(fs *pflag.FlagSet) kinds.KindValues {
	f := &submitFlags{}
	kinds.DescribeWorkers(fs, "number of worker pods running sshd, on which colossalai run starts the training (the launcher is one more pod)")
	fs.StringVar(&f.backend, "backend", BackendAuto, "what serves the job: t9k (ColossalAIJob), volcano (a Volcano Job) or auto (t9k when the cluster serves ColossalAIJobs)")
	fs.IntVar(&f.nproc, "nproc-per-node", 1, "training processes per worker (colossalai run --nproc_per_node; T9k procPerWorker)")
	fs.StringArrayVar(&f.torchArgs, "torch-args", nil, "a torchrun option, e.g. --max_restarts=0 (repeatable; T9k torchArgs, Volcano --extra_launch_args)")
	fs.StringVar(&f.sshdPath, "sshd-path", "/usr/sbin/sshd", "absolute path of sshd in the worker image")
	fs.BoolVar(&f.cleanUp, "clean-up-workers", true, "delete the workers when the launcher ends (T9k; Volcano always does)")
	f.launcher = kinds.AddRoleFlags(fs, "launcher", "the launcher", "the launcher")
	return f.values
}

// values turns the flags the user set into the chart's values.
func (f *submitFlags) values(common kinds.SubmitCommon) (map[string]any, error) {
	if _, err := parseBackend(f.backend); err != nil {
		return nil, err
	}
	for _, flag := range []string{"retry", "max-duration", "clean-pod-policy"} {
		if common.Changed(flag) {
			return nil, exit.UsageErrorf("--%s: a ColossalAI job is never restarted nor timed out, and --clean-up-workers says what is deleted", flag)
		}
	}
	values := map[string]any{}
	roles := kinds.Roles{}
	if err := roles.SetWorkers("worker", common, "a ColossalAI job needs at least 1 worker"); err != nil {
		return nil, err
	}
	if common.Changed("nproc-per-node") {
		if err := kinds.CheckCount("--nproc-per-node", f.nproc, 1); err != nil {
			return nil, err
		}
		values["nprocPerNode"] = f.nproc
	}
	if err := f.addLaunchValues(common, values); err != nil {
		return nil, err
	}
	launcher, err := f.launcher.Values()
	if err != nil {
		return nil, err
	}
	roles.Merge("launcher", launcher)
	roles.AddTo(values)
	return values, nil
}

// addLaunchValues adds to values how the launcher starts the training on
// the workers: --torch-args, --sshd-path and --clean-up-workers.
func (f *submitFlags) addLaunchValues(common kinds.SubmitCommon, values map[string]any) error {
	if len(f.torchArgs) > 0 {
		list := make([]any, len(f.torchArgs))
		for i, a := range f.torchArgs {
			if !torchArg.MatchString(a) {
				return exit.UsageErrorf("--torch-args %q: want a torchrun option like --max_restarts=0 (letters, digits and _-.=:/ only)", a)
			}
			list[i] = a
		}
		values["torchArgs"] = list
	}
	if common.Changed("sshd-path") {
		if !strings.HasPrefix(f.sshdPath, "/") || !absPath.MatchString(f.sshdPath) {
			return exit.UsageErrorf("--sshd-path %q: must be an absolute path (sshd is started by its path)", f.sshdPath)
		}
		values["sshdPath"] = f.sshdPath
	}
	if common.Changed("clean-up-workers") {
		values["cleanUpWorkers"] = f.cleanUp
	}
	return nil
}

var absPath = regexp.MustCompile(`^/[-A-Za-z0-9_./]*$`)

func parseBackend(s string) (string, error) {
	switch s {
	case BackendAuto, BackendT9k, BackendVolcano:
		return s, nil
	}
	return "", exit.UsageErrorf("--backend %q: must be t9k, volcano or auto", s)
}

// SubmitBackend implements kinds.BackendChooser: --backend, or for auto,
// whether the cluster serves ColossalAIJobs.
func (k Kind) SubmitBackend(ctx context.Context, flags *pflag.FlagSet, probe kinds.BackendProbe) (kinds.Kind, string, error) {
	backend := BackendAuto
	if f := flags.Lookup("backend"); f != nil {
		b, err := parseBackend(f.Value.String())
		if err != nil {
			return nil, "", err
		}
		backend = b
	}
	note := ""
	if backend == BackendAuto {
		switch {
		case probe.Offline:
			backend = BackendVolcano
			note = "Backend: volcano (a client dry run asks no cluster whether it serves ColossalAIJobs; for T9k's: easyai submit colossalai --backend t9k)"
		default:
			served, err := probe.Served(ctx, k.Resource())
			if err != nil {
				return nil, "", err
			}
			backend = BackendVolcano
			note = "Backend: volcano (this cluster serves no ColossalAIJobs of T9k): the job is a Volcano Job"
			if served {
				backend = BackendT9k
				note = "Backend: t9k (this cluster serves ColossalAIJobs)"
			}
		}
	}
	if backend == BackendT9k {
		return k, note, nil
	}
	if f := flags.Lookup("clean-up-workers"); f != nil && f.Changed && f.Value.String() == "false" {
		return nil, "", exit.UsageErrorf("--clean-up-workers=false: on the Volcano backend the workers always end with the launcher (a policy completes the job then)")
	}
	return OnVolcano{}, note, nil
}

// OnVolcano is a ColossalAI job rendered as a Volcano Job (the chart
// colossalai-volcano): easyai creates and reads it as the volcano kind; its
// name here labels the job easyai.io/kind=colossalai.
type OnVolcano struct{ volcano.Kind }

func (OnVolcano) Name() string { return "colossalai" }
func (OnVolcano) Chart() fs.FS { return charts.Get("colossalai-volcano") }
