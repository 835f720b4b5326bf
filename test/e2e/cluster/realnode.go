package cluster

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
)

// The real node of the local cluster (hack/cluster/realnode.sh) and the
// images it holds (hack/cluster/images.sh, whose names these repeat).
const (
	RealNodeName = "real-node-0"
	// RealNodeImage is Debian with Python, PyTorch (CPU, gloo), git, sshd
	// and busybox, imported into the node's containerd: never pulled.
	RealNodeImage = "localhost/easyai-e2e/debian:1"
	realNodeLabel = "easyai.io/real-node"
)

// RealNode returns the submit flags that put a job's pods on the real node,
// running RealNodeImage. It fails the test when the node is not Ready, and
// skips it only when the cluster was started without the node on purpose
// (EASYAI_REAL_NODE=0).
func (c *Cluster) RealNode(t testing.TB) []string {
	t.Helper()
	if os.Getenv("EASYAI_REAL_NODE") == "0" {
		t.Skip("the real node is left out (EASYAI_REAL_NODE=0)")
	}
	ctx := Context(t, time.Minute)
	node, err := c.Kube.CoreV1().Nodes().Get(ctx, RealNodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the real node %s: %v (hack/cluster/up.sh starts it unless EASYAI_REAL_NODE=0)", RealNodeName, err)
	}
	ready := false
	for _, cond := range node.Status.Conditions {
		ready = ready || (cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue)
	}
	if !ready {
		t.Fatalf("the real node %s is not Ready (see the cluster's kubelet.log)", RealNodeName)
	}
	return []string{
		"--node-selector", realNodeLabel + "=true",
		"--toleration", realNodeLabel + "=true:NoSchedule",
		"--image", RealNodeImage,
	}
}

// TeamMember makes user name a member of namespace as a team admin would
// (examples/rbac/easyai-user.yaml: edit plus the Role for training jobs,
// bound to that user) and returns the KUBECONFIG=... environment entry that
// runs easyai as her.
func (c *Cluster) TeamMember(t testing.TB, name, namespace string) []string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", "rbac", "easyai-user.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := Context(t, time.Minute)
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var obj unstructured.Unstructured
		if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if obj.Object == nil {
			continue
		}
		obj.SetNamespace(namespace)
		if subjects, ok := obj.Object["subjects"].([]any); ok {
			for _, s := range subjects {
				if s, ok := s.(map[string]any); ok && s["kind"] == "User" {
					s["name"] = name
				}
				if s, ok := s.(map[string]any); ok && s["kind"] == "ServiceAccount" {
					s["namespace"] = namespace
				}
			}
		}
		gvk := obj.GroupVersionKind()
		gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind) + "s"}
		if _, err := c.Dynamic.Resource(gvr).Namespace(namespace).Create(ctx, &obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: creating %s %s: %v", path, gvk.Kind, obj.GetName(), err)
		}
	}
	return []string{"KUBECONFIG=" + c.UserKubeconfig(t, name, namespace)}
}

// PodsOn lists the pods of namespace that run on node.
func (c *Cluster) PodsOn(ctx context.Context, namespace, node string) ([]corev1.Pod, error) {
	list, err := c.Kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// RealNodeClaim makes a PersistentVolumeClaim in namespace bound to a
// hostPath volume of the real node: a directory of this machine (the real
// node is this machine), returned so that the test can read what the pods
// wrote. Both go when the test ends.
func (c *Cluster) RealNodeClaim(t testing.TB, namespace, claim string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(c.Kubeconfig), "realnode", "volumes", namespace+"-"+claim)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	pvName := namespace + "-" + claim
	ctx := Context(t, 30*time.Second)
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: pvName},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: dir}},
			ClaimRef:                      &corev1.ObjectReference{Namespace: namespace, Name: claim},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{RealNodeName}}},
			}}}},
		},
	}
	empty := ""
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: claim, Namespace: namespace},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
			StorageClassName: &empty,
			VolumeName:       pvName,
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := c.Kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PersistentVolume %s: %v", pvName, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Kube.CoreV1().PersistentVolumes().Delete(ctx, pvName, metav1.DeleteOptions{})
	})
	if _, err := c.Kube.CoreV1().PersistentVolumeClaims(namespace).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PersistentVolumeClaim %s/%s: %v", namespace, claim, err)
	}
	// (The controller-manager's binder may take its resync period and more
	// while the whole suite runs.)
	Eventually(t, 2*time.Minute, "claim "+claim+" bound", func(ctx context.Context) (bool, error) {
		got, err := c.Kube.CoreV1().PersistentVolumeClaims(namespace).Get(ctx, claim, metav1.GetOptions{})
		return err == nil && got.Status.Phase == corev1.ClaimBound, err
	})
	return dir
}

// RealNodeAPIServer is where the real node's pods reach the API server:
// the node's address on its bridge, where the cluster passes connections
// on to the API server (there is no kube-proxy for the kubernetes Service),
// and the API server's port. Its certificate names that address.
func (c *Cluster) RealNodeAPIServer(t testing.TB) (host, port string) {
	t.Helper()
	node, err := c.Kube.CoreV1().Nodes().Get(Context(t, 30*time.Second), RealNodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			host = a.Address
		}
	}
	u, err := url.Parse(c.Config.Host)
	if err != nil || host == "" {
		t.Fatalf("the real node's address %q, the API server %q: %v", host, c.Config.Host, err)
	}
	return host, u.Port()
}
