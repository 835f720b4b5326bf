//go:build e2e

package commands

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// TestWebToolsOfAJob: a namespace's user submits a job with TensorBoard,
// Jupyter Lab and code-server; what submit makes beside the job is owned
// by it; open forwards to each (TensorBoard through its Service's pod) and
// logs the browser in with the generated token, never printing it; deleting
// the job deletes them all.
func TestWebToolsOfAJob(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	c.BoundClaim(t, ns, "team-data")
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}

	jupyter, codeServer, tensorboard := serve(t, "jupyter"), serve(t, "code-server"), serve(t, "tensorboard")
	c.PodPortForwards(t, ns, "wt-worker-0", map[int32]string{8888: jupyter.Listener.Addr().String(), 13337: codeServer.Listener.Addr().String()})
	// The same forward in worker-1, where the sidecars only wait: open must
	// not go there.
	c.PodPortForward(t, ns, "wt-worker-1", 8888, serve(t, "the wrong replica").Listener.Addr().String())

	res := easyai.RunWith(t, alice, "submit", "tf", "--name", "wt", "--workers", "2", "--image", "example.com/train:1",
		"--storage", "pvc:team-data", "--tensorboard", "--jupyter", "--code-server", "--", "python", "train.py").MustSucceed(t)
	if !strings.Contains(res.Stderr, "Made beside the job, owned by it: secret/wt-jupyter, secret/wt-code-server, deployment/wt-tensorboard, service/wt-tensorboard") {
		t.Errorf("submit does not say what it made beside the job: %s", res.Stderr)
	}

	ctx := cluster.Context(t, 60*time.Second)
	job, err := c.Dynamic.Resource(tfJobs).Namespace(ns).Get(ctx, "wt", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	endpoints, err := jobmodel.Endpoints(job.GetAnnotations())
	if err != nil || endpoints["tensorboard"].Service != "wt-tensorboard" || endpoints["jupyter"].TokenSecret != "wt-jupyter" || endpoints["code-server"].Login != "password" {
		t.Errorf("the endpoints annotation: %+v, %v", endpoints, err)
	}
	owned := func(kind, name string, refs []metav1.OwnerReference) {
		t.Helper()
		if len(refs) != 1 || refs[0].UID != job.GetUID() || refs[0].Kind != "TFJob" {
			t.Errorf("%s %s is owned by %+v, want TFJob wt (uid %s)", kind, name, refs, job.GetUID())
		}
	}
	tokens := map[string]string{}
	for _, name := range []string{"wt-jupyter", "wt-code-server"} {
		s, err := c.Kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		owned("Secret", name, s.OwnerReferences)
		tokens[name] = string(s.Data[jobmodel.TokenSecretKey])
		if len(tokens[name]) != 64 {
			t.Errorf("Secret %s holds a token of %d characters, want 64", name, len(tokens[name]))
		}
	}
	deploy, err := c.Kube.AppsV1().Deployments(ns).Get(ctx, "wt-tensorboard", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owned("Deployment", "wt-tensorboard", deploy.OwnerReferences)
	svc, err := c.Kube.CoreV1().Services(ns).Get(ctx, "wt-tensorboard", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owned("Service", "wt-tensorboard", svc.OwnerReferences)
	if m := deploy.Spec.Template.Spec.Containers[0].VolumeMounts; len(m) != 1 || m[0].SubPath != job.GetAnnotations()[jobmodel.JobDirAnnotation] || !m[0].ReadOnly {
		t.Errorf("TensorBoard mounts %+v, want the job's directory read-only", m)
	}

	// The sidecars, as the API server stored them: in the workers' pods,
	// their tokens from the Secrets.
	pod := podOf(t, c, ns, "wt-worker-0")
	sidecars := map[string]corev1.Container{}
	for _, ic := range pod.Spec.InitContainers {
		sidecars[ic.Name] = ic
	}
	for name, secret := range map[string]string{"easyai-jupyter": "wt-jupyter", "easyai-code-server": "wt-code-server"} {
		ic, ok := sidecars[name]
		if !ok || ic.RestartPolicy == nil || *ic.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			t.Errorf("wt-worker-0 has no sidecar %s: %+v", name, pod.Spec.InitContainers)
			continue
		}
		found := false
		for _, e := range ic.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == secret {
				found = true
			}
			if strings.Contains(e.Value, tokens[secret]) {
				t.Errorf("the token of %s is in the pod spec", secret)
			}
		}
		if !found {
			t.Errorf("sidecar %s does not read its token from Secret %s: %+v", name, secret, ic.Env)
		}
	}

	c.WaitPodPhase(t, ns, "wt-worker-0", string(corev1.PodRunning), 90*time.Second)
	var tbPod string
	cluster.Eventually(t, 90*time.Second, "TensorBoard's pod runs", func(ctx context.Context) (bool, error) {
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "easyai.io/job-name=wt,easyai.io/role=tensorboard"})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning {
				tbPod = p.Name
				return true, nil
			}
		}
		return false, nil
	})
	c.PodPortForward(t, ns, tbPod, 6006, tensorboard.Listener.Addr().String())

	// Jupyter: the browser gets the token through a private page; stdout,
	// stderr and the browser's command line do not.
	browser, opened := fakeBrowser(t)
	f := startForwarding(t, append([]string{browser}, alice...), "open", "wt", "jupyter", "-n", ns)
	url := f.line(t)
	if body := httpGet(t, url, f); body != "jupyter /lab?" {
		t.Errorf("GET %s = %q", url, body)
	}
	cluster.Eventually(t, 20*time.Second, "the browser opened", func(context.Context) (bool, error) {
		argv, page := opened()
		return argv != "" && page != "", nil
	})
	argv, page := opened()
	if !strings.Contains(page, `location.replace("`+url+`?token=`+tokens["wt-jupyter"]+`")`) {
		t.Errorf("the page does not log the browser in to %s:\n%s", url, page)
	}
	if strings.Contains(argv+url+f.stderr.String(), tokens["wt-jupyter"]) {
		t.Errorf("the token was shown: argv %q, url %q, stderr %q", argv, url, f.stderr.String())
	}
	f.interrupt(t)

	// code-server: the page posts the password to its login form.
	browser, opened = fakeBrowser(t)
	f = startForwarding(t, append([]string{browser}, alice...), "open", "wt", "code-server", "-n", ns)
	url = f.line(t)
	if body := httpGet(t, url, f); body != "code-server /?" {
		t.Errorf("GET %s = %q", url, body)
	}
	cluster.Eventually(t, 20*time.Second, "the browser opened", func(context.Context) (bool, error) {
		argv, page := opened()
		return argv != "" && page != "", nil
	})
	_, page = opened()
	if !strings.Contains(page, `action="`+url+`login"`) || !strings.Contains(page, `name="password" value="`+tokens["wt-code-server"]+`"`) {
		t.Errorf("the page does not post the password to %slogin:\n%s", url, page)
	}
	f.interrupt(t)

	// --show-token prints the URL with the token, for a browser easyai
	// cannot start.
	f = startForwarding(t, alice, "open", "wt", "jupyter", "-n", ns, "--no-browser", "--show-token")
	if url := f.line(t); !strings.HasSuffix(url, "/lab?token="+tokens["wt-jupyter"]) {
		t.Errorf("--show-token printed %q", url)
	}
	f.interrupt(t)

	// TensorBoard: the pod behind the Service.
	f = startForwarding(t, alice, "open", "wt", "tensorboard", "-n", ns, "--no-browser")
	url = f.line(t)
	if body := httpGet(t, url, f); body != "tensorboard /?" {
		t.Errorf("GET %s = %q", url, body)
	}
	if !strings.Contains(f.stderr.String(), "port 6006 of service wt-tensorboard") {
		t.Errorf("stderr does not say it forwards to the Service's pod: %s", f.stderr.String())
	}
	f.interrupt(t)

	// Deleting the job deletes what was made beside it.
	easyai.RunWith(t, alice, "delete", "wt", "-n", ns, "--yes").MustSucceed(t)
	cluster.Eventually(t, 90*time.Second, "the objects beside wt are deleted", func(ctx context.Context) (bool, error) {
		for _, get := range []func() error{
			func() error {
				_, err := c.Kube.CoreV1().Secrets(ns).Get(ctx, "wt-jupyter", metav1.GetOptions{})
				return err
			},
			func() error {
				_, err := c.Kube.CoreV1().Secrets(ns).Get(ctx, "wt-code-server", metav1.GetOptions{})
				return err
			},
			func() error {
				_, err := c.Kube.AppsV1().Deployments(ns).Get(ctx, "wt-tensorboard", metav1.GetOptions{})
				return err
			},
			func() error {
				_, err := c.Kube.CoreV1().Services(ns).Get(ctx, "wt-tensorboard", metav1.GetOptions{})
				return err
			},
		} {
			if err := get(); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
}

// TestWebToolsBadInput: what cannot work exits 2 and creates nothing.
func TestWebToolsBadInput(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"submit", "tf", "--name", "tb", "--image", "img", "--tensorboard", "--", "python", "t.py"}, "--tensorboard reads the job's summary_dir on its storage: add --storage"},
		{[]string{"submit", "trainjob", "--name", "tj", "--runtime", "torch-distributed", "--image", "img", "--jupyter", "--", "python", "t.py"}, "devtools.jupyter: a TrainJob cannot run it"},
	} {
		res := easyai.Run(t, append(tt.args, "-n", ns)...)
		if res.Code != 2 || !strings.Contains(res.Stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", tt.args, res.Code, res.Stderr, tt.want)
		}
	}
	ctx := cluster.Context(t, 30*time.Second)
	if s, err := c.Kube.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: jobmodel.NameLabel}); err != nil || len(s.Items) != 0 {
		t.Errorf("Secrets left behind: %v, %v", s, err)
	}
}
