package cluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Annotations and env vars read by the cluster's easyai-pod-exit kwok Stage
// (hack/cluster/manifests/stages.yaml).
const (
	ExitCodeAnnotation = "test.easyai.io/exit-code"
	RunForAnnotation   = "test.easyai.io/run-for"
	ExitCodeEnv        = "EASYAI_TEST_EXIT_CODE"
	RunForEnv          = "EASYAI_TEST_RUN_FOR"
)

// ExitAfter returns the pod annotations that make a running pod's containers
// end with code after running for d.
func ExitAfter(code int, d time.Duration) map[string]string {
	return map[string]string{ExitCodeAnnotation: strconv.Itoa(code), RunForAnnotation: d.String()}
}

// EndPod makes a running pod end now with the exit code, as if its process
// exited.
func (c *Cluster) EndPod(t testing.TB, namespace, pod string, code int) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q,%q:"0s"}}}`, ExitCodeAnnotation, strconv.Itoa(code), RunForAnnotation)
	ctx := Context(t, 30*time.Second)
	if _, err := c.Kube.CoreV1().Pods(namespace).Patch(ctx, pod, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("ending pod %s/%s: %v", namespace, pod, err)
	}
}

var kwokGroup = "kwok.x-k8s.io"

func kwokResource(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: kwokGroup, Version: "v1alpha1", Resource: resource}
}

// applyKwok creates (or replaces) a namespaced kwok object named like the pod
// it configures; kwok prefers such per-pod objects over cluster-wide ones.
func (c *Cluster) applyKwok(t testing.TB, resource, kind, namespace, pod string, spec map[string]any) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kwokGroup + "/v1alpha1",
		"kind":       kind,
		"metadata":   map[string]any{"name": pod, "namespace": namespace},
		"spec":       spec,
	}}
	ctx := Context(t, 30*time.Second)
	client := c.Dynamic.Resource(kwokResource(resource)).Namespace(namespace)
	_, err := client.Create(ctx, obj, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		var current *unstructured.Unstructured
		if current, err = client.Get(ctx, pod, metav1.GetOptions{}); err == nil {
			obj.SetResourceVersion(current.GetResourceVersion())
			_, err = client.Update(ctx, obj, metav1.UpdateOptions{})
		}
	}
	if err != nil {
		t.Fatalf("setting kwok %s for pod %s/%s: %v", kind, namespace, pod, err)
	}
}

// Log is what a fake pod's containers print: a file in the CRI log format that
// kwok serves for "kubectl logs", also while it grows (follow).
type Log struct {
	mu   sync.Mutex
	path string
	t    testing.TB
}

// PodLog makes the pod's containers print what the test writes to the returned
// Log, from now on and also before the pod exists (kwok finds the Logs object
// by the pod's name). previous, when not nil, is served for --previous.
func (c *Cluster) PodLog(t testing.TB, namespace, pod string, previous *Log) *Log {
	t.Helper()
	l := newLog(t, pod)
	entry := map[string]any{"logsFile": l.path, "follow": true}
	if previous != nil {
		entry["previousLogsFile"] = previous.path
	}
	c.applyKwok(t, "logs", "Logs", namespace, pod, map[string]any{"logs": []any{entry}})
	return l
}

// NewLog returns a log file not yet attached to a pod (e.g. to pass as the
// previous run's log to PodLog).
func NewLog(t testing.TB, name string) *Log { return newLog(t, name) }

func newLog(t testing.TB, name string) *Log {
	t.Helper()
	f, err := os.CreateTemp(t.TempDir(), name+"-*.log")
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	return &Log{path: f.Name(), t: t}
}

// Println appends lines to the log, each stamped with the current time, on
// stdout.
func (l *Log) Println(lines ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.OpenFile(l.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		l.t.Fatalf("writing pod log: %v", err)
	}
	defer f.Close()
	for _, line := range lines {
		stamp := time.Now().UTC().Format(time.RFC3339Nano)
		if _, err := fmt.Fprintf(f, "%s stdout F %s\n", stamp, line); err != nil {
			l.t.Fatalf("writing pod log: %v", err)
		}
	}
}

// Path is the log file's path.
func (l *Log) Path() string { return l.path }

// PodExecDir makes "exec" into the pod run commands on this machine in a fresh
// directory, which it returns for the test to fill. (kwok runs exec'd commands
// on the host; it does not pass an end of stdin on, so a command must not wait
// for one.)
func (c *Cluster) PodExecDir(t testing.TB, namespace, pod string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "exec-"+pod)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c.applyKwok(t, "execs", "Exec", namespace, pod, map[string]any{
		"execs": []any{map[string]any{"local": map[string]any{"workDir": dir}}},
	})
	return dir
}

// PodPortForward makes a port-forward to the pod's port reach address
// ("127.0.0.1:8080", a server the test runs).
func (c *Cluster) PodPortForward(t testing.TB, namespace, pod string, port int32, address string) {
	t.Helper()
	host, targetPort, err := splitHostPort(address)
	if err != nil {
		t.Fatal(err)
	}
	c.applyKwok(t, "portforwards", "PortForward", namespace, pod, map[string]any{
		"forwards": []any{map[string]any{
			"ports":  []any{int64(port)},
			"target": map[string]any{"address": host, "port": targetPort},
		}},
	})
}

// PodPortForwards is PodPortForward of several ports of one pod at once
// (a pod has one kwok PortForward: a second PodPortForward replaces the
// first): port to the address of the server that answers it.
func (c *Cluster) PodPortForwards(t testing.TB, namespace, pod string, addresses map[int32]string) {
	t.Helper()
	var forwards []any
	for port, address := range addresses {
		host, targetPort, err := splitHostPort(address)
		if err != nil {
			t.Fatal(err)
		}
		forwards = append(forwards, map[string]any{
			"ports":  []any{int64(port)},
			"target": map[string]any{"address": host, "port": targetPort},
		})
	}
	c.applyKwok(t, "portforwards", "PortForward", namespace, pod, map[string]any{"forwards": forwards})
}

func splitHostPort(address string) (string, int64, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.ParseInt(port, 10, 32)
	return host, n, err
}

// WaitPodPhase waits until the pod exists and is in the phase.
func (c *Cluster) WaitPodPhase(t testing.TB, namespace, pod string, phase string, timeout time.Duration) {
	t.Helper()
	Eventually(t, timeout, fmt.Sprintf("pod %s/%s %s", namespace, pod, phase), func(ctx context.Context) (bool, error) {
		p, err := c.Kube.CoreV1().Pods(namespace).Get(ctx, pod, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return string(p.Status.Phase) == phase, nil
	})
}

// NamespaceExecDir makes "exec" into every pod of the namespace (also pods
// made later, e.g. a fetcher pod) run commands on this machine in a fresh
// directory, which it returns for the test to fill: it stands in for a
// volume all of them mount. Pods with their own PodExecDir keep theirs.
func (c *Cluster) NamespaceExecDir(t testing.TB, namespace string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "exec-"+namespace)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A ClusterExec is cluster-wide: it is deleted when the test ends.
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": kwokGroup + "/v1alpha1",
		"kind":       "ClusterExec",
		"metadata":   map[string]any{"name": namespace},
		"spec": map[string]any{
			"selector": map[string]any{"matchNamespaces": []any{namespace}},
			"execs":    []any{map[string]any{"local": map[string]any{"workDir": dir}}},
		},
	}}
	client := c.Dynamic.Resource(kwokResource("clusterexecs"))
	if _, err := client.Create(Context(t, 30*time.Second), obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating kwok ClusterExec for namespace %s: %v", namespace, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := client.Delete(ctx, namespace, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting kwok ClusterExec %s: %v", namespace, err)
		}
	})
	return dir
}

// BoundClaim makes a PersistentVolumeClaim in the namespace, bound to a
// PersistentVolume of its own, so that pods mounting it are scheduled (the
// scheduler holds back pods with unbound claims). Nothing is mounted on the
// fake nodes: NamespaceExecDir stands in for the volume's files. The volume
// is deleted when the test ends.
func (c *Cluster) BoundClaim(t testing.TB, namespace, claim string) {
	t.Helper()
	pvName := namespace + "-" + claim
	pv := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "PersistentVolume",
		"metadata":   map[string]any{"name": pvName},
		"spec": map[string]any{
			"capacity":                      map[string]any{"storage": "1Gi"},
			"accessModes":                   []any{"ReadWriteMany"},
			"storageClassName":              "",
			"persistentVolumeReclaimPolicy": "Retain",
			"hostPath":                      map[string]any{"path": "/nonexistent/" + pvName},
			"claimRef":                      map[string]any{"namespace": namespace, "name": claim},
		},
	}}
	pvc := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "PersistentVolumeClaim",
		"metadata":   map[string]any{"name": claim, "namespace": namespace},
		"spec": map[string]any{
			"accessModes":      []any{"ReadWriteMany"},
			"storageClassName": "",
			"volumeName":       pvName,
			"resources":        map[string]any{"requests": map[string]any{"storage": "1Gi"}},
		},
	}}
	pvs := c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"})
	pvcs := c.Dynamic.Resource(schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}).Namespace(namespace)
	ctx := Context(t, 30*time.Second)
	if _, err := pvs.Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PersistentVolume %s: %v", pvName, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := pvs.Delete(ctx, pvName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting PersistentVolume %s: %v", pvName, err)
		}
	})
	if _, err := pvcs.Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PersistentVolumeClaim %s/%s: %v", namespace, claim, err)
	}
	Eventually(t, 60*time.Second, fmt.Sprintf("claim %s/%s Bound", namespace, claim), func(ctx context.Context) (bool, error) {
		got, err := pvcs.Get(ctx, claim, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		phase, _, _ := unstructured.NestedString(got.Object, "status", "phase")
		return phase == "Bound", nil
	})
}
