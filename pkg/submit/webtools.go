package submit

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/render"
)

// The web tools' ports and paths: the chart's (easyai-lib.webToolsTable)
// agree.
const (
	JupyterPort     = 8888
	CodeServerPort  = 13337
	TensorBoardPort = 6006
)

// sidecarTool is a web tool run as a sidecar of the job's first replica,
// logged in with a token submit generates.
type sidecarTool struct {
	value    string // under "devtools"
	flag     string
	endpoint string // its name in the endpoints annotation, and the Secret's suffix
	port     int32
	path     string
	login    string
}

var sidecarTools = []sidecarTool{
	{value: "jupyter", flag: "jupyter", endpoint: "jupyter", port: JupyterPort, path: "/lab", login: jobmodel.LoginToken},
	{value: "codeServer", flag: "code-server", endpoint: "code-server", port: CodeServerPort, path: "/", login: jobmodel.LoginPassword},
}

// webToolValues are --tensorboard, --jupyter and --code-server as
// "devtools" values.
func (f *Flags) webToolValues() (map[string]any, error) {
	v := map[string]any{}
	d := f.Devtools
	for flag, on := range map[string]struct {
		value string
		on    bool
	}{"tensorboard": {"tensorboard", d.TensorBoard}, "jupyter": {"jupyter", d.Jupyter}, "code-server": {"codeServer", d.CodeServer}} {
		if f.Changed(flag) {
			v[on.value] = map[string]any{"enabled": on.on}
		}
	}
	if len(v) == 0 {
		return nil, nil
	}
	return v, nil
}

// toolOn reports whether devtools.<tool>.enabled is true in resolved values.
func toolOn(values map[string]any, tool string) (map[string]any, bool) {
	devtools, _ := values["devtools"].(map[string]any)
	t, _ := devtools[tool].(map[string]any)
	return t, t["enabled"] == true
}

// attachmentName is the name of an object made beside the job name for
// what (a Secret, Service or Deployment): NAME-WHAT, a DNS label.
func attachmentName(name, what string) (string, error) {
	n := name + "-" + what
	if len(n) > 63 {
		return "", exit.UsageErrorf("name %q: too long for the %s beside it (%s is over 63 characters): give a shorter --name", name, what, n)
	}
	return n, nil
}

// fillWebTools completes devtools.tensorboard, jupyter and codeServer: the
// replica the sidecars run in and the Secrets of their tokens, and writes
// the endpoints annotation that "easyai open" reads. TensorBoard needs the
// job's storage.
func (s *Submission) fillWebTools(ctx context.Context, req *Request) error {
	resolved, err := req.Resolved()
	if err != nil {
		return err
	}
	name, _ := resolved["name"].(string)
	endpoints := map[string]jobmodel.Endpoint{}
	if _, on := toolOn(resolved, "tensorboard"); on {
		if !hasStorage(resolved) {
			return exit.UsageErrorf("--tensorboard reads the job's summary_dir on its storage: add --storage (or set a default: easyai config set storage pvc:CLAIM)")
		}
		svc, err := attachmentName(name, "tensorboard")
		if err != nil {
			return err
		}
		endpoints["tensorboard"] = jobmodel.Endpoint{Service: svc, Port: TensorBoardPort}
	}
	for _, t := range sidecarTools {
		if _, on := toolOn(resolved, t.value); !on {
			continue
		}
		task, err := firstTask(resolved)
		if err != nil {
			return exit.UsageErrorf("--%s: %v", t.flag, err)
		}
		secret, err := attachmentName(name, t.endpoint)
		if err != nil {
			return err
		}
		req.Values = render.MergeMaps(req.Values, map[string]any{"devtools": map[string]any{t.value: map[string]any{"task": task, "tokenSecret": secret}}})
		endpoints[t.endpoint] = jobmodel.Endpoint{Task: task, Port: t.port, Path: t.path, TokenSecret: secret, Login: t.login}
	}
	if len(endpoints) == 0 {
		return nil
	}
	// The endpoints given with --annotation or in a job file stay, but
	// for the tools easyai starts.
	given, err := jobmodel.Endpoints(req.Annotations)
	if err != nil {
		return err
	}
	for n, e := range endpoints {
		given[n] = e
	}
	raw, err := json.Marshal(given)
	if err != nil {
		return err
	}
	req.annotate(jobmodel.EndpointsAnnotation, string(raw))
	return nil
}

// hasStorage reports whether the values give the job a storage.
func hasStorage(values map[string]any) bool {
	st, _ := values["storage"].(map[string]any)
	nfs, _ := st["nfs"].(map[string]any)
	claim, _ := st["claim"].(string)
	server, _ := nfs["server"].(string)
	return claim != "" || server != ""
}

// firstTask is the replica a web tool runs in: the first of the job's
// roles with replicas in jobmodel.DefaultTasks' order (chief, master,
// launcher, worker), else the first by name; its index 0.
func firstTask(values map[string]any) (string, error) {
	var names []string
	for role, r := range rolesOf(values) {
		m, _ := r.(map[string]any)
		if n, _ := number(m["replicas"]); n > 0 {
			names = append(names, role)
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("the job has no role with replicas to run it in")
	}
	sort.Strings(names)
	for _, want := range jobmodel.DefaultTasks {
		want = strings.TrimSuffix(want, "-0")
		for _, n := range names {
			if n == want {
				return n + "-0", nil
			}
		}
	}
	return names[0] + "-0", nil
}

// webToolObjects are what the web tools need beside the job: the Secrets of
// the sidecars' tokens (new ones at every submission) and TensorBoard's
// Deployment and Service.
func (s *Submission) webToolObjects(req *Request, values map[string]any, job *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, t := range sidecarTools {
		v, on := toolOn(values, t.value)
		if !on {
			continue
		}
		token, err := NewToken()
		if err != nil {
			return nil, err
		}
		out = append(out, TokenSecret(fmt.Sprint(v["tokenSecret"]), job, map[string]string{jobmodel.TokenSecretKey: token}))
	}
	if v, on := toolOn(values, "tensorboard"); on {
		objs, err := tensorBoard(values, v, job)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// DefaultTensorBoardImage is TensorBoard's image when the values give none.
const DefaultTensorBoardImage = "tensorflow/tensorflow:2.18.0"

// tensorBoard is the Deployment and the Service of TensorBoard reading the
// job's directory on the storage (every replica's summary_dir in it),
// read-only, where the job may run.
func tensorBoard(values, tb map[string]any, job *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	name, err := attachmentName(job.GetName(), "tensorboard")
	if err != nil {
		return nil, err
	}
	volume, jobDir, err := jobDirVolume(values)
	if err != nil {
		return nil, err
	}
	image, _ := tb["image"].(string)
	if image == "" {
		image = DefaultTensorBoardImage
	}
	if err := CheckImage("devtools.tensorboard.image", image); err != nil {
		return nil, err
	}
	podSpec := tensorBoardPod(image, volume, jobDir)
	placeAsTheJob(podSpec, values)
	return tensorBoardObjects(name, job, podSpec), nil
}

// jobDirVolume is the storage of the values as the volume easyai-storage,
// read-only, and the job's directory on it (below the prefix).
func jobDirVolume(values map[string]any) (volume map[string]any, jobDir string, err error) {
	st, _ := values["storage"].(map[string]any)
	prefix, _ := st["prefix"].(string)
	dir, _ := st["jobDir"].(string)
	if dir == "" {
		return nil, "", fmt.Errorf("internal error: --tensorboard without the job's directory on the storage")
	}
	volume = map[string]any{"name": "easyai-storage"}
	if claim, _ := st["claim"].(string); claim != "" {
		volume["persistentVolumeClaim"] = map[string]any{"claimName": claim, "readOnly": true}
	} else {
		nfs, _ := st["nfs"].(map[string]any)
		volume["nfs"] = map[string]any{"server": nfs["server"], "path": nfs["path"], "readOnly": true}
	}
	return volume, path.Join(prefix, dir), nil
}

// tensorBoardPod is the spec of TensorBoard's pod: image serving the
// directory jobDir of volume, mounted read-only at /summary.
func tensorBoardPod(image string, volume map[string]any, jobDir string) map[string]any {
	return map[string]any{
		"containers": []any{map[string]any{
			"name":    "tensorboard",
			"image":   image,
			"command": []any{"tensorboard", "--logdir=/summary", "--bind_all", fmt.Sprintf("--port=%d", TensorBoardPort)},
			"ports":   []any{map[string]any{"name": "tensorboard", "containerPort": int64(TensorBoardPort)}},
			"resources": map[string]any{
				"requests": map[string]any{"cpu": "100m", "memory": "256Mi"},
				"limits":   map[string]any{"memory": "2Gi"},
			},
			"volumeMounts": []any{map[string]any{"name": "easyai-storage", "mountPath": "/summary", "subPath": jobDir, "readOnly": true}},
		}},
		"volumes": []any{volume},
	}
}

// placeAsTheJob gives podSpec the job's pull secrets, node selector and
// tolerations: where the job may run, the pod may too.
func placeAsTheJob(podSpec, values map[string]any) {
	if ps, ok := values["imagePullSecrets"].([]any); ok && len(ps) > 0 {
		var refs []any
		for _, p := range ps {
			refs = append(refs, map[string]any{"name": fmt.Sprint(p)})
		}
		podSpec["imagePullSecrets"] = refs
	}
	for _, k := range []string{"nodeSelector", "tolerations"} {
		if v, ok := values[k]; ok && v != nil && !emptyCollection(v) {
			podSpec[k] = v
		}
	}
}

// tensorBoardObjects are TensorBoard's Deployment of podSpec and its
// Service, both named name. Its pod carries the job's name and the role
// "tensorboard"; the job's own pods have no role label, so the Service
// selects it alone.
func tensorBoardObjects(name string, job *unstructured.Unstructured, podSpec map[string]any) []*unstructured.Unstructured {
	selector := map[string]any{jobmodel.NameLabel: job.GetName(), jobmodel.RoleLabel: jobmodel.RoleTensorBoard}
	podLabels := anyValues(ownLabels(job))
	for k, v := range selector {
		podLabels[k] = v
	}
	labels := ownLabels(job)
	labels[jobmodel.RoleLabel] = jobmodel.RoleTensorBoard
	deploy := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"replicas": int64(1),
			"selector": map[string]any{"matchLabels": selector},
			"template": map[string]any{"metadata": map[string]any{"labels": podLabels}, "spec": podSpec},
		},
	}}
	deploy.SetLabels(labels)
	svc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"selector": selector,
			"ports":    []any{map[string]any{"name": "tensorboard", "port": int64(TensorBoardPort), "targetPort": int64(TensorBoardPort)}},
		},
	}}
	svc.SetLabels(labels)
	return []*unstructured.Unstructured{deploy, svc}
}

func emptyCollection(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}
