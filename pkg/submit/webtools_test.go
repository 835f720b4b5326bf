package submit

import (
	"context"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// webToolsSubmission is a tf submission of two workers named name with the
// web tools' flags given (and storage, when not "").
func webToolsSubmission(t *testing.T, name, storage string, tools ...string) *Submission {
	t.Helper()
	flags := map[string]string{"name": name}
	if storage != "" {
		flags["storage"] = storage
	}
	s, _ := storageSubmission(t, flags)
	for _, tool := range tools {
		switch tool {
		case "tensorboard":
			s.Flags.Devtools.TensorBoard = true
		case "jupyter":
			s.Flags.Devtools.Jupyter = true
		case "code-server":
			s.Flags.Devtools.CodeServer = true
		}
	}
	changed := s.Flags.Changed
	s.Flags.Changed = func(flag string) bool {
		for _, tool := range tools {
			if flag == tool {
				return true
			}
		}
		return changed(flag)
	}
	return s
}

func attachment(t *testing.T, res *Result, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, a := range res.Attachments {
		if a.GetKind() == kind && a.GetName() == name {
			return a
		}
	}
	var have []string
	for _, a := range res.Attachments {
		have = append(have, a.GetKind()+"/"+a.GetName())
	}
	t.Fatalf("no %s %s beside the job (have %v)", kind, name, have)
	return nil
}

func TestWebToolsWriteTheEndpointsAndTheirObjects(t *testing.T) {
	res, err := webToolsSubmission(t, "mnist", "pvc:team", "tensorboard", "jupyter", "code-server").Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := jobmodel.Endpoints(res.Object.GetAnnotations())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]jobmodel.Endpoint{
		"tensorboard": {Service: "mnist-tensorboard", Port: 6006},
		"jupyter":     {Task: "worker-0", Port: 8888, Path: "/lab", TokenSecret: "mnist-jupyter", Login: jobmodel.LoginToken},
		"code-server": {Task: "worker-0", Port: 13337, Path: "/", TokenSecret: "mnist-code-server", Login: jobmodel.LoginPassword},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("endpoints\n got %+v\nwant %+v", got, want)
	}
	for _, name := range []string{"mnist-jupyter", "mnist-code-server"} {
		s := attachment(t, res, "Secret", name)
		token, _, _ := unstructured.NestedString(s.Object, "stringData", jobmodel.TokenSecretKey)
		if b, err := hex.DecodeString(token); err != nil || len(b) != 32 {
			t.Errorf("Secret %s: token %q, want 32 random bytes in hex", name, token)
		}
		if s.GetLabels()[jobmodel.NameLabel] != "mnist" {
			t.Errorf("Secret %s: labels %v, want the job's name", name, s.GetLabels())
		}
		if strings.Contains(res.Object.GetAnnotations()[jobmodel.RequestAnnotation], token) {
			t.Errorf("the request annotation holds the token of %s", name)
		}
	}

	deploy := attachment(t, res, "Deployment", "mnist-tensorboard")
	svc := attachment(t, res, "Service", "mnist-tensorboard")
	selector, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "selector")
	podLabels, _, _ := unstructured.NestedStringMap(deploy.Object, "spec", "template", "metadata", "labels")
	matchLabels, _, _ := unstructured.NestedStringMap(deploy.Object, "spec", "selector", "matchLabels")
	if selector[jobmodel.RoleLabel] != jobmodel.RoleTensorBoard || selector[jobmodel.NameLabel] != "mnist" || !reflect.DeepEqual(selector, matchLabels) {
		t.Errorf("Service selector %v, Deployment selector %v: want the job's name and role tensorboard in both", selector, matchLabels)
	}
	for k, v := range selector {
		if podLabels[k] != v {
			t.Errorf("TensorBoard's pod labels %v do not match the Service's selector %v", podLabels, selector)
		}
	}
	containers, _, _ := unstructured.NestedSlice(deploy.Object, "spec", "template", "spec", "containers")
	c := containers[0].(map[string]any)
	mount := c["volumeMounts"].([]any)[0].(map[string]any)
	jobDir := res.Object.GetAnnotations()[jobmodel.JobDirAnnotation]
	if mount["subPath"] != jobDir || mount["readOnly"] != true || mount["mountPath"] != "/summary" || jobDir == "" {
		t.Errorf("TensorBoard mounts %v, want the job's directory %q read-only at /summary", mount, jobDir)
	}
	volumes, _, _ := unstructured.NestedSlice(deploy.Object, "spec", "template", "spec", "volumes")
	claim, _, _ := unstructured.NestedString(volumes[0].(map[string]any), "persistentVolumeClaim", "claimName")
	if claim != "team" {
		t.Errorf("TensorBoard's volume %v, want claim team", volumes[0])
	}
	if args := strings.Join(toStrings(c["command"]), " "); args != "tensorboard --logdir=/summary --bind_all --port=6006" {
		t.Errorf("TensorBoard runs %q", args)
	}
}

func toStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestEverySubmissionHasNewTokens(t *testing.T) {
	token := func() string {
		res, err := webToolsSubmission(t, "nb", "", "jupyter").Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		s := attachment(t, res, "Secret", "nb-jupyter")
		v, _, _ := unstructured.NestedString(s.Object, "stringData", "token")
		return v
	}
	if a, b := token(), token(); a == b || a == "" {
		t.Errorf("two submissions share the token %q", a)
	}
}

func TestTensorBoardNeedsStorage(t *testing.T) {
	_, err := webToolsSubmission(t, "mnist", "", "tensorboard").Run(context.Background())
	if exit.Code(err) != exit.Usage || err == nil || !strings.Contains(err.Error(), "--tensorboard") || !strings.Contains(err.Error(), "--storage") {
		t.Errorf("--tensorboard without storage: %v, want exit 2 naming --tensorboard and --storage", err)
	}
}

// The longest job name leaves room for the longest suffix of the objects
// made beside it: every one of them is a DNS label.
func TestTheLongestNameFitsTheToolsObjects(t *testing.T) {
	name := strings.Repeat("a", 50)
	res, err := webToolsSubmission(t, name, "pvc:team", "tensorboard", "jupyter", "code-server").Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Attachments {
		if len(a.GetName()) > 63 {
			t.Errorf("%s %s is longer than 63 characters", a.GetKind(), a.GetName())
		}
	}
	if _, err := attachmentName(strings.Repeat("a", 52), "code-server"); exit.Code(err) != exit.Usage {
		t.Errorf("a name of 64 characters: %v, want exit 2", err)
	}
}

func TestGivenEndpointsStayButForTheToolsStarted(t *testing.T) {
	s := webToolsSubmission(t, "mnist", "", "jupyter")
	s.Flags.Annotations = []string{jobmodel.EndpointsAnnotation + `={"metrics":{"port":9090},"jupyter":{"port":1234}}`}
	changed := s.Flags.Changed
	s.Flags.Changed = func(f string) bool { return f == "annotation" || changed(f) }
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got, err := jobmodel.Endpoints(res.Object.GetAnnotations())
	if err != nil {
		t.Fatal(err)
	}
	if got["metrics"].Port != 9090 || got["jupyter"].Port != JupyterPort || got["jupyter"].TokenSecret != "mnist-jupyter" {
		t.Errorf("endpoints %+v: want metrics kept and jupyter easyai's", got)
	}
}

func TestFirstTask(t *testing.T) {
	roles := func(kv ...any) map[string]any {
		r := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			r[kv[i].(string)] = map[string]any{"replicas": kv[i+1]}
		}
		return map[string]any{"roles": r}
	}
	for _, tt := range []struct {
		values map[string]any
		want   string
	}{
		{roles("chief", 1, "worker", 2, "ps", 1), "chief-0"},
		{roles("ps", 1, "worker", 2), "worker-0"},
		{roles("master", 0, "worker", int64(3)), "worker-0"},
		{roles("launcher", 1, "worker", 2), "launcher-0"},
		{roles("evaluator", 1, "ps", 1), "evaluator-0"},
		{map[string]any{"tasks": map[string]any{"master": map[string]any{"replicas": 1}, "worker": map[string]any{"replicas": 2}}}, "master-0"},
	} {
		got, err := firstTask(tt.values)
		if err != nil || got != tt.want {
			t.Errorf("firstTask(%v) = %q, %v; want %s", tt.values, got, err, tt.want)
		}
	}
	if _, err := firstTask(roles("worker", 0)); err == nil {
		t.Error("a job without replicas has a first task")
	}
}
