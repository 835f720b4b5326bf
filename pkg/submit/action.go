package submit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/shlex"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/prompter"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// DryRun is --dry-run: None creates the job; Client renders it without
// asking the cluster anything; Server has the API server validate it
// without storing it.
type DryRun string

// The dry runs.
const (
	DryRunNone   DryRun = "none"
	DryRunClient DryRun = "client"
	DryRunServer DryRun = "server"
)

// ParseDryRun reads --dry-run.
func ParseDryRun(s string) (DryRun, error) {
	switch d := DryRun(s); d {
	case DryRunNone, DryRunClient, DryRunServer:
		return d, nil
	}
	return "", exit.UsageErrorf(`--dry-run %q: must be "client" or "server" (written --dry-run=client, with "=")`, s)
}

// Settings are the configuration's defaults a submission uses.
type Settings struct {
	Image string
	Queue string
	// QueueSystem is what a queue names ("": decided by the namespace).
	QueueSystem   string
	PriorityClass string
	GPUResource   string
	// Labels go on every job, under the user's --label.
	Labels map[string]string
	// KubeflowBackend chooses between the training-operator and Kubeflow
	// Trainer v2 where a cluster has both ("": the training-operator).
	KubeflowBackend string
	// Storage is the default --storage ("": none).
	Storage string
	// Preemptible is the low PriorityClass of --preemptible ("": none named).
	Preemptible string
}

// JobRequest is what the user asked to submit, the same value whatever
// the platform: the kind, the common flags and the kind's own, the job
// files, --set, the dry run and the configuration's defaults, and what the
// command adds (a notebook's workspaces and token). Commands build it from
// flags, job files and the settings (rerun and notebook start from a
// recorded request) and hand it to platform.Platform.Submit, which never
// changes it: each platform makes its own submission of it (Submission on
// Kubernetes; timaker renders a copy the same way and reads its one role).
type JobRequest struct {
	Kinds *kinds.Registry
	// Kind is the kind submitted; nil: the kind the first job file names.
	Kind kinds.Kind
	// Flags are the common flags; KindValues turns the kind's own flags
	// into values (nil: none, as for "submit -f").
	Flags      Flags
	KindValues kinds.KindValues
	// BackendFlags are the flags a kinds.BackendChooser reads (--backend).
	BackendFlags *pflag.FlagSet

	ChartDir string
	// JobFiles are the -f files as read (once: a pipe cannot be read twice).
	JobFiles []render.ValueFile
	Set      []string
	DryRun   DryRun

	Settings   Settings
	CLIVersion string

	// CheckSubmitter (when not nil) is told who submits, once that is
	// known and before anything is made; its error ends the submission
	// (rerun asks before it submits someone else's job as the user's).
	CheckSubmitter func(user string) error
	// ExtraObjects, when set, adds objects to create beside the job, owned
	// by it, as the devtools' are (a notebook's token Secret): values are
	// the resolved values, job the job as rendered.
	ExtraObjects func(values map[string]any, job *unstructured.Unstructured) ([]*unstructured.Unstructured, error)
	// Workspaces are more directories of the storage mounted in every
	// replica (storage.workspaces; a notebook's): Sub is relative to the
	// storage's prefix, "{user}" in it the submitting user (as data/{user}).
	// Without a storage the submission fails, saying WorkspacesFor needs one.
	Workspaces    []Workspace
	WorkspacesFor string
	// Prompter asks for a missing image or command; nil never asks.
	Prompter prompter.Prompter
	// Notes receives what the user should know and is not data: the name
	// generated, the backend chosen (stderr).
	Notes io.Writer

	// validated: Validate succeeded, Run need not read the job files again.
	validated bool
}

// Submission is one submission of a JobRequest to a Kubernetes namespace,
// as helm's install action is one install: it owns the values (flags, job
// files, --set and the settings' defaults), the choice of a kind's
// backend, the rendering and the request that creates the job. The
// Kubernetes platform makes it from the request and its clients.
type Submission struct {
	JobRequest

	Namespace string
	// User is who submits (not asked for a client dry run: ClientUser is).
	User       func(ctx context.Context) (string, error)
	ClientUser func() (string, error)
	// Served tells whether the cluster serves a resource (for a backend
	// choice); Dynamic creates the job.
	Served  func(ctx context.Context, gvr schema.GroupVersionResource) (bool, error)
	Dynamic func() (dynamic.Interface, error)
	// FindJob finds a job of any kind in the namespace (--pretrained-from).
	FindJob func(ctx context.Context, name string) (*unstructured.Unstructured, error)
	// UploadCode copies --code dir:PATH onto the storage, at subPath
	// (relative to the volume's root), before job (as rendered) is created;
	// undo removes jobDir (subPath's parent, new with this submission)
	// again when the job could not be created.
	UploadCode func(ctx context.Context, job *unstructured.Unstructured, spec storage.Spec, subPath, jobDir, local string) (undo func(context.Context) error, err error)

	// sshKey is the public key --ssh lets in, read by fillSSH.
	sshKey string
}

// Workspace is a directory of the storage at a mount path of its own.
type Workspace struct {
	Sub       string `json:"sub"`
	MountPath string `json:"mountPath"`
}

// Result is what a submission made.
type Result struct {
	// Kind is the kind the job was created as: a kind with backends
	// (ColossalAI on Volcano) may have been rendered as another.
	Kind kinds.Kind
	// Object is the job: as rendered for a client dry run, else as the API
	// server returned it.
	Object *unstructured.Unstructured
	// Attachments are the objects made beside the job and owned by it
	// (TensorBoard's Deployment and Service, the Secrets of the devtools),
	// as rendered or as created. A Secret's data is never to be printed.
	Attachments []*unstructured.Unstructured
	// GeneratedName is the name generated for the job ("": it was given);
	// the platform says it once the job is made, or rendered for a dry run.
	GeneratedName string
}

// ErrJobFileNamesNoKind is a job file without a "kind" key.
var ErrJobFileNamesNoKind = errors.New("the job file names no kind")

// KindOfJobFile reads the kind a job file names; an error wrapping
// ErrJobFileNamesNoKind when it names none.
func KindOfJobFile(reg *kinds.Registry, file render.ValueFile) (kinds.Kind, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := yaml.Unmarshal(file.Data, &head); err != nil {
		return nil, exit.UsageErrorf("-f %s: %v", file.Name, err)
	}
	if head.Kind == "" {
		return nil, exit.UsageErrorf("-f %s: %w (add e.g. \"kind: tf\"), or use easyai submit KIND -f", file.Name, ErrJobFileNamesNoKind)
	}
	k, ok := reg.LookupSubmittable(head.Kind)
	if !ok {
		return nil, exit.UsageErrorf("-f %s: unknown kind %q (known: %s)", file.Name, head.Kind, strings.Join(reg.SubmittableNames(), ", "))
	}
	return k, nil
}

// Validate checks the request without the cluster: the kind (from the
// first job file when none is given) and that no job file names another.
func (s *JobRequest) Validate() error {
	if s.Kind == nil {
		if len(s.JobFiles) == 0 {
			return exit.UsageErrorf("name the kind (%s) or give a job file with -f", strings.Join(s.Kinds.SubmittableNames(), ", "))
		}
		k, err := KindOfJobFile(s.Kinds, s.JobFiles[0])
		if err != nil {
			return err
		}
		s.Kind = k
	}
	for _, file := range s.JobFiles {
		named, err := KindOfJobFile(s.Kinds, file)
		if errors.Is(err, ErrJobFileNamesNoKind) {
			continue
		}
		if err != nil {
			return err
		}
		if named.Name() != s.Kind.Name() {
			return exit.UsageErrorf("-f %s is a %s job file, not %s", file.Name, named.Name(), s.Kind.Name())
		}
	}
	s.validated = true
	return nil
}

// Run renders the job and creates it (or, for a dry run, only renders it,
// or has the API server validate it); it validates the submission first
// unless Validate already did. A name it generated is said (on Notes) once
// the job is made, or would be.
func (s *Submission) Run(ctx context.Context) (*Result, error) {
	req, err := s.request(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.fill(ctx, req); err != nil {
		return nil, err
	}
	obj, err := Build(req)
	if err != nil {
		return nil, err
	}
	attachments, err := s.attachments(req, obj)
	if err != nil {
		return nil, err
	}
	// A job rendered as another kind is created and read back as that kind.
	created := s.Kind
	if k, ok := s.Kinds.ForGVK(req.Kind.GroupVersionKind()); ok {
		created = k
	}
	res := &Result{Kind: created, Object: obj, Attachments: attachments}
	if s.DryRun != DryRunClient {
		if res, err = s.create(ctx, res); err != nil {
			return nil, err
		}
	}
	res.GeneratedName = req.generatedName
	return res, nil
}

// request is the submission's request, rendered as the kind (or the
// backend chosen for it): the values of the flags over the job files and
// the settings' defaults, the labels and annotations, the chart loaded, as
// the user who submits.
func (s *Submission) request(ctx context.Context) (*Request, error) {
	if !s.validated {
		if err := s.Validate(); err != nil {
			return nil, err
		}
	}
	values, err := s.flagValues()
	if err != nil {
		return nil, err
	}
	labels, annotations, err := s.metadata()
	if err != nil {
		return nil, err
	}
	renderAs, err := s.backend(ctx)
	if err != nil {
		return nil, err
	}
	req := &Request{
		Kind: renderAs, Namespace: s.Namespace, ChartDir: s.ChartDir, ValueFiles: s.JobFiles, Values: values, Set: s.Set,
		Experiment: s.Flags.Experiment, Labels: labels, Annotations: annotations, CLIVersion: s.CLIVersion,
	}
	if err := req.loadChart(); err != nil {
		return nil, err
	}
	if err := s.fillDefaults(req); err != nil {
		return nil, err
	}
	if err := s.fillUser(ctx, req); err != nil {
		return nil, err
	}
	return req, nil
}

// metadata are the user's --label and --annotation, the settings' labels
// under them.
func (s *Submission) metadata() (labels, annotations map[string]string, err error) {
	labels, annotations, err = s.Flags.Metadata()
	if err != nil {
		return nil, nil, err
	}
	for k, v := range s.Settings.Labels {
		if _, ok := labels[k]; !ok {
			labels[k] = v
		}
	}
	return labels, annotations, nil
}

// fillUser sets who submits (for a client dry run, which makes no call,
// the kubeconfig's user) and lets CheckSubmitter refuse them.
func (s *Submission) fillUser(ctx context.Context, req *Request) error {
	if s.DryRun == DryRunClient {
		if s.ClientUser != nil {
			req.User, _ = s.ClientUser()
		}
	} else {
		user, err := s.User(ctx)
		if err != nil {
			return err
		}
		req.User = user
	}
	if s.CheckSubmitter != nil {
		return s.CheckSubmitter(req.User)
	}
	return nil
}

// fill completes the request once its name and user are known (the
// storage, the code's working directory, the devtools, --oversell) and
// checks, online, what the job names on the cluster: its queue,
// PriorityClass and claims.
func (s *Submission) fill(ctx context.Context, req *Request) error {
	resolved, err := req.Resolved()
	if err != nil {
		return err
	}
	if err := s.fillStorage(ctx, req, resolved); err != nil {
		return err
	}
	fillCode(req, resolved)
	if err := s.fillDevtools(ctx, req); err != nil {
		return err
	}
	if err := s.fillOversell(req); err != nil {
		return err
	}
	if err := s.place(ctx, req, resolved); err != nil {
		return err
	}
	return s.checkDataClaims(ctx, resolved)
}

// create creates the job of res, its code uploaded first (not for a server
// dry run), and its attachments; it returns them as the API server did.
// When the job cannot be created, the code uploaded is removed again.
func (s *Submission) create(ctx context.Context, res *Result) (*Result, error) {
	client, err := s.Dynamic()
	if err != nil {
		return nil, err
	}
	var undo func(context.Context) error
	if s.DryRun == DryRunNone {
		if undo, err = s.uploadCode(ctx, res.Object); err != nil {
			return nil, err
		}
	}
	obj, err := Create(ctx, client, res.Kind, res.Object, s.DryRun == DryRunServer)
	if err != nil {
		if undo != nil {
			if uerr := undo(ctx); uerr != nil && s.Notes != nil {
				fmt.Fprintf(s.Notes, "warning: the uploaded code was not removed: %v\n", uerr)
			}
		}
		return nil, err
	}
	attachments, err := s.createAttachments(ctx, client, res.Kind, obj, res.Attachments)
	if err != nil {
		return nil, err
	}
	return &Result{Kind: res.Kind, Object: obj, Attachments: attachments}, nil
}

// flagValues are the values of the flags the user set, the kind's own
// merged over the common ones, and the GPU resource of the settings.
func (s *Submission) flagValues() (map[string]any, error) {
	values, err := s.Flags.Values()
	if err != nil {
		return nil, err
	}
	if s.KindValues != nil {
		kindValues, err := s.KindValues(kinds.SubmitCommon{Workers: s.Flags.Workers, Changed: s.Flags.Changed})
		if err != nil {
			return nil, err
		}
		values = render.MergeMaps(values, kindValues)
	}
	values["gpuResource"] = s.Settings.GPUResource
	return values, nil
}

// backend is the kind to render the job as: the kind itself, or what a
// kinds.BackendChooser picks for this cluster.
func (s *Submission) backend(ctx context.Context) (kinds.Kind, error) {
	chooser, ok := s.Kind.(kinds.BackendChooser)
	if !ok {
		return s.Kind, nil
	}
	probe := kinds.BackendProbe{Offline: s.DryRun == DryRunClient, Namespace: s.Namespace, KubeflowBackend: s.Settings.KubeflowBackend}
	if !probe.Offline {
		probe.Served = s.Served
		probe.Get = s.get
	}
	flags := s.BackendFlags
	if flags == nil {
		flags = pflag.NewFlagSet("submit", pflag.ContinueOnError)
	}
	k, note, err := chooser.SubmitBackend(ctx, flags, probe)
	if note != "" && s.Notes != nil {
		fmt.Fprintln(s.Notes, note)
	}
	return k, err
}

// get reads one object for a backend choice.
func (s *Submission) get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	client, err := s.Dynamic()
	if err != nil {
		return nil, err
	}
	if namespace == "" {
		return client.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
	}
	return client.Resource(gvr).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
}

// fillDefaults completes the values: a generated name, the queue and
// priority of the settings, and the image and command from the settings or,
// on a terminal, from the user. It also refuses a "kind" value naming
// another kind than the one submitted.
func (s *Submission) fillDefaults(req *Request) error {
	resolved, err := req.Resolved()
	if err != nil {
		return err
	}
	if named, ok := resolved["kind"].(string); ok && named != "" {
		if k, known := s.Kinds.LookupSubmittable(named); !known || k.Name() != s.Kind.Name() {
			return exit.UsageErrorf("%s %q: this is a %s job (known kinds: %s)", req.Source("kind"), named, s.Kind.Name(), strings.Join(s.Kinds.SubmittableNames(), ", "))
		}
	}
	if name, _ := resolved["name"].(string); name == "" {
		req.generatedName = GenerateName(s.Kind.Name())
		req.Values["name"] = req.generatedName
	}
	if rp, _ := resolved["runPolicy"].(map[string]any); s.Settings.Queue != "" && (rp == nil || rp["queue"] == nil || rp["queue"] == "") {
		req.Values = render.MergeMaps(req.Values, map[string]any{"runPolicy": map[string]any{"queue": s.Settings.Queue}})
	}
	if err := s.fillPriority(req, resolved); err != nil {
		return err
	}
	if missing(resolved, "image") {
		if err := s.fillImage(req); err != nil {
			return err
		}
	}
	if missing(resolved, "command") {
		return s.fillCommand(req)
	}
	return nil
}

// fillPriority gives the job the low PriorityClass of --preemptible, or
// else, when the values name none, the settings' (a kind that takes one).
func (s *Submission) fillPriority(req *Request, resolved map[string]any) error {
	_, noPriority := req.Kind.(kinds.NoPriorityClass)
	if s.Flags.Preemptible {
		if err := s.preemptible(noPriority); err != nil {
			return err
		}
		req.Values["priorityClassName"] = s.Settings.Preemptible
	} else if p, _ := resolved["priorityClassName"].(string); p == "" && s.Settings.PriorityClass != "" && !noPriority {
		if err := CheckObjectName("PriorityClass")("the configuration's priority-class", s.Settings.PriorityClass); err != nil {
			return err
		}
		req.Values["priorityClassName"] = s.Settings.PriorityClass
	}
	return nil
}

// fillImage gives the job the settings' image or, on a terminal, the one
// the user types.
func (s *Submission) fillImage(req *Request) error {
	image := s.Settings.Image
	if image == "" && s.Prompter != nil {
		var err error
		if image, err = s.Prompter.Input("Image", "the container image every replica runs", ""); err != nil {
			return err
		}
	}
	if image == "" {
		return exit.UsageErrorf("--image is required (or set a default: easyai config set image IMAGE)")
	}
	if err := CheckImage("image", image); err != nil {
		return err
	}
	req.Values["image"] = image
	return nil
}

// fillCommand gives the job the command the user types on a terminal,
// split as a shell would.
func (s *Submission) fillCommand(req *Request) error {
	if s.Prompter == nil {
		return exit.UsageErrorf(`the command is required: put it after "--" (easyai submit %s [flags] -- python train.py)`, s.Kind.Name())
	}
	line, err := s.Prompter.Input("Command", "what every replica runs, e.g. python train.py --epochs 10", "")
	if err != nil {
		return err
	}
	argv, err := shlex.Split(line)
	if err != nil || len(argv) == 0 {
		return exit.UsageErrorf("command %q: %v", line, err)
	}
	req.Values["command"] = toAny(argv)
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
		if n, _ := number(role["replicas"]); n == 0 {
			continue
		}
		running++
		if empty(role[key]) {
			return true
		}
	}
	return running == 0
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

// preemptible checks that --preemptible can be given: the kind takes a
// PriorityClass and the configuration names the low one.
func (s *Submission) preemptible(noPriority bool) error {
	if noPriority {
		return exit.UsageErrorf("--preemptible: %s jobs take no PriorityClass", s.Kind.Name())
	}
	if s.Settings.Preemptible == "" {
		return exit.WithHint(exit.UsageErrorf("--preemptible: the configuration names no low PriorityClass (preemptible-priority-class)"),
			"easyai config set preemptible-priority-class NAME, NAME being the low PriorityClass of your cluster (your cluster admin knows it)")
	}
	return CheckObjectName("PriorityClass")("the configuration's preemptible-priority-class", s.Settings.Preemptible)
}
