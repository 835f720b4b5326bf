// Package cluster gives end-to-end tests the local development cluster
// (hack/cluster): its clients, a fresh namespace per test, and the knobs of
// its fake nodes that let a test decide what a pod does: when it ends and with
// which exit code, what it prints, what exec runs in, where a port leads.
//
// Tests find the cluster through $KUBECONFIG (make test sets it). When it is
// missing or unreachable the test fails: an end-to-end test never passes by
// skipping.
package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is the running local cluster.
type Cluster struct {
	// Kubeconfig is the path of the admin kubeconfig.
	Kubeconfig string
	Config     *rest.Config
	Kube       kubernetes.Interface
	Dynamic    dynamic.Interface
}

var (
	once      sync.Once
	shared    *Cluster
	sharedErr error
)

// Get returns the cluster named by $KUBECONFIG, failing the test when there is
// none or the API server does not answer.
func Get(t testing.TB) *Cluster {
	t.Helper()
	once.Do(func() { shared, sharedErr = connect(os.Getenv("KUBECONFIG")) })
	if sharedErr != nil {
		t.Fatalf("no local cluster: %v (start one with make cluster-up, then eval \"$(make -s cluster-env)\")", sharedErr)
	}
	return shared
}

func connect(kubeconfig string) (*Cluster, error) {
	if kubeconfig == "" {
		return nil, fmt.Errorf("$KUBECONFIG is not set")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 100, 200
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	if _, err := kube.Discovery().ServerVersion(); err != nil {
		return nil, fmt.Errorf("API server of %s: %w", kubeconfig, err)
	}
	return &Cluster{Kubeconfig: kubeconfig, Config: cfg, Kube: kube, Dynamic: dyn}, nil
}

// Context returns a context that ends with the test, or after timeout.
func Context(t testing.TB, timeout time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

var notDNS = regexp.MustCompile(`[^a-z0-9-]+`)

// Namespace creates a namespace of the test's own, named after it, waits until
// pods can be created in it, and deletes it when the test ends.
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	return c.namespace(t, t.Name(), 40)
}

// ShortNamespace is Namespace, named after the last part of the test's
// name only, in at most 12 characters: for what names things after their
// namespace within 63 characters (KServe's hosts).
func (c *Cluster) ShortNamespace(t testing.TB) string {
	t.Helper()
	name := t.Name()
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	return c.namespace(t, name, 12)
}

func (c *Cluster) namespace(t testing.TB, base string, maxBase int) string {
	t.Helper()
	suffix := make([]byte, 3)
	_, _ = rand.Read(suffix)
	base = strings.Trim(notDNS.ReplaceAllString(strings.ToLower(base), "-"), "-")
	if len(base) > maxBase {
		base = strings.Trim(base[:maxBase], "-")
	}
	name := "e2e-" + base + "-" + hex.EncodeToString(suffix)
	ctx := Context(t, time.Minute)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"test.easyai.io/e2e": "true"}}}
	if _, err := c.Kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	t.Cleanup(func() {
		if os.Getenv("EASYAI_E2E_KEEP") != "" {
			t.Logf("keeping namespace %s (EASYAI_E2E_KEEP is set)", name)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := c.Kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting namespace %s: %v", name, err)
		}
	})
	// Pods are refused until the service-account controller made "default".
	Eventually(t, 30*time.Second, "service account default in "+name, func(ctx context.Context) (bool, error) {
		_, err := c.Kube.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	})
	return name
}

// Eventually polls cond every 200ms until it is true, failing the test with
// what was awaited if timeout passes first or cond returns an error.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func(context.Context) (bool, error)) {
	t.Helper()
	ctx := Context(t, timeout)
	var last error
	err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err != nil && ctx.Err() == nil {
			last = err
			return false, err
		}
		return ok, nil
	})
	if err != nil {
		if last != nil {
			t.Fatalf("waiting for %s: %v", what, last)
		}
		t.Fatalf("waiting for %s: not reached in %s", what, timeout)
	}
}
