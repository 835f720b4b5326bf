//go:build e2e

package commands

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// restrictedNamespace is a fresh namespace where Pod Security admission
// enforces the "restricted" level; it checks that a pod that violates it is
// refused.
func restrictedNamespace(t *testing.T, c *cluster.Cluster) string {
	t.Helper()
	ns := c.Namespace(t)
	patch := `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/enforce-version":"latest"}}}`
	ctx := cluster.Context(t, 30*time.Second)
	if _, err := c.Kube.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// A pod as the fetcher was before it had a securityContext.
	plain := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: ns},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36", Command: []string{"sleep", "60"}}}},
	}
	_, err := c.Kube.CoreV1().Pods(ns).Create(ctx, plain, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `violates PodSecurity "restricted:latest"`) {
		t.Fatalf("Pod Security admission does not enforce restricted in %s: creating a plain pod: %v", ns, err)
	}
	return ns
}

// The fetcher pod passes Pod Security "restricted". The job's own pods do
// not (the charts set no securityContext): the operator's pod creations are
// refused, the job's replicas have no pod, and their storage is read
// through the fetcher.
func TestDownloadThroughTheFetcherInARestrictedNamespace(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := restrictedNamespace(t, c)
	c.BoundClaim(t, ns, "results")
	remote := fillOutputs(t, c.NamespaceExecDir(t, ns), "run-1")
	submitTF(t, ns, "locked", "1", "--data", "results:/mnt/results").MustSucceed(t)
	cluster.Eventually(t, 60*time.Second, "the operator refused to create the pods of tf/locked", func(ctx context.Context) (bool, error) {
		events, err := c.Kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range events.Items {
			if strings.Contains(e.Message, "violates PodSecurity") {
				return true, nil
			}
		}
		return false, nil
	})

	local := filepath.Join(t.TempDir(), "local")
	res := easyai.Run(t, "download", "locked", "/mnt/results/run-1", local, "-n", ns, "--fetcher-timeout", "60s").MustSucceed(t)
	sameTree(t, remote, filepath.Join(local, "run-1"))
	for _, want := range []string{
		"The pod of tf/locked's replica worker-0 is gone: fetching /mnt/results/run-1 from claim results through a fetcher pod\n",
		"Downloaded 7 files, 3.0 MiB from results:/mnt/results/run-1 to " + local + " in ",
	} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr %q\nwant %q in it", res.Stderr, want)
		}
	}
	waitNoFetcher(t, c, ns)
}

func waitNoFetcher(t *testing.T, c *cluster.Cluster, ns string) {
	t.Helper()
	cluster.Eventually(t, 30*time.Second, "the fetcher pod deleted", func(ctx context.Context) (bool, error) {
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: jobmodel.RoleLabel + "=" + jobmodel.RoleFetcher})
		if err != nil {
			return false, err
		}
		return len(pods.Items) == 0, nil
	})
}

// A closed terminal (SIGHUP) stops a download as Ctrl-C does: the fetcher
// pod it made is deleted and easyai exits 130.
func TestDownloadDeletesItsFetcherOnSIGHUP(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	c.BoundClaim(t, ns, "results")
	// No node has the label: the fetcher, placed where the job's pods may
	// run, stays pending while easyai waits for it.
	submitTF(t, ns, "hup", "1", "--data", "results:/mnt/results", "--node-selector", "test.easyai.io/none=none").MustSucceed(t)

	cmd := exec.Command(easyai.Binary(t), "download", "hup", "/mnt/results", t.TempDir(), "-n", ns, "--fetcher-timeout", "90s")
	cmd.Env = append(cmd.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_COLOR=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() { _ = cmd.Process.Kill() }()
	cluster.Eventually(t, 60*time.Second, "a pending fetcher pod", func(ctx context.Context) (bool, error) {
		pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: jobmodel.RoleLabel + "=" + jobmodel.RoleFetcher})
		if err != nil {
			return false, err
		}
		return len(pods.Items) == 1 && pods.Items[0].Status.Phase == corev1.PodPending, nil
	})
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) || exitErr.ExitCode() != 130 || !strings.HasSuffix(stderr.String(), "Interrupted.\n") {
			t.Errorf("after SIGHUP: %v, stderr %q; want exit 130", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("download still running 30s after SIGHUP; stderr %q", stderr.String())
	}
	waitNoFetcher(t, c, ns)
}
