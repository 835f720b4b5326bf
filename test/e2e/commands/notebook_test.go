//go:build e2e

package commands

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// notebookState is the STATE of notebook name in "notebook list".
func notebookState(t *testing.T, env []string, ns, name string) string {
	t.Helper()
	res := easyai.RunWith(t, env, "notebook", "list", "-n", ns, "-o", "json").MustSucceed(t)
	var l struct {
		Items []struct {
			Name   string
			Status struct{ State string }
		}
	}
	if err := json.Unmarshal([]byte(res.Stdout), &l); err != nil {
		t.Fatalf("notebook list -o json: %v\n%s", err, res.Stdout)
	}
	for _, it := range l.Items {
		if it.Name == name {
			return it.Status.State
		}
	}
	return ""
}

func tokenOf(t *testing.T, c *cluster.Cluster, ns, secret string) (string, string) {
	t.Helper()
	s, err := c.Kube.CoreV1().Secrets(ns).Get(cluster.Context(t, 30*time.Second), secret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := ""
	if len(s.OwnerReferences) == 1 {
		owner = string(s.OwnerReferences[0].UID)
	}
	return string(s.Data["token"]), owner
}

// TestNotebookLifecycle: a namespace's user creates a notebook, which runs
// Jupyter with the workspaces mounted and cpu and memory overcommitted;
// lists, opens, stops, starts it, starts it again once Jupyter ended it
// (idle), and deletes it.
func TestNotebookLifecycle(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	c.BoundClaim(t, ns, "team-data")
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	pod := "nb-master-0"
	c.PodPortForward(t, ns, pod, 8888, serve(t, "jupyter").Listener.Addr().String())

	res := easyai.RunWith(t, alice, "notebook", "create", "nb", "--gpus", "1", "--storage", "pvc:team-data",
		"--idle-timeout", "1h", "--max-duration", "24h", "--image", "example.com/notebook:1").MustSucceed(t)
	if !strings.Contains(res.Stdout, "notebook nb created in namespace "+ns) || !strings.Contains(res.Stderr, "easyai notebook open nb") {
		t.Errorf("create: stdout %q, stderr %q", res.Stdout, res.Stderr)
	}

	// The pod as the API server stored it.
	p := podOf(t, c, ns, pod)
	main := p.Spec.Containers[0]
	r := main.Resources
	for what, pair := range map[string][2]resource.Quantity{
		"cpu":    {r.Requests[corev1.ResourceCPU], resource.MustParse("500m")},
		"memory": {r.Requests[corev1.ResourceMemory], resource.MustParse("2Gi")},
	} {
		if pair[0].Cmp(pair[1]) != 0 {
			t.Errorf("%s requested %s, want %s (a quarter of the limit)", what, pair[0].String(), pair[1].String())
		}
	}
	if q := r.Limits["nvidia.com/gpu"]; q.Value() != 1 {
		t.Errorf("GPU limit %s, want 1", q.String())
	}
	if q, ok := r.Requests["nvidia.com/gpu"]; ok && q.Value() != 1 {
		t.Errorf("GPUs requested %s: never overcommitted", q.String())
	}
	mounts := map[string]string{}
	for _, m := range main.VolumeMounts {
		mounts[m.MountPath] = m.SubPath
	}
	if mounts["/notebooks/home"] != "notebook/alice" || mounts["/notebooks/public"] != "notebook/public" {
		t.Errorf("workspaces mounted %v, want notebook/alice at /notebooks/home and notebook/public at /notebooks/public", mounts)
	}
	argv := strings.Join(main.Command, " ")
	if !strings.Contains(argv, "jupyter lab --ip=0.0.0.0 --port=8888") || !strings.Contains(argv, "--ServerApp.shutdown_no_activity_timeout=3600") {
		t.Errorf("the notebook runs %q", argv)
	}
	token, owner := tokenOf(t, c, ns, "nb-jupyter")
	job, err := c.Dynamic.Resource(pyTorchJobResource).Namespace(ns).Get(cluster.Context(t, 30*time.Second), "nb", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if owner != string(job.GetUID()) || len(token) != 64 {
		t.Errorf("Secret nb-jupyter: owner %q (job %s), token of %d characters", owner, job.GetUID(), len(token))
	}
	if d, _, _ := unstructuredInt(job.Object, "spec", "runPolicy", "activeDeadlineSeconds"); d != 86400 {
		t.Errorf("activeDeadlineSeconds %d, want 86400 (--max-duration 24h)", d)
	}

	c.WaitPodPhase(t, ns, pod, string(corev1.PodRunning), 90*time.Second)
	// The operator marks the job Running shortly after its pod.
	cluster.Eventually(t, 60*time.Second, "notebook list says nb runs", func(context.Context) (bool, error) {
		return notebookState(t, alice, ns, "nb") == "Running", nil
	})
	res = easyai.RunWith(t, alice, "notebook", "list", "-n", ns).MustSucceed(t)
	if !strings.HasPrefix(res.Stdout, "nb\tRunning\t1\talice\t") || strings.Contains(res.Stdout, "invalid") {
		t.Errorf("notebook list: %q", res.Stdout)
	}

	// open: the browser gets the token; stdout does not.
	browser, opened := fakeBrowser(t)
	f := startForwarding(t, append([]string{browser}, alice...), "notebook", "open", "nb", "-n", ns)
	url := f.line(t)
	if body := httpGet(t, url, f); body != "jupyter /lab?" {
		t.Errorf("GET %s = %q", url, body)
	}
	cluster.Eventually(t, 20*time.Second, "the browser opened", func(context.Context) (bool, error) {
		argv, page := opened()
		return argv != "" && page != "", nil
	})
	if _, page := opened(); !strings.Contains(page, "?token="+token) || strings.Contains(url+f.stderr.String(), token) {
		t.Errorf("open: url %q, page %q", url, page)
	}
	f.interrupt(t)

	// stop: the pod goes, the notebook stays.
	res = easyai.RunWith(t, alice, "notebook", "stop", "nb", "-n", ns, "--wait").MustSucceed(t)
	if !strings.Contains(res.Stdout, "stopped notebook nb") {
		t.Errorf("stop: %q", res.Stdout)
	}
	waitPodGone(t, c, ns, pod)
	if got := notebookState(t, alice, ns, "nb"); got != "Suspended" {
		t.Errorf("a stopped notebook's state is %q, want Suspended", got)
	}
	res = easyai.RunWith(t, alice, "notebook", "list", "-n", ns).MustSucceed(t)
	if !strings.HasPrefix(res.Stdout, "nb\tStopped\t") {
		t.Errorf("notebook list of a stopped notebook: %q", res.Stdout)
	}

	// start: a new pod.
	res = easyai.RunWith(t, alice, "notebook", "start", "nb", "-n", ns, "--wait").MustSucceed(t)
	if !strings.Contains(res.Stdout, "started notebook nb") {
		t.Errorf("start: %q", res.Stdout)
	}
	c.WaitPodPhase(t, ns, pod, string(corev1.PodRunning), 90*time.Second)
	if res := easyai.RunWith(t, alice, "notebook", "start", "nb", "-n", ns); res.Code != 1 || !strings.Contains(res.Stderr, "is Running already") {
		t.Errorf("start of a running notebook: exit %d, %q", res.Code, res.Stderr)
	}

	// Jupyter shuts down idle (exit 0): the notebook ends; start creates
	// it again, with a new token.
	c.EndPod(t, ns, pod, 0)
	cluster.Eventually(t, 90*time.Second, "the notebook ended", func(context.Context) (bool, error) {
		return notebookState(t, alice, ns, "nb") == "Succeeded", nil
	})
	res = easyai.RunWith(t, alice, "notebook", "start", "nb", "-n", ns, "--wait").MustSucceed(t)
	if !strings.Contains(res.Stderr, "had ended: creating it again") {
		t.Errorf("start of an ended notebook: %q", res.Stderr)
	}
	c.WaitPodPhase(t, ns, pod, string(corev1.PodRunning), 90*time.Second)
	again, owner := tokenOf(t, c, ns, "nb-jupyter")
	job, err = c.Dynamic.Resource(pyTorchJobResource).Namespace(ns).Get(cluster.Context(t, 30*time.Second), "nb", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again == token || owner != string(job.GetUID()) {
		t.Errorf("the notebook made again: new token %v, Secret owned by %q (job %s)", again != token, owner, job.GetUID())
	}
	p = podOf(t, c, ns, pod)
	if q := p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory]; q.Cmp(resource.MustParse("2Gi")) != 0 || p.Labels["easyai.io/notebook"] != "true" {
		t.Errorf("the notebook made again: memory requested %s, labels %v", q.String(), p.Labels)
	}

	// delete: the job and its Secret go.
	easyai.RunWith(t, alice, "notebook", "delete", "nb", "-n", ns, "--yes").MustSucceed(t)
	cluster.Eventually(t, 60*time.Second, "nb and its Secret are deleted", func(ctx context.Context) (bool, error) {
		_, err := c.Dynamic.Resource(pyTorchJobResource).Namespace(ns).Get(ctx, "nb", metav1.GetOptions{})
		_, serr := c.Kube.CoreV1().Secrets(ns).Get(ctx, "nb-jupyter", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && apierrors.IsNotFound(serr), nil
	})
}

// TestNotebookBadInput: no storage, a job that is not a notebook.
func TestNotebookBadInput(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	res := easyai.Run(t, "notebook", "create", "nb", "-n", ns)
	if res.Code != 2 || !strings.Contains(res.Stderr, "a notebook keeps its workspace on the team's storage: give --storage") {
		t.Errorf("create without storage: exit %d, %q", res.Code, res.Stderr)
	}
	submitTF(t, ns, "plain", "1").MustSucceed(t)
	easyai.Run(t, "submit", "pytorch", "-n", ns, "--name", "pt", "--image", "img", "--", "python", "t.py").MustSucceed(t)
	for verb, extra := range map[string]string{"stop": "--wait=false", "start": "--wait=false", "delete": "--yes", "open": "--no-browser"} {
		res := easyai.Run(t, "notebook", verb, "pt", "-n", ns, extra)
		if res.Code != 2 || !strings.Contains(res.Stderr, "pt is not a notebook") {
			t.Errorf("notebook %s of a job that is not one: exit %d, %q", verb, res.Code, res.Stderr)
		}
	}
}

func waitPodGone(t *testing.T, c *cluster.Cluster, ns, pod string) {
	t.Helper()
	cluster.Eventually(t, 90*time.Second, "pod "+pod+" deleted", func(ctx context.Context) (bool, error) {
		_, err := c.Kube.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

func unstructuredInt(obj map[string]any, fields ...string) (int64, bool, error) {
	var v any = obj
	for _, f := range fields {
		m, ok := v.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		v = m[f]
	}
	switch n := v.(type) {
	case int64:
		return n, true, nil
	case float64:
		return int64(n), true, nil
	}
	return 0, false, nil
}

// notebook start of an ended notebook deletes its token's Secret only when
// it is the notebook's: a Secret of the same name that someone else made
// (not owned by the notebook's job) stays, and nothing is deleted.
func TestNotebookStartLeavesSomeoneElsesSecret(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	c.BoundClaim(t, ns, "team-data")
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	easyai.RunWith(t, alice, "notebook", "create", "nb", "--storage", "pvc:team-data", "--image", "example.com/notebook:1").MustSucceed(t)
	c.WaitPodPhase(t, ns, "nb-master-0", string(corev1.PodRunning), 90*time.Second)
	c.EndPod(t, ns, "nb-master-0", 0)
	cluster.Eventually(t, 90*time.Second, "the notebook ended", func(context.Context) (bool, error) {
		return notebookState(t, alice, ns, "nb") == "Succeeded", nil
	})

	// A teammate's Secret under the token's name, owned by nothing.
	ctx := cluster.Context(t, time.Minute)
	if err := c.Kube.CoreV1().Secrets(ns).Delete(ctx, "nb-jupyter", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	theirs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "nb-jupyter"}, StringData: map[string]string{"token": "bobs"}}
	if _, err := c.Kube.CoreV1().Secrets(ns).Create(ctx, theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	res := easyai.RunWith(t, alice, "notebook", "start", "nb", "-n", ns)
	if res.Code != 1 || !strings.Contains(res.Stderr, "Secret nb-jupyter is not notebook nb's") {
		t.Errorf("start over someone else's Secret: exit %d, stderr %q", res.Code, res.Stderr)
	}
	s, err := c.Kube.CoreV1().Secrets(ns).Get(ctx, "nb-jupyter", metav1.GetOptions{})
	if err != nil || string(s.Data["token"]) != "bobs" {
		t.Errorf("the teammate's Secret: %v, %q", err, s.Data["token"])
	}
	if got := notebookState(t, alice, ns, "nb"); got != "Succeeded" {
		t.Errorf("the ended notebook is %q after the refused start; want it untouched (Succeeded)", got)
	}
}
