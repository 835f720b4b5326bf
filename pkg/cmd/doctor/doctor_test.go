package doctor

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/kube"
)

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdDoctor(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

// cluster serves the training-operator's kinds only, and allows what a
// namespace-scoped user with rights on tfjobs and pods (not exec, not
// secrets) has; reviews records each access review asked.
func cluster(t *testing.T) (*cmdutil.Factory, *[]authorizationv1.ResourceAttributes) {
	kc := kubefake.NewClientset()
	d := kc.Discovery().(*fakediscovery.FakeDiscovery)
	d.FakedServerVersion = &version.Info{GitVersion: "v1.34.2"}
	d.Resources = []*metav1.APIResourceList{{GroupVersion: "kubeflow.org/v1", APIResources: []metav1.APIResource{
		{Name: "tfjobs"}, {Name: "pytorchjobs"}, {Name: "mpijobs"}, {Name: "xgboostjobs"}, {Name: "paddlejobs"}, {Name: "jaxjobs"}}}}
	var reviews []authorizationv1.ResourceAttributes
	kc.PrependReactor("create", "selfsubjectaccessreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
		review := a.(clienttesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		attrs := *review.Spec.ResourceAttributes
		reviews = append(reviews, attrs)
		allowed := attrs.Namespace == "team-a" && (attrs.Resource == "tfjobs" || attrs.Resource == "pods" && attrs.Subresource != "exec")
		review.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: allowed}
		return true, review, nil
	})
	f, _, _ := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), kc)
	f.RESTConfig = func() (*rest.Config, error) { return &rest.Config{Host: "https://127.0.0.1:6443"}, nil }
	return f, &reviews
}

func TestDoctorTable(t *testing.T) {
	f, reviews := cluster(t)
	if err := execute(f, nil); err != nil {
		t.Fatalf("doctor exits 0 whatever the user may not do: %v", err)
	}
	out := f.IOStreams.Out.(interface{ String() string }).String()
	for _, want := range []string{
		"Server:    https://127.0.0.1:6443 (Kubernetes v1.34.2)\n",
		"Namespace: team-a\n",
		"\ntf ", "tfjobs.kubeflow.org/v1", "T9k (its ColossalAIJob controller)",
		"Permissions in namespace team-a:\n",
		"Missing permissions hold back: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	lines := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if fields := strings.Fields(line); len(fields) > 0 {
			lines[fields[0]] = strings.Join(fields, " ")
		}
	}
	for resource, want := range map[string]string{
		"tfjobs.kubeflow.org":      "tfjobs.kubeflow.org yes yes yes yes yes yes",
		"pytorchjobs.kubeflow.org": "pytorchjobs.kubeflow.org no no no no no no",
		"pods":                     "pods yes yes yes yes - yes",
		"pods/exec":                "pods/exec no - - - - -",
		"pods/log":                 "pods/log - yes - - - -",
		"secrets":                  "secrets - no - - - -",
	} {
		if lines[resource] != want {
			t.Errorf("row %q, want %q", lines[resource], want)
		}
	}
	if len(*reviews) != len(kube.Needs(f.Kinds)) {
		t.Errorf("%d access reviews, want one per permission (%d)", len(*reviews), len(kube.Needs(f.Kinds)))
	}
	for _, r := range *reviews {
		if r.Namespace != "team-a" {
			t.Errorf("review %+v outside the namespace", r)
		}
	}
}

func TestDoctorJSON(t *testing.T) {
	f, _ := cluster(t)
	if err := execute(f, nil, "-o", "json"); err != nil {
		t.Fatal(err)
	}
	var report kube.Report
	if err := json.Unmarshal([]byte(f.IOStreams.Out.(interface{ String() string }).String()), &report); err != nil {
		t.Fatal(err)
	}
	if report.ServerVersion != "v1.34.2" || report.Namespace != "team-a" || len(report.APIs) != len(f.Kinds.All()) {
		t.Errorf("report %+v", report)
	}
	installed := map[string]bool{}
	for _, a := range report.APIs {
		installed[a.KindName] = a.Installed
	}
	if !installed["tf"] || !installed["jax"] || installed["volcano"] || installed["colossalai"] {
		t.Errorf("installed %v, want the training-operator's kinds only", installed)
	}
	allowed := map[string]bool{}
	for _, a := range report.Access {
		allowed[a.Verb+" "+a.Name()] = a.Allowed
		if len(a.NeededBy) == 0 {
			t.Errorf("%s %s is needed by no command", a.Verb, a.Name())
		}
	}
	for check, want := range map[string]bool{
		"create tfjobs.kubeflow.org": true, "delete tfjobs.kubeflow.org": true, "list jobs.batch.volcano.sh": false,
		"create pods/exec": false, "get pods/log": true, "create pods/portforward": true, "get secrets": false,
		"create pods": true, "list events": false,
	} {
		if got, ok := allowed[check]; !ok || got != want {
			t.Errorf("%s: allowed %v (checked %v), want %v", check, got, ok, want)
		}
	}
}

func TestDoctorBadOutput(t *testing.T) {
	f, _ := cluster(t)
	if err := execute(f, nil, "-o", "wide"); exit.Code(err) != exit.Usage {
		t.Errorf("-o wide: %v", err)
	}
}
