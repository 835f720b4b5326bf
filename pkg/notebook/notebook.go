// Package notebook makes a notebook: a one-replica training job, labelled
// as a notebook, that runs Jupyter Lab with the user's and the team's
// workspaces of the storage mounted, cpu and memory requested below their
// limits, shut down by Jupyter when idle and by Kubernetes at a deadline
// (docs/notebooks.md). The commands are in pkg/cmd/notebook.
package notebook

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// Label marks a job as a notebook ("true").
const Label = "easyai.io/notebook"

// KindName is the kind a notebook is: a PyTorchJob of one master, which
// the training-operator suspends and resumes (stop and start).
const KindName = "pytorch"

// Task is the notebook's one replica.
const Task = "master-0"

// Endpoint is the name "easyai open" knows Jupyter by.
const Endpoint = "jupyter"

// DefaultImage runs Jupyter Lab when neither --image nor the configuration's
// notebook-image names one.
const DefaultImage = "quay.io/jupyter/base-notebook:python-3.12"

// The defaults of create's flags.
const (
	DefaultCPU         = "2"
	DefaultMemory      = "8Gi"
	DefaultOvercommit  = 4
	DefaultIdleTimeout = 8 * time.Hour
	DefaultMaxDuration = 7 * 24 * time.Hour
)

// Root is Jupyter's root directory: the workspaces are below it.
const Root = "/notebooks"

// Workspaces are the directories of the storage a notebook mounts: the
// user's own and the team's public one (seed 001's notebook/{user} and
// notebook/public).
var Workspaces = []submit.Workspace{
	{Sub: "notebook/{user}", MountPath: Root + "/home"},
	{Sub: "notebook/public", MountPath: Root + "/public"},
}

// Spec is what create is asked for.
type Spec struct {
	Name   string
	Image  string
	GPUs   int
	CPU    string
	Memory string
	// Overcommit: cpu and memory are requested at limit/Overcommit (≥ 1;
	// GPUs never).
	Overcommit  int
	IdleTimeout time.Duration
	MaxDuration time.Duration
	// Storage is --storage ("": the configuration's).
	Storage       string
	NodeSelectors []string
	Tolerations   []string
	PullSecrets   []string
}

// Check fails on what cannot make a notebook, naming the flag.
func (s Spec) Check() error {
	if s.Name == "" {
		return exit.UsageErrorf("name the notebook: easyai notebook create NAME")
	}
	if err := submit.CheckName("notebook", s.Name); err != nil {
		return err
	}
	if s.GPUs < 0 {
		return exit.UsageErrorf("--gpus %d: must be 0 or more", s.GPUs)
	}
	if s.Overcommit < 1 {
		return exit.UsageErrorf("--overcommit %d: must be 1 or more (1: cpu and memory requested as much as their limits)", s.Overcommit)
	}
	if s.IdleTimeout < 0 {
		return exit.UsageErrorf("--idle-timeout %s: must be 0 (never) or more", s.IdleTimeout)
	}
	if s.IdleTimeout > 0 && s.IdleTimeout < time.Minute {
		return exit.UsageErrorf("--idle-timeout %s: must be at least 1m (or 0: never)", s.IdleTimeout)
	}
	if s.MaxDuration < 0 {
		return exit.UsageErrorf("--max-duration %s: must be 0 (none) or more", s.MaxDuration)
	}
	for flag, q := range map[string]string{"cpu": s.CPU, "memory": s.Memory} {
		v, err := resource.ParseQuantity(q)
		if err != nil || v.Sign() <= 0 {
			return exit.UsageErrorf("--%s %q: not a positive quantity (e.g. %s)", flag, q, map[string]string{"cpu": "2 or 500m", "memory": "8Gi"}[flag])
		}
	}
	return nil
}

// Command is Jupyter Lab's command line: listening on every address of the
// pod at port submit.JupyterPort, its token from JUPYTER_TOKEN, rooted at
// Root; with an idle timeout, Jupyter culls idle kernels and terminals and
// then shuts itself down (exit 0: the job succeeds and frees its GPUs).
func Command(idle time.Duration) []string {
	cmd := []string{"jupyter", "lab", "--ip=0.0.0.0", "--port=" + strconv.Itoa(submit.JupyterPort), "--no-browser", "--allow-root",
		"--ServerApp.root_dir=" + Root}
	if idle > 0 {
		s := strconv.FormatInt(int64(math.Ceil(idle.Seconds())), 10)
		cmd = append(cmd,
			"--ServerApp.shutdown_no_activity_timeout="+s,
			"--MappingKernelManager.cull_idle_timeout="+s,
			"--MappingKernelManager.cull_interval=60",
			"--TerminalManager.cull_inactive_timeout="+s,
			"--TerminalManager.cull_interval=60")
	}
	return cmd
}

// Requests are cpu and memory requested for limits cpu and memory, over
// overcommit: a notebook is idle most of the time (never for GPUs).
func Requests(cpu, memory string, overcommit int) (string, string, error) {
	var out [2]string
	for i, q := range []string{cpu, memory} {
		v, err := resource.ParseQuantity(q)
		if err != nil {
			return "", "", err
		}
		if i == 0 {
			milli := v.MilliValue() / int64(overcommit)
			if milli < 1 {
				milli = 1
			}
			out[i] = resource.NewMilliQuantity(milli, resource.DecimalSI).String()
			continue
		}
		b := v.Value() / int64(overcommit)
		if b < 1 {
			b = 1
		}
		out[i] = resource.NewQuantity(b, resource.BinarySI).String()
	}
	return out[0], out[1], nil
}

// Marks are the label and annotation (--label, --annotation) that make the
// job named name a notebook that "easyai open" knows: easyai.io/notebook and
// the endpoints annotation naming Jupyter and its token's Secret. A job's
// recorded request does not hold them: start gives them again.
func Marks(name string) (labels, annotations []string, err error) {
	endpoints, err := json.Marshal(map[string]jobmodel.Endpoint{Endpoint: {
		Task: Task, Port: submit.JupyterPort, Path: "/lab", TokenSecret: SecretName(name), Login: jobmodel.LoginToken,
	}})
	if err != nil {
		return nil, nil, err
	}
	return []string{Label + "=true"}, []string{jobmodel.EndpointsAnnotation + "=" + string(endpoints)}, nil
}

// SecretName is the Secret of a notebook's token.
func SecretName(name string) string { return name + "-jupyter" }

// JobRequest is the request that creates the notebook spec asks for,
// of kind k (KindName's), with settings and the rest of the submission's
// fields left to the caller (cmdutil.CompleteSubmission).
func (s Spec) JobRequest(reg *kinds.Registry, k kinds.Kind) (*submit.JobRequest, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	cpuReq, memReq, err := Requests(s.CPU, s.Memory, s.Overcommit)
	if err != nil {
		return nil, err
	}
	labels, annotations, err := Marks(s.Name)
	if err != nil {
		return nil, err
	}
	values := map[string]any{
		"env": []any{map[string]any{"name": "JUPYTER_TOKEN", "valueFrom": map[string]any{
			"secretKeyRef": map[string]any{"name": SecretName(s.Name), "key": jobmodel.TokenSecretKey},
		}}},
		"resources":  map[string]any{"requests": map[string]any{"cpu": cpuReq, "memory": memReq}},
		"workingDir": Root,
		// Pods go when the notebook ends (idle, deadline): their GPUs with them.
		"runPolicy": map[string]any{"cleanPodPolicy": "All"},
	}
	file, err := yaml.Marshal(values)
	if err != nil {
		return nil, err
	}
	sub := &submit.JobRequest{
		Kinds: reg, Kind: k,
		JobFiles: []render.ValueFile{{Name: "(the notebook's values)", Data: file}},
		Flags: submit.Flags{
			Name: s.Name, Image: s.Image, Workers: 1, GPUs: float64(s.GPUs), CPU: s.CPU, Memory: s.Memory,
			Command:          Command(s.IdleTimeout),
			Storage:          s.Storage,
			MaxDuration:      s.MaxDuration,
			Labels:           labels,
			Annotations:      annotations,
			NodeSelectors:    s.NodeSelectors,
			Tolerations:      s.Tolerations,
			ImagePullSecrets: s.PullSecrets,
			ImagePullPolicy:  "IfNotPresent",
		},
		Workspaces:    Workspaces,
		WorkspacesFor: "a notebook",
		ExtraObjects:  TokenSecret,
	}
	set := map[string]bool{"name": true, "image": s.Image != "", "workers": true, "gpus": s.GPUs > 0, "cpu": true, "memory": true,
		"command": true, "storage": s.Storage != "", "max-duration": s.MaxDuration > 0, "label": true, "annotation": true,
		"node-selector": len(s.NodeSelectors) > 0, "toleration": len(s.Tolerations) > 0, "image-pull-secret": len(s.PullSecrets) > 0,
		"image-pull-policy": true}
	sub.Flags.Changed = func(flag string) bool { return set[flag] }
	return sub, nil
}

// TokenSecret is the Secret of the notebook's token, new at each creation.
func TokenSecret(values map[string]any, job *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	token, err := submit.NewToken()
	if err != nil {
		return nil, err
	}
	return []*unstructured.Unstructured{submit.TokenSecret(SecretName(job.GetName()), job, map[string]string{jobmodel.TokenSecretKey: token})}, nil
}

// Is reports whether a job's labels make it a notebook.
func Is(labels map[string]string) bool { return labels[Label] == "true" }

// NotANotebook is the error of a job that is not a notebook.
func NotANotebook(name string) error {
	return exit.UsageErrorf("%s is not a notebook (easyai notebook list lists them; easyai get shows any job)", name)
}

// Describe is a notebook's state as the notebook commands say it: Running,
// Pending, Stopped (suspended), Ended (idle, deadline or failure), ...
func Describe(state jobmodel.State) string {
	switch state {
	case jobmodel.Suspended:
		return "Stopped"
	case jobmodel.Succeeded:
		return "Ended"
	}
	return string(state)
}
