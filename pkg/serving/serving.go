// Package serving is "easyai serve": a model server on a Deployment and a
// Service in the team's namespace. The Deployment is rendered by the
// serving chart, whose pod template is a job replica's (easyai-lib), so
// that what a job's pod takes (resources, env, node selector, pull
// secrets, --data) a serving's takes the same way; the Service is made
// here. Everything easyai reads back lives in their labels and
// annotations: there is no other state.
package serving

import (
	"fmt"
	"io/fs"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/charts"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/render"
)

// Labels and annotations of a serving's objects.
const (
	// Label is the serving's name, on its Deployment, Service and pods.
	Label = "easyai.io/serving"
	// VersionLabel is the version of the serving a Deployment and its pods
	// run (v1 first).
	VersionLabel = "easyai.io/serving-version"
	// FrameworkAnnotation is --framework.
	FrameworkAnnotation = "easyai.io/framework"
	// ModelFromAnnotation is the job whose model_dir is served.
	ModelFromAnnotation = "easyai.io/model-from"
	// ModelAnnotation is where the model is, for people (pvc:CLAIM:/PATH).
	ModelAnnotation = "easyai.io/model"
	// PortAnnotation is the port the server listens on.
	PortAnnotation = "easyai.io/port"
)

// ChartName is the embedded chart that renders a serving's Deployment.
const ChartName = "serving"

// FirstVersion is the version create makes.
const FirstVersion = "v1"

// DeploymentName is the name of the Deployment of one version of a
// serving: NAME-VERSION (bert-v1).
func DeploymentName(name, version string) string { return name + "-" + version }

// The longest serving names: room for "-v999" in a Deployment's name, and
// for "-v999-predictor" in the Deployment KServe makes.
const (
	MaxName       = 63 - len("-v999")
	MaxKServeName = 63 - len("-v999-predictor")
)

// KServeHostFits says why KServe could not make a serving name of
// namespace (nil: it can). KServe in RawDeployment mode names each
// predictor's host by its domain template, NAME-vN-predictor-NAMESPACE
// by default, and makes nothing while that is not a DNS label of at most 63
// characters; it says so in its controller's log only, which a team member
// does not read. Room is kept for versions up to v99.
func KServeHostFits(name, namespace string) error {
	host := name + "-v99-predictor-" + namespace
	if len(host) <= 63 {
		return nil
	}
	what := fmt.Sprintf("choose a serving name of at most %d characters in namespace %s", 63-len(host)+len(name), namespace)
	if 63-len(host)+len(name) < 1 {
		what = "the namespace's name leaves no room for one: use --backend deployment"
	}
	return fmt.Errorf("KServe names the serving's host NAME-vN-predictor-NAMESPACE (by its default domain template), a DNS label of at most 63 characters: %q is %d; %s",
		host, len(host), what)
}

// Container is the name of the server's container.
const Container = "server"

// Spec is one serving as the user asked for it.
type Spec struct {
	Name      string
	Namespace string
	Framework Framework
	Image     string
	// Command replaces the framework's (custom has none).
	Command []string
	// Port and ReadyPath replace the framework's when set.
	Port      int32
	ReadyPath string
	Replicas  int32
	GPUs      int64
	CPU       string
	Memory    string
	// Env is NAME=VALUE.
	Env          []string
	NodeSelector map[string]string
	// Tolerations and Data are the chart's values of --toleration and
	// --data (as submit reads them); ShmSize is --shm-size.
	Tolerations []map[string]any
	Data        []map[string]any
	ShmSize     string
	// Priority is the pods' PriorityClass ("": none).
	Priority string
	// Queue is a Volcano queue the pods are scheduled in ("": the default
	// scheduler's).
	Queue       string
	PullSecrets []string
	GPUResource string
	// Model is the volume holding the model (none: the image has it).
	Model Model
	// ModelFrom is the job whose model_dir Model is ("": none).
	ModelFrom string
	// Backend is BackendDeployment ("" too) or BackendKServe.
	Backend string
	// User is who creates it; CLIVersion the binary's version.
	User       string
	CLIVersion string
}

// port is the port the server listens on.
func (s *Spec) port() int32 {
	if s.Port != 0 {
		return s.Port
	}
	return s.Framework.Port
}

// Validate checks the spec without the cluster: every error is a usage
// error naming the flag.
func (s *Spec) Validate() error {
	if errs := validation.IsDNS1035Label(s.Name); len(errs) > 0 {
		return exit.UsageErrorf("serving name %q: %s (a DNS-1035 label: lower-case letters, digits and '-', starting with a letter, at most 63 characters)", s.Name, strings.Join(errs, "; "))
	}
	if n := len(s.Name); s.Backend == BackendKServe && n > MaxKServeName {
		return exit.UsageErrorf("serving name %q: %d characters, at most %d with --backend kserve (KServe names the Deployment NAME-vN-predictor, a DNS label of at most 63)", s.Name, n, MaxKServeName)
	} else if n > MaxName {
		return exit.UsageErrorf("serving name %q: %d characters, at most %d (its versions' Deployments are NAME-vN, DNS labels of at most 63)", s.Name, n, MaxName)
	}
	if s.Backend == BackendKServe && s.Namespace != "" {
		if err := KServeHostFits(s.Name, s.Namespace); err != nil {
			return exit.UsageErrorf("--backend kserve: %v", err)
		}
	}
	if s.Image == "" {
		return exit.UsageErrorf("--image is required: the image of the model server")
	}
	if s.Port < 0 || s.Port > 65535 {
		return exit.UsageErrorf("--port %d: not a port (1 to 65535)", s.Port)
	}
	if s.Framework.FixedPort && s.Port != 0 && s.Port != s.Framework.Port && len(s.Command) == 0 {
		return exit.UsageErrorf("--port %d: %s listens on %d unless its own configuration says otherwise: give the command after -- as well", s.Port, s.Framework.Name, s.Framework.Port)
	}
	if len(s.Framework.Command) == 0 && len(s.Command) == 0 {
		return exit.UsageErrorf(`--framework %s: give the server's command after "--" (easyai serve create NAME --image IMAGE -- python serve.py)`, s.Framework.Name)
	}
	if s.Replicas < 1 {
		return exit.UsageErrorf("--replicas %d: a serving has at least 1 replica", s.Replicas)
	}
	if s.GPUs < 0 {
		return exit.UsageErrorf("--gpus %d: must not be negative", s.GPUs)
	}
	for flag, q := range map[string]string{"cpu": s.CPU, "memory": s.Memory, "shm-size": s.ShmSize} {
		if q == "" {
			continue
		}
		if _, err := resource.ParseQuantity(q); err != nil {
			return exit.UsageErrorf("--%s %q: not a quantity (e.g. 4, 500m, 16Gi)", flag, q)
		}
	}
	if s.ReadyPath != "" && !strings.HasPrefix(s.ReadyPath, "/") {
		return exit.UsageErrorf("--ready-path %q: an HTTP path, starting with /", s.ReadyPath)
	}
	return checkEnv(s.Env)
}

// checkEnv refuses an --env that is not NAME=VALUE.
func checkEnv(env []string) error {
	for _, e := range env {
		name, _, ok := strings.Cut(e, "=")
		if !ok || len(validation.IsEnvVarName(name)) > 0 {
			return exit.UsageErrorf("--env %q: want NAME=VALUE, NAME a variable name", e)
		}
	}
	return nil
}

// labels are the labels of the serving's objects and pods.
func (s *Spec) labels() map[string]string {
	l := map[string]string{
		jobmodel.ManagedByLabel: jobmodel.ManagedByValue,
		Label:                   s.Name,
		VersionLabel:            FirstVersion,
	}
	if s.User != "" {
		l[jobmodel.UserLabel] = jobmodel.LabelSafe(s.User)
	}
	return l
}

// annotations are what easyai reads back of the serving.
func (s *Spec) annotations() map[string]string {
	a := map[string]string{
		FrameworkAnnotation:        s.Framework.Name,
		PortAnnotation:             fmt.Sprint(s.port()),
		jobmodel.VersionAnnotation: s.CLIVersion,
	}
	if s.ModelFrom != "" {
		a[ModelFromAnnotation] = s.ModelFrom
	}
	if !s.Model.IsZero() {
		a[ModelAnnotation] = s.Model.Location
	}
	if s.User != "" {
		a[jobmodel.UserAnnotation] = s.User
	}
	return a
}

// values are the serving chart's values of the spec.
func (s *Spec) values() map[string]any {
	command := s.Command
	if len(command) == 0 {
		command = s.Framework.command(s.port(), s.Framework.ModelPath)
	}
	readyPath := s.ReadyPath
	if readyPath == "" {
		readyPath = s.Framework.ReadyPath
	}
	env := []any{}
	for _, e := range s.Env {
		name, value, _ := strings.Cut(e, "=")
		env = append(env, map[string]any{"name": name, "value": value})
	}
	labels := map[string]any{}
	for k, v := range s.labels() {
		labels[k] = v
	}
	annotations := map[string]any{}
	for k, v := range s.annotations() {
		annotations[k] = v
	}
	values := map[string]any{
		"name":      DeploymentName(s.Name, FirstVersion),
		"image":     s.Image,
		"command":   anySlice(command),
		"env":       env,
		"resources": map[string]any{"cpu": s.CPU, "memory": s.Memory, "gpus": s.GPUs},
		"labels":    labels, "annotations": annotations,
		"roles": map[string]any{"server": map[string]any{"replicas": int64(s.Replicas)}},
		"serving": map[string]any{
			"port": int64(s.port()), "readyPath": readyPath, "livePath": s.Framework.LivePath,
			"selector": map[string]any{Label: s.Name, VersionLabel: FirstVersion},
			"queue":    s.Queue,
		},
		"model": s.Model.values(s.Framework.ModelPath),
	}
	s.placementValues(values)
	return values
}

// placementValues adds the values of where and how the pods run, as a
// job's pods take them: GPU resource, node selector, tolerations, data,
// /dev/shm, PriorityClass and pull secrets.
func (s *Spec) placementValues(values map[string]any) {
	if s.GPUResource != "" {
		values["gpuResource"] = s.GPUResource
	}
	if len(s.NodeSelector) > 0 {
		ns := map[string]any{}
		for k, v := range s.NodeSelector {
			ns[k] = v
		}
		values["nodeSelector"] = ns
	}
	if len(s.PullSecrets) > 0 {
		values["imagePullSecrets"] = anySlice(s.PullSecrets)
	}
	if len(s.Tolerations) > 0 {
		values["tolerations"] = anyMaps(s.Tolerations)
	}
	if len(s.Data) > 0 {
		values["data"] = anyMaps(s.Data)
	}
	if s.ShmSize != "" {
		values["shmSize"] = s.ShmSize
	}
	if s.Priority != "" {
		values["priorityClassName"] = s.Priority
	}
}

func anyMaps(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// Objects are what a serving is made of.
type Objects struct {
	// Workload is the Deployment, or KServe's InferenceService.
	Workload *unstructured.Unstructured
	Service  *unstructured.Unstructured
}

// Render renders the serving: its Deployment through the serving chart
// (or, for the kserve backend, an InferenceService of that Deployment's pod
// template), its Service beside it. Nothing is sent.
func Render(s *Spec) (*Objects, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	objs, err := render.Render(render.Request{Kind: deploymentKind{}, Values: s.values()})
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("the serving chart rendered %d Deployments, not one", len(objs))
	}
	workload := objs[0]
	workload.SetNamespace(s.Namespace)
	if s.Backend == BackendKServe {
		d := &appsv1.Deployment{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(workload.Object, d); err != nil {
			return nil, err
		}
		if workload, err = inferenceService(d); err != nil {
			return nil, err
		}
	}
	svc, err := s.service()
	if err != nil {
		return nil, err
	}
	return &Objects{Workload: workload, Service: svc}, nil
}

// service is the serving's Service: every version's ready pods behind one
// name, on the server's port.
func (s *Spec) service() (*unstructured.Unstructured, error) {
	labels := s.labels()
	delete(labels, VersionLabel)
	svc := &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: labels, Annotations: map[string]string{PortAnnotation: fmt.Sprint(s.port())}},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{Label: s.Name},
			Ports:    []corev1.ServicePort{{Name: "http", Port: s.port(), TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}},
		},
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(svc)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	unstructured.RemoveNestedField(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

// deploymentKind is what the serving chart renders, for the rendering
// engine: one apps/v1 Deployment, strictly decoded.
type deploymentKind struct{}

func (deploymentKind) Name() string { return "serving" }
func (deploymentKind) GroupVersionKind() schema.GroupVersionKind {
	return appsv1.SchemeGroupVersion.WithKind("Deployment")
}
func (deploymentKind) Chart() fs.FS { return charts.Get(ChartName) }
func (deploymentKind) Decode(obj *unstructured.Unstructured) (runtime.Object, error) {
	d := &appsv1.Deployment{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj.Object, d, true); err != nil {
		return nil, err
	}
	return d, nil
}
