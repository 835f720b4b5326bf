//go:build e2e

package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// servingList is "serve list -o json".
type servingList struct {
	Items []struct {
		Name, State, ModelFrom, Model string
		Ready, Replicas               int
		GPUs                          int
		Versions                      []struct {
			Name   string
			Weight int
		}
	}
}

// TestServeAModelATeamMemberTrained: as the namespace's user of
// examples/rbac and as the admin, a job trained with --storage is served
// by vLLM with --model-from: the Deployment's pod mounts the job's
// model_dir read-only where vLLM reads it, the serving becomes Available
// (--wait), list and get show it, bad input exits 2 and creates nothing, a
// serving that cannot be scheduled makes --wait exit 5 naming why, and
// delete leaves nothing behind.
//
// The same test runs on the kserve backend where the cluster serves KServe
// (--backend auto picks it then): hack/test.sh starts a cluster with the
// real KServe controller for it and sets EASYAI_E2E_KSERVE=1, which makes
// a cluster without KServe a failure rather than the deployment backend.
func TestServeAModelATeamMemberTrained(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	kserve := served(t, c, inferenceServices)
	if os.Getenv("EASYAI_E2E_KSERVE") == "1" && !kserve {
		t.Fatal("EASYAI_E2E_KSERVE=1, but the cluster serves no serving.kserve.io/v1beta1 inferenceservices (EASYAI_CLUSTER_COMPONENTS without kserve?)")
	}
	for who, env := range map[string]func(ns string) []string{
		"alice": func(ns string) []string { return []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)} },
		"admin": func(string) []string { return nil },
	} {
		t.Run(who, func(t *testing.T) {
			t.Parallel()
			ns := c.ShortNamespace(t)
			c.BoundClaim(t, ns, "team-data")
			applyExample(t, c, "rbac/easyai-user.yaml", ns)
			serveLifecycle(t, c, ns, env(ns), kserve)
			if who == "alice" {
				othersServing(t, ns, env(ns))
			}
		})
	}
}

// othersServing: a serving the admin created in alice's namespace is not
// changed by alice without asking; without a terminal she needs --yes.
func othersServing(t *testing.T, ns string, alice []string) {
	easyai.Run(t, "-n", ns, "serve", "create", "shared", "--image", "example.com/srv:1", "--", "serve").MustSucceed(t)
	r := easyai.RunWith(t, alice, "-n", ns, "serve", "update", "shared", "--replicas", "2")
	if r.Code != 2 || !strings.Contains(r.Stderr, "serving shared was created by easyai-dev-admin: pass --yes to update it as alice") {
		t.Errorf("alice updates the admin's serving: exit %d, stderr %q; want 2 asking for --yes", r.Code, r.Stderr)
	}
	easyai.RunWith(t, alice, "-n", ns, "serve", "update", "shared", "--replicas", "2", "--yes").MustSucceed(t)
	easyai.RunWith(t, alice, "-n", ns, "serve", "delete", "shared", "--yes").MustSucceed(t)
}

// waitServing waits until "serve list" shows the serving all ready, with
// these versions and weights ("v1 50% v2 50%").
func waitServing(t *testing.T, run func(...string) easyai.Result, name, versions string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		out := run("serve", "list", "-o", "wide").MustSucceed(t).Stdout
		for _, line := range strings.Split(out, "\n") {
			cells := strings.Split(line, "\t")
			if len(cells) > 8 && cells[0] == name && cells[3] == versions && cells[8] == "Available" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serving %s: want versions %q, Available; serve list -o wide:\n%s", name, versions, out)
		}
		time.Sleep(time.Second)
	}
}

// inferenceServices are KServe's.
var inferenceServices = schema.GroupVersionResource{Group: "serving.kserve.io", Version: "v1beta1", Resource: "inferenceservices"}

func serveLifecycle(t *testing.T, c *cluster.Cluster, ns string, env []string, kserve bool) {
	run := func(args ...string) easyai.Result {
		t.Helper()
		return easyai.RunWith(t, env, append([]string{"-n", ns}, args...)...)
	}
	run("submit", "tf", "--name", "tr", "--image", "example.com/train:1", "--storage", "pvc:team-data:/vision",
		"--env", cluster.RunForEnv+"=2s", "--env", cluster.ExitCodeEnv+"=0", "--wait", "--timeout", "3m", "--", "python", "train.py").MustSucceed(t)
	jobDir := jobDirOf(t, c, ns, "tr")
	run("submit", "tf", "--name", "nostore", "--image", "example.com/train:1", "--", "python", "train.py").MustSucceed(t)

	res := run("serve", "create", "bert", "--framework", "vllm", "--image", "example.com/vllm:1", "--model-from", "tr",
		"--gpus", "1", "--env", "HF_HUB_OFFLINE=1", "--wait", "--timeout", "2m").MustSucceed(t)
	backendLine := "Backend: a Deployment and a Service (the cluster serves no KServe)"
	if kserve {
		backendLine = "Backend: a KServe InferenceService (RawDeployment) and a Service (the cluster serves KServe"
	}
	if res.Stdout != "serving bert created in namespace "+ns+"\n" || !strings.Contains(res.Stderr, backendLine) ||
		!strings.Contains(res.Stderr, "Serving bert is available: 1/1 replicas ready, at http://bert."+ns+".svc:8000") {
		t.Errorf("create: stdout %q, stderr %q", res.Stdout, res.Stderr)
	}

	// The pod as the API server stored it: the job's model_dir, read-only, at vLLM's --model.
	ctx := cluster.Context(t, 5*time.Minute) // (the whole test's API reads: it runs minutes on a loaded machine)
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/serving=bert"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("the serving's pods: %v, %v", pods, err)
	}
	pod := pods.Items[0]
	main := pod.Spec.Containers[0]
	if cmd := strings.Join(main.Command, " "); !strings.Contains(cmd, "--model /model") || !strings.Contains(cmd, "--port 8000") {
		t.Errorf("command %q: want vLLM's, on /model and port 8000", cmd)
	}
	mounted := false
	for _, m := range main.VolumeMounts {
		if m.Name == "model" && m.MountPath == "/model" && m.ReadOnly && m.SubPath == "vision/"+jobDir+"/model_dir" {
			mounted = true
		}
	}
	claimed := false
	for _, v := range pod.Spec.Volumes {
		if v.Name == "model" && v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == "team-data" && v.PersistentVolumeClaim.ReadOnly {
			claimed = true
		}
	}
	if !mounted || !claimed || main.ReadinessProbe == nil || main.ReadinessProbe.HTTPGet == nil || main.ReadinessProbe.HTTPGet.Path != "/health" {
		t.Errorf("the server's container %+v and volumes %+v: want tr's model_dir read-only at /model, ready at /health", main, pod.Spec.Volumes)
	}
	if q := main.Resources.Limits["nvidia.com/gpu"]; q.Value() != 1 {
		t.Errorf("GPU limit %v, want 1", q)
	}

	if kserve {
		isvc, err := c.Dynamic.Resource(inferenceServices).Namespace(ns).Get(ctx, "bert-v1", metav1.GetOptions{})
		if err != nil || main.Name != "kserve-container" || !strings.HasPrefix(pod.Name, "bert-v1-predictor-") {
			t.Errorf("on KServe: InferenceService bert-v1 %v (%v), container %s, pod %s", isvc, err, main.Name, pod.Name)
		}
	}

	var l servingList
	if err := json.Unmarshal([]byte(run("serve", "list", "-o", "json").MustSucceed(t).Stdout), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].Name != "bert" || l.Items[0].State != "Available" || l.Items[0].Ready != 1 || l.Items[0].ModelFrom != "tr" ||
		l.Items[0].GPUs != 1 || len(l.Items[0].Versions) != 1 || l.Items[0].Versions[0].Weight != 100 ||
		l.Items[0].Model != "pvc:team-data:/vision/"+jobDir+"/model_dir" {
		t.Errorf("serve list -o json: %+v", l)
	}
	if out := run("serve", "list").MustSucceed(t).Stdout; !strings.HasPrefix(out, "bert\tvllm\t1/1\tv1 100%\ttr\t1\t") {
		t.Errorf("serve list: %q", out)
	}
	var doc struct {
		State, Endpoint, Backend string
		Versions                 []struct{ Object, Deployment string }
		Pods                     []struct{ Name, State string }
	}
	if err := json.Unmarshal([]byte(run("serve", "get", "bert", "-o", "json").MustSucceed(t).Stdout), &doc); err != nil {
		t.Fatal(err)
	}
	wantBackend, wantObject, wantDeployment := "deployment", "deployment/bert-v1", "bert-v1"
	if kserve {
		wantBackend, wantObject, wantDeployment = "kserve", "inferenceservice/bert-v1", "bert-v1-predictor"
	}
	if doc.State != "Available" || doc.Endpoint != "http://bert."+ns+".svc:8000" || len(doc.Pods) != 1 || doc.Pods[0].State != "Running" ||
		doc.Backend != wantBackend || len(doc.Versions) != 1 || doc.Versions[0].Object != wantObject || doc.Versions[0].Deployment != wantDeployment {
		t.Errorf("serve get -o json: %+v", doc)
	}

	// invoke: one request through the API server to the ready pod, whose
	// port 8000 the fake node forwards to a server of this test.
	answers := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/fail" {
			http.Error(w, "no model\x1b]52;c;aGk=\x07", http.StatusInternalServerError)
			return
		}
		fmt.Fprintf(w, `{"method": %q, "path": %q, "type": %q, "body": %q}`+"\n", r.Method, r.URL.Path, r.Header.Get("Content-Type"), body)
	}))
	t.Cleanup(answers.Close)
	c.PodPortForward(t, ns, pod.Name, 8000, answers.Listener.Addr().String())
	r := run("serve", "invoke", "bert", "--path", "/v1/completions", "-d", `{"prompt": "Hello"}`).MustSucceed(t)
	if want := `{"method": "POST", "path": "/v1/completions", "type": "application/json", "body": "{\"prompt\": \"Hello\"}"}` + "\n"; r.Stdout != want {
		t.Errorf("invoke: stdout %q, want %q", r.Stdout, want)
	}
	if r = run("serve", "invoke", "bert", "--path", "/fail"); r.Code != 1 || !strings.Contains(r.Stderr, "answered 500 Internal Server Error") || !strings.Contains(r.Stdout, "no model") {
		t.Errorf("invoke of a failing path: exit %d, stdout %q, stderr %q; want 1", r.Code, r.Stdout, r.Stderr)
	}

	// open: the URL of a forward to the serving's ready pod.
	opened := startForwarding(t, env, "-n", ns, "serve", "open", "bert", "--no-browser", "--path", "/v1/models")
	url := opened.line(t)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/v1/models") {
		t.Fatalf("serve open printed %q", url)
	}
	if body := httpGet(t, url, opened); !strings.Contains(body, `"method": "GET", "path": "/v1/models"`) {
		t.Errorf("GET %s through serve open: %q", url, body)
	}

	// logs: every pod's lines under its name; -f follows until interrupted.
	c.PodLog(t, ns, pod.Name, nil).Println("model loaded", "GET /health 200")
	if out := run("serve", "logs", "bert").MustSucceed(t).Stdout; out != "["+pod.Name+"] model loaded\n["+pod.Name+"] GET /health 200\n" {
		t.Errorf("serve logs: %q", out)
	}
	follow := startForwarding(t, env, "-n", ns, "serve", "logs", "bert", "-f", "--tail", "1")
	if line := follow.line(t); line != "["+pod.Name+"] GET /health 200" {
		t.Errorf("serve logs -f: first line %q", line)
	}
	if r := run("serve", "logs", "bert", "--version", "v9"); r.Code != 3 || !strings.Contains(r.Stderr, "serving bert has no version v9") {
		t.Errorf("serve logs --version v9: exit %d, stderr %q", r.Code, r.Stderr)
	}

	// A canary beside v1, promoted; another, rolled back.
	if out := run("serve", "update", "bert", "--image", "example.com/vllm:2", "--canary", "50").MustSucceed(t).Stdout; !strings.Contains(out, "version v2 (1 of 2 replicas, about 50% of the traffic) beside v1 (1)") {
		t.Errorf("update --canary 50: %q", out)
	}
	waitServing(t, run, "bert", "v1 50% v2 50%")
	run("serve", "promote", "bert").MustSucceed(t)
	waitServing(t, run, "bert", "v2 100%")
	svc, err := c.Kube.CoreV1().Services(ns).Get(ctx, "bert", metav1.GetOptions{})
	if err != nil || len(svc.OwnerReferences) != 1 || svc.OwnerReferences[0].Name != "bert-v2" {
		t.Errorf("after promote the Service is owned by %v (%v), want bert-v2", svc.OwnerReferences, err)
	}
	run("serve", "update", "bert", "--image", "example.com/vllm:3", "--canary", "20").MustSucceed(t)
	if r := run("serve", "update", "bert", "--replicas", "3"); r.Code != 2 || !strings.Contains(r.Stderr, "has a canary (v3)") {
		t.Errorf("update during a canary: exit %d, stderr %q", r.Code, r.Stderr)
	}
	run("serve", "rollback", "bert").MustSucceed(t)
	waitServing(t, run, "bert", "v2 100%")
	run("serve", "scale", "bert", "2").MustSucceed(t)
	waitServing(t, run, "bert", "v2 100%")

	// Bad input: exit 2 naming it, nothing created.
	for _, bad := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "create", "Bert", "--image", "x:1", "--", "serve"}, `serving name "Bert"`},
		{[]string{"serve", "create", "p", "--image", "x:1", "--port", "70000", "--", "serve"}, "--port 70000"},
		{[]string{"serve", "create", "p", "--image", "x:1"}, "--framework custom: give the server's command"},
		{[]string{"serve", "create", "p", "--image", "x:1", "--framework", "vllm", "--model-from", "nostore"}, "--model-from nostore: the job was submitted without --storage"},
		{[]string{"serve", "create", "p", "--image", "x:1", "--framework", "vllm", "--backend", "kserve"}, "--backend kserve: the cluster serves no serving.kserve.io"},
	} {
		if kserve && strings.Contains(bad.want, "serves no serving.kserve.io") {
			continue
		}
		r := run(bad.args...)
		if r.Code != 2 || !strings.Contains(r.Stderr, bad.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", bad.args, r.Code, r.Stderr, bad.want)
		}
	}
	if r := run("serve", "get", "p"); r.Code != 3 {
		t.Errorf("a refused serving was created: serve get p exits %d", r.Code)
	}

	// A serving no node can take: --wait says why as soon as it sees it, and exits 5 at --timeout.
	r = run("serve", "create", "stuck", "--image", "example.com/srv:1", "--node-selector", "easyai.io/nosuch=x", "--wait", "--timeout", "15s", "--", "serve")
	if r.Code != 5 || !strings.Contains(r.Stderr, "serving stuck is not ready after 15s: pod stuck-") || !strings.Contains(r.Stderr, "Unschedulable") {
		t.Errorf("stuck: exit %d, stderr %q; want 5 naming Unschedulable", r.Code, r.Stderr)
	}

	// --queue: the pods are Volcano's, in that queue (Volcano's controller
	// groups each, its scheduler places it); a queue the cluster lacks exits
	// 2 where the user may read queues, and is said to be unchecked where not.
	run("serve", "create", "queued", "--image", "example.com/srv:1", "--queue", "default", "--wait", "--timeout", "1m", "--", "serve").MustSucceed(t)
	qpods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/serving=queued"})
	if err != nil || len(qpods.Items) != 1 || qpods.Items[0].Spec.SchedulerName != "volcano" ||
		qpods.Items[0].Annotations["scheduling.volcano.sh/queue-name"] != "default" || qpods.Items[0].Annotations["scheduling.k8s.io/group-name"] == "" {
		t.Errorf("the pods of a serving in queue default: %+v (%v); want Volcano's, grouped, in queue default", qpods, err)
	}
	r = run("serve", "create", "noqueue", "--image", "example.com/srv:1", "--queue", "nosuch", "--", "serve")
	switch {
	case r.Code == 2 && strings.Contains(r.Stderr, `--queue nosuch: the cluster has no Volcano queue "nosuch" (it has: default`):
	case r.Code == 0 && strings.Contains(r.Stderr, "Volcano queue nosuch not checked (you may not read queues.scheduling.volcano.sh"):
		run("serve", "delete", "noqueue", "--yes").MustSucceed(t)
	default:
		t.Errorf("--queue nosuch: exit %d, stderr %q; want 2 naming the queues, or a line saying it was not checked", r.Code, r.Stderr)
	}

	// delete leaves nothing behind.
	ctx = cluster.Context(t, 2*time.Minute)
	for _, name := range []string{"bert", "stuck", "queued"} {
		if out := run("serve", "delete", name, "--yes").MustSucceed(t).Stdout; out != "serving "+name+" deleted from namespace "+ns+"\n" {
			t.Errorf("delete %s: %q", name, out)
		}
		if _, err := c.Kube.CoreV1().Services(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the Service %s is still there: %v", name, err)
		}
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		ds, err0 := c.Kube.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/serving"})
		rs, err1 := c.Kube.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/serving"})
		ps, err2 := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/serving"})
		isvcs := 0
		if kserve {
			l, err := c.Dynamic.Resource(inferenceServices).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			isvcs = len(l.Items)
		}
		if err0 == nil && err1 == nil && err2 == nil && len(ds.Items) == 0 && len(rs.Items) == 0 && len(ps.Items) == 0 && isvcs == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after delete: %d InferenceServices, Deployments %v (%v), ReplicaSets %v (%v), pods %v (%v) remain", isvcs, ds, err0, rs, err1, ps, err2)
		}
		time.Sleep(time.Second)
	}
	if r := run("serve", "get", "bert"); r.Code != 3 {
		t.Errorf("serve get after delete: exit %d", r.Code)
	}
}
