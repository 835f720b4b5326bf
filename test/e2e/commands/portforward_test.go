//go:build e2e

package commands

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// forwarding is a running "easyai port-forward" or "easyai open".
type forwarding struct {
	cmd    *exec.Cmd
	stderr *easyai.LockedBuffer
	lines  chan string
	done   chan error
}

// startForwarding runs easyai with args until the test ends; env is added
// to the environment.
func startForwarding(t *testing.T, env []string, args ...string) *forwarding {
	t.Helper()
	cmd := exec.Command(easyai.Binary(t), args...)
	cmd.Env = append(append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1"), env...)
	f := &forwarding{cmd: cmd, stderr: &easyai.LockedBuffer{}, lines: make(chan string, 16), done: make(chan error, 1)}
	cmd.Stderr = f.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			f.lines <- s.Text()
		}
		_, _ = io.Copy(io.Discard, stdout)
		f.done <- cmd.Wait()
	}()
	return f
}

// line waits for the next line of stdout.
func (f *forwarding) line(t *testing.T) string {
	t.Helper()
	select {
	case l := <-f.lines:
		return l
	case err := <-f.done:
		t.Fatalf("%s exited early (%v): %s", f.cmd.Args[1], err, f.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("no line on stdout after 60s; stderr: %s", f.stderr.String())
	}
	return ""
}

// interrupt sends SIGINT and checks the command exits 130.
func (f *forwarding) interrupt(t *testing.T) {
	t.Helper()
	if err := f.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-f.done:
		if code := f.cmd.ProcessState.ExitCode(); code != 130 {
			t.Errorf("after SIGINT %s exited %d (%v), want 130; stderr: %s", f.cmd.Args[1], code, err, f.stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Errorf("%s still running 5s after SIGINT; stderr: %s", f.cmd.Args[1], f.stderr.String())
	}
}

// httpGet gets url and returns the body.
func httpGet(t *testing.T, url string, f *forwarding) string {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v; stderr: %s", url, err, f.stderr.String())
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return string(body)
}

// serve runs an HTTP server answering what, with the query it got.
func serve(t *testing.T, what string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s?%s", what, r.URL.Path, r.URL.RawQuery)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPortForwardReachesAReplica(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)

	srv := serve(t, "tensorboard of worker-0")
	c.PodPortForward(t, ns, "pf-worker-0", 6006, srv.Listener.Addr().String())
	submitTF(t, ns, "pf", "1").MustSucceed(t)
	c.WaitPodPhase(t, ns, "pf-worker-0", string(corev1.PodRunning), 90*time.Second)

	f := startForwarding(t, nil, "port-forward", "pf", ":6006", "-n", ns)
	line := f.line(t)
	url, target, ok := strings.Cut(strings.TrimPrefix(line, "Forwarding "), " -> ")
	if !ok || target != "worker-0:6006" || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("line %q", line)
	}
	if body := httpGet(t, url+"/", f); body != "tensorboard of worker-0 /?" {
		t.Errorf("GET %s = %q", url, body)
	}
	f.interrupt(t)
}

func TestPortForwardFollowsTheReplicaToItsNewPod(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)

	srv := serve(t, "worker-0")
	c.PodPortForward(t, ns, "re-worker-0", 6006, srv.Listener.Addr().String())
	// With restart policy ExitCode, the operator replaces a pod that ended
	// with a retryable code (128 and up) by a new pod of the same name.
	submitTF(t, ns, "re", "1", "--set", "restartPolicy=ExitCode").MustSucceed(t)
	c.WaitPodPhase(t, ns, "re-worker-0", string(corev1.PodRunning), 90*time.Second)
	ctx := cluster.Context(t, 30*time.Second)
	old, err := c.Kube.CoreV1().Pods(ns).Get(ctx, "re-worker-0", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	f := startForwarding(t, nil, "port-forward", "re", ":6006", "-n", ns)
	url, _, _ := strings.Cut(strings.TrimPrefix(f.line(t), "Forwarding "), " -> ")
	if body := httpGet(t, url+"/before", f); body != "worker-0 /before?" {
		t.Fatalf("GET before = %q", body)
	}

	// The pod's process is killed (137): the operator makes a new pod.
	c.EndPod(t, ns, "re-worker-0", 137)
	cluster.Eventually(t, 90*time.Second, "a new running pod for worker-0", func(ctx2 context.Context) (bool, error) {
		p, err := c.Kube.CoreV1().Pods(ns).Get(ctx2, "re-worker-0", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		return p.UID != old.UID && p.Status.Phase == corev1.PodRunning, nil
	})
	cluster.Eventually(t, 60*time.Second, "port-forward reconnected", func(context.Context) (bool, error) {
		return strings.Contains(f.stderr.String(), "Forwarding again to worker-0"), nil
	})
	if body := httpGet(t, url+"/after", f); body != "worker-0 /after?" {
		t.Errorf("GET through the same local port after the pod was replaced = %q; stderr: %s", body, f.stderr.String())
	}
	f.interrupt(t)
}

func TestPortForwardBadPort(t *testing.T) {
	t.Parallel()
	res := easyai.Run(t, "port-forward", "pf", "nope:6006", "-n", "default")
	if res.Code != 2 || !strings.Contains(res.Stderr, `"nope:6006"`) {
		t.Errorf("bad port exited %d with stderr %q; want 2 naming it", res.Code, res.Stderr)
	}
	res = easyai.Run(t, "port-forward")
	if res.Code != 2 || !strings.Contains(res.Stderr, "needs a job") {
		t.Errorf("no job exited %d with stderr %q; want 2 saying it needs one", res.Code, res.Stderr)
	}
}

// fakeBrowser is a $BROWSER that records its command lines (what ps shows
// every user of the host) and, as a browser would, loads the file:// page
// it is given.
func fakeBrowser(t *testing.T) (env string, opened func() (argv, page string)) {
	t.Helper()
	dir := t.TempDir()
	log, loaded := filepath.Join(dir, "opened"), filepath.Join(dir, "loaded")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncase \"$1\" in file://*) cat \"${1#file://}\" > "+loaded+".tmp && mv "+loaded+".tmp "+loaded+";; esac\necho \"$@\" >> "+log+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	return "BROWSER=" + script, func() (string, string) {
		mu.Lock()
		defer mu.Unlock()
		argv, _ := os.ReadFile(log)
		page, _ := os.ReadFile(loaded)
		return string(argv), string(page)
	}
}

func TestOpenForwardsANamedEndpointAndLogsInWithItsToken(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	ctx := cluster.Context(t, 30*time.Second)

	jupyter, tensorboard := serve(t, "jupyter"), serve(t, "tensorboard")
	c.PodPortForward(t, ns, "nb-master-0", 8888, jupyter.Listener.Addr().String())
	c.PodPortForward(t, ns, "nb-worker-0", 6006, tensorboard.Listener.Addr().String())
	master, worker := replica(1, 0, 0, "pytorch"), replica(1, 0, 0, "pytorch")
	worker.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "tensorboard", ContainerPort: 6006}}
	pj := &kubeflowv1.PyTorchJob{
		ObjectMeta: metav1.ObjectMeta{Name: "nb", Namespace: ns, Labels: labels("nb", "pytorch", "alice", ""),
			Annotations: map[string]string{jobmodel.EndpointsAnnotation: `{"jupyter":{"port":8888,"path":"/lab","tokenSecret":"nb-jupyter"}}`}},
		Spec: kubeflowv1.PyTorchJobSpec{PyTorchReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.PyTorchJobReplicaTypeMaster: master,
			kubeflowv1.PyTorchJobReplicaTypeWorker: worker,
		}},
	}
	created, err := kf.KubeflowV1().PyTorchJobs(ns).Create(ctx, pj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The token's Secret is the job's (an ownerReference with its uid);
	// nb-other is not, and the service account token is never taken.
	owner := metav1.OwnerReference{APIVersion: "kubeflow.org/v1", Kind: "PyTorchJob", Name: "nb", UID: created.UID}
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Name: "nb-jupyter", OwnerReferences: []metav1.OwnerReference{owner}},
			Data: map[string][]byte{jobmodel.TokenSecretKey: []byte("t0ken-42")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "nb-other"},
			Data: map[string][]byte{jobmodel.TokenSecretKey: []byte("other-t0ken")}},
		{ObjectMeta: metav1.ObjectMeta{Name: "nb-sa-token", OwnerReferences: []metav1.OwnerReference{owner},
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}},
			Type: corev1.SecretTypeServiceAccountToken, Data: map[string][]byte{jobmodel.TokenSecretKey: []byte("sa-t0ken")}},
	} {
		if _, err := c.Kube.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	c.WaitPodPhase(t, ns, "nb-master-0", string(corev1.PodRunning), 90*time.Second)
	c.WaitPodPhase(t, ns, "nb-worker-0", string(corev1.PodRunning), 90*time.Second)

	// Jupyter, from the endpoints annotation: the browser gets the token,
	// through a private redirect page; stdout and the browser's command line
	// do not.
	browser, opened := fakeBrowser(t)
	f := startForwarding(t, []string{browser}, "open", "nb", "jupyter", "-n", ns)
	url := f.line(t)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/lab") {
		t.Fatalf("open printed %q", url)
	}
	if body := httpGet(t, url, f); body != "jupyter /lab?" {
		t.Errorf("GET %s = %q", url, body)
	}
	cluster.Eventually(t, 20*time.Second, "the browser opened", func(context.Context) (bool, error) {
		argv, page := opened()
		return argv != "" && page != "", nil
	})
	argv, page := opened()
	argv = strings.TrimSpace(argv)
	if strings.Contains(argv, "t0ken-42") || !strings.HasPrefix(argv, "file://") || !strings.HasSuffix(argv, "/open.html") {
		t.Errorf("the browser's command line is %q, want a file:// page without the token", argv)
	}
	if !strings.Contains(page, `location.replace("`+url+`?token=t0ken-42")`) {
		t.Errorf("the page the browser loaded does not send it to %s with the token:\n%s", url, page)
	}
	if strings.Contains(f.stderr.String(), "t0ken-42") {
		t.Errorf("the token is on stderr: %s", f.stderr.String())
	}
	f.interrupt(t)
	if _, err := os.Stat(strings.TrimPrefix(argv, "file://")); !os.IsNotExist(err) {
		t.Errorf("the redirect page is still there after open ended: %v", err)
	}

	// TensorBoard, a named container port of worker-0; no browser.
	f = startForwarding(t, nil, "open", "nb", "tensorboard", "-n", ns, "--no-browser")
	url = f.line(t)
	if body := httpGet(t, url, f); body != "tensorboard /?" {
		t.Errorf("GET %s = %q", url, body)
	}
	if !strings.Contains(f.stderr.String(), `container port "tensorboard" of worker-0`) {
		t.Errorf("stderr does not say where the port is: %s", f.stderr.String())
	}
	f.interrupt(t)

	res := easyai.Run(t, "open", "nb", "grafana", "-n", ns)
	// pytorchjob-port is the operator's own port on the master.
	if res.Code != 3 || !strings.Contains(res.Stderr, "it has jupyter, pytorchjob-port, tensorboard") {
		t.Errorf("an endpoint the job does not have: exit %d, stderr %q", res.Code, res.Stderr)
	}

	// An endpoint pointed at a Secret the job does not own, or at a service
	// account's token, by whoever may patch the job: refused, naming it.
	if _, err := kf.KubeflowV1().PyTorchJobs(ns).Patch(cluster.Context(t, 30*time.Second), "nb", types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+jobmodel.EndpointsAnnotation+`":`+
		strconv.Quote(`{"jupyter":{"port":8888,"path":"/lab","tokenSecret":"nb-jupyter"},"other":{"port":8888,"tokenSecret":"nb-other"},"sa":{"port":8888,"tokenSecret":"nb-sa-token"}}`)+`}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"other": "Secret nb-other, named by the easyai.io/endpoints annotation of job nb, is not owned by the job",
		"sa":    "Secret nb-sa-token, named by the easyai.io/endpoints annotation of job nb, is a service account token",
	} {
		browser, opened := fakeBrowser(t)
		res := easyai.RunWith(t, []string{browser}, "open", "nb", name, "-n", ns)
		argv, _ := opened()
		if res.Code != 1 || !strings.Contains(res.Stderr, want) || strings.Contains(res.Stdout+res.Stderr, "t0ken") || argv != "" {
			t.Errorf("open nb %s: exit %d, stdout %q, stderr %q, browser %q; want exit 1 saying %q", name, res.Code, res.Stdout, res.Stderr, argv, want)
		}
	}
}
