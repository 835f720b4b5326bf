package timakerplatform

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/timaker"
)

// CodeDir is where --fs is mounted in the job's containers.
const CodeDir = "/opt/ml/code"

// Submit renders the job as on Kubernetes (the same flags, job files and
// chart values), reads its one role from the rendered object and creates
// it as a timaker training job, which timaker starts. A dry run shows the
// signed request without its signature.
func (p *Platform) Submit(ctx context.Context, jr *submit.JobRequest) (*platform.Submitted, error) {
	// timaker has no field for the flags of Kubernetes only.
	if flag := jr.Flags.ChangedNotOn(submit.Timaker); flag != "" {
		return nil, exit.UsageErrorf("--%s: timaker jobs have no such setting (%s)", flag, p.Where())
	}
	if jr.DryRun == submit.DryRunServer {
		return nil, exit.UsageErrorf("--dry-run=server: timaker has no server-side dry run; --dry-run=client shows the request")
	}
	// A fraction of a GPU (--gpus 0.5) is rendered as one, to mark the
	// roles that have GPUs, and sent as the fraction.
	fraction, err := gpuFraction(jr.Flags)
	if err != nil {
		return nil, err
	}
	s, res, err := p.render(ctx, jr, fraction > 0)
	if err != nil {
		return nil, err
	}
	req, rec, err := p.createRequest(s, res.Kind, res.Object)
	if err != nil {
		return nil, err
	}
	if fraction > 0 && req.ResourceConfig.GpuNum > 0 {
		req.ResourceConfig.GpuNum = fraction
		rec.GPUs = float64(fraction) / 100 * float64(rec.Instances)
	}
	name := res.Kind.Name() + "/" + rec.Name
	if jr.DryRun != submit.DryRunNone {
		shown, err := p.shownRequest(ctx, req)
		if err != nil {
			return nil, err
		}
		sayName(jr, res)
		return &platform.Submitted{Shown: shown, Name: name}, nil
	}
	id, requestID, err := p.Client.CreateTrainingJob(ctx, req)
	if err != nil {
		return nil, err
	}
	rec.ID = id
	rec.Submitted = p.now()
	if err := p.Index.Add(rec); err != nil {
		fmt.Fprintf(p.Notes, "Warning: %s was created as %s, but %v: list will not show it; name it by its id\n", name, id, err)
	}
	sayName(jr, res)
	job := p.jobOf(rec, &timaker.TrainingJob{TrainingJobId: id, TrainingJobStatus: "JobReceived", RequestId: requestID})
	shown := map[string]any{
		"apiVersion": ObjectAPIVersion, "kind": ObjectKind, "cluster": p.Cluster.Name,
		"trainingJobId": id, "requestId": requestID, "request": toMap(req),
	}
	return &platform.Submitted{Job: job, Shown: shown, Name: name,
		Line: fmt.Sprintf("%s submitted to %s as %s", name, p.Where(), id)}, nil
}

// render renders the job as on Kubernetes, as a client dry run of a copy
// of the request (req is not changed): in namespace "default", as the
// cluster's user, without the configuration's storage (a Kubernetes
// volume: timaker mounts its own file systems, --fs), and with a fraction
// of a GPU rounded up (wholeGPUs) to mark the roles that have GPUs.
func (p *Platform) render(ctx context.Context, req *submit.JobRequest, wholeGPUs bool) (*submit.Submission, *submit.Result, error) {
	uin := p.Cluster.Uin
	s := &submit.Submission{JobRequest: *req, Namespace: "default",
		User:       func(context.Context) (string, error) { return uin, nil },
		ClientUser: func() (string, error) { return uin, nil },
	}
	s.DryRun = submit.DryRunClient
	s.Settings.Storage = ""
	if wholeGPUs {
		s.Flags.GPUs = math.Ceil(s.Flags.GPUs)
	}
	res, err := s.Run(ctx)
	return s, res, err
}

// sayName says the name generated for the job, once it is made or shown.
func sayName(req *submit.JobRequest, res *submit.Result) {
	if res.GeneratedName != "" && req.Notes != nil {
		fmt.Fprintf(req.Notes, "Job name: %s\n", res.GeneratedName)
	}
}

// gpuFraction is --gpus in hundredths when it is a fraction (0 when it is
// whole or not given).
func gpuFraction(f submit.Flags) (int32, error) {
	g := f.GPUs
	if f.Changed == nil || !f.Changed("gpus") || g == math.Trunc(g) || g < 0 || g > math.MaxInt32/100 {
		return 0, nil
	}
	hundredths := math.Round(g * 100)
	if math.Abs(g*100-hundredths) > 1e-9 {
		return 0, exit.UsageErrorf("--gpus %v: timaker counts GPUs in hundredths (e.g. 0.5 or 0.25)", g)
	}
	return int32(hundredths), nil
}

// shownRequest is the signed request of a dry run, its Authorization
// header left out.
func (p *Platform) shownRequest(ctx context.Context, req *timaker.CreateTrainingJobRequest) (map[string]any, error) {
	if req.RequestId == "" {
		req.RequestId = "(a fresh id for each request)"
	}
	httpReq, body, err := p.Client.NewRequest(ctx, timaker.ServiceTimaker, timaker.VersionTimaker, timaker.ActionCreateTrainingJob, req)
	if err != nil {
		return nil, err
	}
	headers := map[string]any{}
	for k, v := range httpReq.Header {
		if strings.EqualFold(k, "Authorization") {
			continue
		}
		headers[k] = strings.Join(v, ", ")
	}
	headers["Host"] = httpReq.Host
	var decoded any
	if err := json.Unmarshal(body, &decoded); err != nil {
		return nil, err
	}
	return map[string]any{"method": httpReq.Method, "url": httpReq.URL.String(), "headers": headers, "body": decoded}, nil
}

func toMap(v any) map[string]any {
	data, _ := json.Marshal(v)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	return out
}

// role is the replicas of one role of the rendered job and its container.
type role struct {
	name      string
	replicas  int32
	container corev1.Container
}

// createRequest maps the rendered job onto CreateTrainingJob: its roles
// must all run the same container (timaker runs InstanceCount copies of
// one), which gives the image, command, environment and resources.
func (p *Platform) createRequest(s *submit.Submission, k kinds.Kind, obj *unstructured.Unstructured) (*timaker.CreateTrainingJobRequest, Record, error) {
	roles, err := rolesOf(k, obj)
	if err != nil {
		return nil, Record{}, err
	}
	c, instances, err := oneContainer(k, roles)
	if err != nil {
		return nil, Record{}, err
	}
	command := entryPoint(c)
	env, err := envOf(c)
	if err != nil {
		return nil, Record{}, err
	}
	cpu, err := units(c, corev1.ResourceCPU, 1000, "--cpu")
	if err != nil {
		return nil, Record{}, err
	}
	memory, err := units(c, corev1.ResourceMemory, 1.0/(1<<20), "--memory")
	if err != nil {
		return nil, Record{}, err
	}
	gpu, err := units(c, corev1.ResourceName(s.Settings.GPUResource), 100, "--gpus")
	if err != nil {
		return nil, Record{}, err
	}
	req := &timaker.CreateTrainingJobRequest{
		Uin:               p.Cluster.Uin,
		TiProjectId:       p.Cluster.ProjectID,
		TrainingJobName:   obj.GetName(),
		TrainingJobSource: JobSource,
		ResourceConfig: timaker.ResourceConfig{
			Memory: memory, CpuNum: cpu, GpuNum: gpu, GpuType: s.Flags.GPUType,
			InstanceCount: instances, RDMAConfig: timaker.RDMAConfig{Enable: s.Flags.RDMA},
		},
		EnvConfig:              env,
		AlgorithmSpecification: timaker.AlgorithmSpecification{EntryPoint: command, TrainingImageName: c.Image},
		Elastic:                s.Flags.Elastic,
		RestartPolicy:          timaker.RestartPolicy{PolicyName: "AutoRestart"},
	}
	if s.Flags.FS != "" {
		fs, err := ParseFS(s.Flags.FS)
		if err != nil {
			return nil, Record{}, err
		}
		req.AlgorithmSpecification.AlgorithmSource = &timaker.AlgorithmSource{FileSystemDataSource: fs}
	}
	labels := obj.GetLabels()
	rec := Record{
		Name: obj.GetName(), Kind: k.Name(), User: p.Cluster.Uin,
		Experiment: labels[jobmodel.ExperimentLabel],
		Labels:     userLabels(labels),
		Image:      c.Image, Command: command, Instances: instances,
		GPUs: float64(gpu) / 100 * float64(instances),
	}
	return req, rec, nil
}

// oneContainer is the container every role runs and how many replicas
// they have in all; roles that differ are a usage error naming them.
func oneContainer(k kinds.Kind, roles []role) (corev1.Container, int32, error) {
	first := roles[0]
	var instances int32
	for _, r := range roles {
		if differs := containerDifference(first.container, r.container); differs != "" {
			names := make([]string, len(roles))
			for i, r := range roles {
				names[i] = r.name
			}
			return corev1.Container{}, 0, exit.UsageErrorf("the %s job's roles %s differ in %s, and timaker runs one role (copies of one container): give every role the same, or submit it to Kubernetes",
				k.Name(), strings.Join(names, " and "), differs)
		}
		instances += r.replicas
	}
	return first.container, instances, nil
}

// entryPoint is the container's command and arguments as one shell line,
// run in its working directory.
func entryPoint(c corev1.Container) string {
	command := printers.ShellJoin(append(append([]string{}, c.Command...), c.Args...))
	if c.WorkingDir != "" {
		command = "cd " + printers.ShellJoin([]string{c.WorkingDir}) + " && " + command
	}
	return command
}

// envOf is the container's environment; a reference (valueFrom) is a usage
// error: timaker takes values.
func envOf(c corev1.Container) ([]timaker.Env, error) {
	env := []timaker.Env{}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			return nil, exit.UsageErrorf("env %s: timaker takes values, not references (valueFrom)", e.Name)
		}
		env = append(env, timaker.Env{Name: e.Name, Value: e.Value})
	}
	return env, nil
}

// userLabels are the job's labels but easyai's own bookkeeping ones.
func userLabels(all map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range all {
		if !strings.HasPrefix(k, "easyai.io/") && k != jobmodel.ManagedByLabel {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// rolesOf reads the roles that have replicas from the rendered job: their
// counts from the kind, their containers from the pod templates.
func rolesOf(k kinds.Kind, obj *unstructured.Unstructured) ([]role, error) {
	replicas, err := k.Replicas(obj, nil)
	if err != nil {
		return nil, err
	}
	counts := map[string]int32{}
	for _, r := range replicas {
		counts[strings.ToLower(r.Role)]++
	}
	var out []role
	for _, rc := range jobclient.RoleContainers(obj) {
		n := counts[strings.ToLower(rc.Role)]
		if n == 0 {
			continue
		}
		var c corev1.Container
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(rc.Container, &c); err != nil {
			return nil, fmt.Errorf("reading the %s role's container: %w", rc.Role, err)
		}
		out = append(out, role{name: strings.ToLower(rc.Role), replicas: n, container: c})
	}
	if len(out) == 0 {
		return nil, exit.UsageErrorf("the %s job has no replicas to run", k.Name())
	}
	return out, nil
}

// containerDifference names what differs between two containers, as far as
// timaker would run them ("" when nothing does).
func containerDifference(a, b corev1.Container) string {
	var what []string
	if a.Image != b.Image {
		what = append(what, "image")
	}
	if !slices.Equal(append(a.Command, a.Args...), append(b.Command, b.Args...)) || a.WorkingDir != b.WorkingDir {
		what = append(what, "command")
	}
	if !reflect.DeepEqual(envMap(a.Env), envMap(b.Env)) {
		what = append(what, "environment")
	}
	if !sameResources(a.Resources, b.Resources) {
		what = append(what, "resources")
	}
	return strings.Join(what, ", ")
}

func envMap(env []corev1.EnvVar) map[string]string {
	out := map[string]string{}
	for _, e := range env {
		out[e.Name] = e.Value
	}
	return out
}

func sameResources(a, b corev1.ResourceRequirements) bool {
	eq := func(x, y corev1.ResourceList) bool {
		if len(x) != len(y) {
			return false
		}
		for _, name := range slices.Collect(maps.Keys(x)) {
			if q, ok := y[name]; !ok || q.Cmp(x[name]) != 0 {
				return false
			}
		}
		return true
	}
	return eq(a.Limits, b.Limits) && eq(a.Requests, b.Requests)
}

// units is a container's amount of r (its limit, else its request) in
// timaker's units: per of them make one of Kubernetes' (1000 per core,
// 100 per GPU, 1/2^20 MB per byte). Fractions of a unit round up.
func units(c corev1.Container, r corev1.ResourceName, per float64, flag string) (int32, error) {
	q, ok := c.Resources.Limits[r]
	if !ok {
		if q, ok = c.Resources.Requests[r]; !ok {
			return 0, nil
		}
	}
	v := math.Ceil(q.AsApproximateFloat64()*per - 1e-9)
	if v < 0 || v > math.MaxInt32 {
		return 0, exit.UsageErrorf("%s %s: out of timaker's range", flag, q.String())
	}
	return int32(v), nil
}

// ParseFS reads --fs TYPE:ENDPOINT:PATH[:ro]; ENDPOINT may hold ':' when
// it is in brackets ([fe80::1]) or has a port (nas.example.com:2049 is
// read as host and port only when PATH follows).
func ParseFS(arg string) (*timaker.FileSystemDataSource, error) {
	bad := func(why string) error {
		return exit.UsageErrorf("--fs %q: %s (want TYPE:ENDPOINT:PATH[:ro], e.g. cfs:10.0.0.4:/team/code or nfs:nas.example.com:/export/code:ro)", arg, why)
	}
	typ, rest, ok := strings.Cut(arg, ":")
	if !ok || typ == "" {
		return nil, bad("no TYPE")
	}
	readOnly := false
	if r, found := strings.CutSuffix(rest, ":ro"); found {
		rest, readOnly = r, true
	}
	i := strings.LastIndex(rest, ":")
	if i <= 0 || i == len(rest)-1 {
		return nil, bad("no ENDPOINT or PATH")
	}
	endpoint, path := rest[:i], rest[i+1:]
	if !strings.HasPrefix(path, "/") {
		return nil, bad("PATH must be absolute")
	}
	if strings.ContainsAny(arg, " \t\n") {
		return nil, bad("spaces are not allowed")
	}
	return &timaker.FileSystemDataSource{FileSystemType: typ, FileSystemEndpoint: endpoint, DirectoryPath: path, ReadOnly: readOnly}, nil
}
