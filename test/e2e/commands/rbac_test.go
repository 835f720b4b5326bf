//go:build e2e

package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// applyExample creates the objects of an examples/ file in namespace, as
// "kubectl apply -n" would, so that the example itself is what is tested.
func applyExample(t *testing.T, c *cluster.Cluster, file, namespace string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", file))
	if err != nil {
		t.Fatal(err)
	}
	ctx := cluster.Context(t, time.Minute)
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var obj unstructured.Unstructured
		if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if obj.Object == nil {
			continue
		}
		obj.SetNamespace(namespace)
		// The example names team-a: its ServiceAccounts' too (the launcher's
		// of easyai cron), as whoever applies it replaces team-a.
		if subjects, ok := obj.Object["subjects"].([]any); ok {
			for _, s := range subjects {
				if s, ok := s.(map[string]any); ok && s["kind"] == "ServiceAccount" {
					s["namespace"] = namespace
				}
			}
		}
		gvk := obj.GroupVersionKind()
		gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"}
		if _, err := c.Dynamic.Resource(gvr).Namespace(namespace).Create(ctx, &obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: creating %s %s: %v", file, gvk.Kind, obj.GetName(), err)
		}
	}
}

// TestNamespaceScopedUser runs easyai as alice, a user with a client
// certificate who may work in team-a (edit plus the example Role of
// examples/rbac/), read only TFJobs in team-c, and do nothing in team-b.
func TestNamespaceScopedUser(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	easyai.Binary(t)
	teamA, teamB, teamC := c.Namespace(t), c.Namespace(t), c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", teamA)
	ctx := cluster.Context(t, time.Minute)
	tfOnly := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "tfjobs-reader"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"kubeflow.org"}, Resources: []string{"tfjobs"}, Verbs: []string{"get", "list"}}}}
	if _, err := c.Kube.RbacV1().Roles(teamC).Create(ctx, tfOnly, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "tfjobs-reader-alice"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: tfOnly.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: "alice"}}}
	if _, err := c.Kube.RbacV1().RoleBindings(teamC).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", teamA)}
	as := func(args ...string) easyai.Result { t.Helper(); return easyai.RunWith(t, alice, args...) }

	// submit, with a log and an exec directory for its worker.
	log := c.PodLog(t, teamA, "a1-worker-0", nil)
	log.Println("alice was here")
	dir := c.PodExecDir(t, teamA, "a1-worker-0")
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello from a1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	as("submit", "tf", "--name", "a1", "--workers", "1", "--image", "example.com/train:1", "--", "python", "train.py").MustSucceed(t)
	c.WaitPodPhase(t, teamA, "a1-worker-0", string(corev1.PodRunning), 90*time.Second)

	// list: in her namespace every kind is hers; across namespaces, nothing.
	res := as("list", "-o", "name").MustSucceed(t)
	if res.Stdout != "tf/a1\n" || res.Stderr != "" {
		t.Errorf("list in %s: stdout %q, stderr %q", teamA, res.Stdout, res.Stderr)
	}
	res = as("list", "-A")
	if res.Code != 1 || !strings.Contains(res.Stderr, "Error: you may not list jobs across namespaces: list is forbidden on ") ||
		!strings.Contains(res.Stderr, "Hint: name a namespace you may read with -n NAMESPACE") || strings.Contains(res.Stderr, "unknown") {
		t.Errorf("list -A: exit %d, stderr %q", res.Code, res.Stderr)
	}
	res = as("list", "-n", teamB)
	if res.Code != 1 || !strings.Contains(res.Stderr, "Error: you may not list jobs in namespace "+teamB+": ") ||
		!strings.Contains(res.Stderr, `"easyai doctor -n `+teamB+`"`) {
		t.Errorf("list -n %s: exit %d, stderr %q", teamB, res.Code, res.Stderr)
	}
	// Only TFJobs readable: listed, every other kind one warning line.
	res = as("list", "-n", teamC, "-o", "name").MustSucceed(t)
	warnings := strings.Split(strings.TrimSuffix(res.Stderr, "\n"), "\n")
	if res.Stdout != "" || len(warnings) != len(registry.Default().All())-1 ||
		!strings.Contains(res.Stderr, "Warning: cannot list colossalaijobs in "+teamC+": forbidden\n") ||
		strings.Contains(res.Stderr, "tfjobs") {
		t.Errorf("list -n %s: stdout %q, stderr %q", teamC, res.Stdout, res.Stderr)
	}

	// get: her job; another namespace's is one line, exit 1.
	res = as("get", "a1").MustSucceed(t)
	if !strings.Contains(res.Stdout, "Name:       a1\n") || !strings.Contains(res.Stdout, "worker-0") {
		t.Errorf("get a1: %q", res.Stdout)
	}
	res = as("get", "a1", "-n", teamB)
	if res.Code != 1 || strings.Count(res.Stderr, "Error:") != 1 ||
		!strings.Contains(res.Stderr, "Error: you may not read jobs in namespace "+teamB+": get is forbidden on ") {
		t.Errorf("get a1 -n %s: exit %d, stderr %q", teamB, res.Code, res.Stderr)
	}
	if res := as("get", "ghost"); res.Code != 3 || !strings.Contains(res.Stderr, "job ghost not found in namespace "+teamA) {
		t.Errorf("get ghost: exit %d, stderr %q", res.Code, res.Stderr)
	}

	// logs and exec through the API server's pod subresources.
	res = as("logs", "a1").MustSucceed(t)
	if !strings.Contains(res.Stdout, "alice was here") {
		t.Errorf("logs a1: %q", res.Stdout)
	}
	res = as("exec", "a1", "--", "cat", "hello.txt").MustSucceed(t)
	if res.Stdout != "hello from a1\n" {
		t.Errorf("exec a1: %q", res.Stdout)
	}

	// doctor: she may do everything easyai does in team-a (what the example
	// grants), nothing in team-b; it reports, exit 0 both times.
	res = as("doctor", "-o", "json").MustSucceed(t)
	var report kube.Report
	if err := json.Unmarshal([]byte(res.Stdout), &report); err != nil {
		t.Fatalf("doctor -o json: %v\n%s", err, res.Stdout)
	}
	if report.Namespace != teamA || report.User != "alice" || !strings.HasPrefix(report.ServerVersion, "v1.") || len(report.Access) == 0 {
		t.Errorf("doctor: %+v", report)
	}
	for _, a := range report.Access {
		if !a.Allowed {
			t.Errorf("doctor in %s: %s %s not allowed; the example Role with edit should grant it", teamA, a.Verb, a.Name())
		}
	}
	installed := map[string]bool{}
	for _, api := range report.APIs {
		installed[api.KindName] = api.Installed
	}
	if !installed["tf"] || !installed["pytorch"] || !installed["volcano"] {
		t.Errorf("doctor: installed %v", installed)
	}
	res = as("doctor").MustSucceed(t)
	rows := map[string]string{}
	for _, line := range strings.Split(res.Stdout, "\n") {
		if fields := strings.Fields(line); len(fields) > 0 {
			rows[fields[0]] = strings.Join(fields, " ")
		}
	}
	if !strings.Contains(res.Stdout, "You may do everything easyai does in this namespace.") ||
		rows["tfjobs.kubeflow.org"] != "tfjobs.kubeflow.org yes yes yes yes yes yes" || rows["pods/exec"] != "pods/exec yes - - - - -" {
		t.Errorf("doctor:\n%s", res.Stdout)
	}
	res = as("doctor", "-n", teamB, "-o", "json").MustSucceed(t)
	report = kube.Report{}
	if err := json.Unmarshal([]byte(res.Stdout), &report); err != nil {
		t.Fatal(err)
	}
	for _, a := range report.Access {
		if a.Allowed {
			t.Errorf("doctor in %s: %s %s allowed", teamB, a.Verb, a.Name())
		}
	}

	// The admin may do everything there as well, and in team-b.
	for _, ns := range []string{teamA, teamB} {
		res = easyai.Run(t, "doctor", "-n", ns, "-o", "json").MustSucceed(t)
		report = kube.Report{}
		if err := json.Unmarshal([]byte(res.Stdout), &report); err != nil {
			t.Fatal(err)
		}
		for _, a := range report.Access {
			if !a.Allowed {
				t.Errorf("doctor as admin in %s: %s %s not allowed", ns, a.Verb, a.Name())
			}
		}
	}

	// delete.
	as("delete", "a1", "--yes").MustSucceed(t)
}
