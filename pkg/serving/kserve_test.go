package serving

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// kserveClient is a client of a cluster that serves KServe's
// InferenceServices, on fakes.
func kserveClient() *Client {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{InferenceServices: "InferenceServiceList"})
	return &Client{Kube: fake.NewSimpleClientset(), Dynamic: dyn}
}

// isvc reads an InferenceService of team-a.
func isvc(t *testing.T, c *Client, name string) *unstructured.Unstructured {
	t.Helper()
	u, err := c.Dynamic.Resource(InferenceServices).Namespace("team-a").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// kserveMakes does what KServe's controller does with an InferenceService
// in RawDeployment mode, as far as easyai reads it: a Deployment
// NAME-predictor controlled by it, with its labels, its predictor's labels
// and its annotations, minReplicas replicas and the predictor's containers.
func kserveMakes(t *testing.T, c *Client, name string) {
	t.Helper()
	u := isvc(t, c, name)
	w := isvcWorkload{u}
	labels := copyMap(u.GetLabels())
	predictorLabels, _, _ := unstructured.NestedStringMap(u.Object, "spec", "predictor", "labels")
	for k, v := range predictorLabels {
		labels[k] = v
	}
	raw, _, _ := unstructured.NestedSlice(u.Object, "spec", "predictor", "containers")
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name + "-predictor", Namespace: "team-a", Labels: labels,
		Annotations: u.GetAnnotations(), OwnerReferences: []metav1.OwnerReference{w.controllerRef()}}}
	n := w.replicas()
	d.Spec.Replicas = &n
	d.Spec.Template.Labels = labels
	d.Spec.Template.Spec.Containers = make([]corev1.Container, len(raw))
	for i := range raw {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(raw[i].(map[string]any), &d.Spec.Template.Spec.Containers[i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Kube.AppsV1().Deployments("team-a").Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// replicasOfInferenceServices are the InferenceServices' replicas and
// images ("bert-v1=2:IMAGE").
func replicasOfInferenceServices(t *testing.T, c *Client) string {
	t.Helper()
	list, err := c.Dynamic.Resource(InferenceServices).Namespace("team-a").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range list.Items {
		u := &list.Items[i]
		image := ""
		cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "predictor", "containers")
		if len(cs) > 0 {
			image, _ = cs[0].(map[string]any)["image"].(string)
		}
		out = append(out, u.GetName()+"="+string(rune('0'+isvcWorkload{u}.replicas()))+":"+image)
	}
	return strings.Join(out, " ")
}

// TestKServeVersions: on the kserve backend every version is an
// InferenceService; reads go to the Deployments KServe makes of them,
// changes to the InferenceServices, and the Service follows the version
// that serves.
func TestKServeVersions(t *testing.T) {
	ctx := context.Background()
	c := kserveClient()
	s := vllmSpec()
	s.Backend = BackendKServe
	objs, err := Render(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, objs, false); err != nil {
		t.Fatal(err)
	}
	// Before KServe has made the Deployment, the serving exists (a second
	// create is refused) and is Progressing.
	if _, err := c.Create(ctx, objs, false); err == nil || !strings.Contains(err.Error(), "serving bert already exists") {
		t.Errorf("a second create: %v", err)
	}
	doc, err := c.State(ctx, "team-a", "bert")
	if err != nil || doc.State != "Progressing" || !strings.Contains(doc.Reason, "KServe has not made the Deployment of InferenceService bert-v1") {
		t.Fatalf("before KServe made the Deployment: %+v, %v", doc, err)
	}
	kserveMakes(t, c, "bert-v1")
	doc, err = c.State(ctx, "team-a", "bert")
	if err != nil || doc.Backend != BackendKServe || len(doc.Versions) != 1 || doc.Versions[0].Object != "inferenceservice/bert-v1" || doc.Versions[0].Deployment != "bert-v1-predictor" {
		t.Fatalf("the serving: %+v, %v", doc, err)
	}
	svc, err := c.Kube.CoreV1().Services("team-a").Get(ctx, "bert", metav1.GetOptions{})
	if err != nil || len(svc.OwnerReferences) != 1 || svc.OwnerReferences[0].Kind != InferenceServiceKind || svc.OwnerReferences[0].Name != "bert-v1" {
		t.Errorf("the Service: %v, %v", svc, err)
	}

	if _, err := c.Update(ctx, "team-a", "bert", Change{Image: "vllm:2", Env: []string{"NEW=1"}, Canary: 50}); err != nil {
		t.Fatal(err)
	}
	if got := replicasOfInferenceServices(t, c); got != "bert-v1=1:vllm/vllm-openai:v0.6.3 bert-v2=1:vllm:2" {
		t.Errorf("after --canary 50: %s", got)
	}
	v2 := isvc(t, c, "bert-v2")
	version, _, _ := unstructured.NestedString(v2.Object, "spec", "predictor", "labels", VersionLabel)
	if version != "v2" || v2.GetLabels()[VersionLabel] != "v2" || v2.GetAnnotations()[CanaryAnnotation] != "50" || isvc(t, c, "bert-v1").GetAnnotations()[ReplicasBeforeAnnotation] != "2" {
		t.Errorf("the canary: pods' version %q, labels %v, annotations %v", version, v2.GetLabels(), v2.GetAnnotations())
	}
	// Before KServe has made v2's Deployment, the serving has its canary.
	if err := c.Scale(ctx, "team-a", "bert", 3); err == nil || !strings.Contains(err.Error(), "has a canary (v2)") {
		t.Errorf("scale while KServe makes the canary: %v", err)
	}
	kserveMakes(t, c, "bert-v2")

	if _, err := c.Promote(ctx, "team-a", "bert"); err != nil {
		t.Fatal(err)
	}
	if got := replicasOfInferenceServices(t, c); got != "bert-v2=2:vllm:2" {
		t.Errorf("after promote: %s", got)
	}
	if _, ok := isvc(t, c, "bert-v2").GetAnnotations()[CanaryAnnotation]; ok {
		t.Errorf("the promoted version is still marked a canary")
	}
	svc, err = c.Kube.CoreV1().Services("team-a").Get(ctx, "bert", metav1.GetOptions{})
	if err != nil || svc.OwnerReferences[0].Name != "bert-v2" {
		t.Errorf("the Service after promote: %v, %v", svc, err)
	}
	// KServe would delete bert-v1-predictor with its InferenceService.
	if err := c.Kube.AppsV1().Deployments("team-a").Delete(ctx, "bert-v1-predictor", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Scale(ctx, "team-a", "bert", 3); err != nil {
		t.Fatal(err)
	}
	if got := replicasOfInferenceServices(t, c); got != "bert-v2=3:vllm:2" {
		t.Errorf("after scale 3: %s", got)
	}
	if err := c.Delete(ctx, "team-a", "bert"); err != nil {
		t.Fatal(err)
	}
	if got := replicasOfInferenceServices(t, c); got != "" {
		t.Errorf("after delete: %s", got)
	}
	if _, err := c.Kube.CoreV1().Services("team-a").Get(ctx, "bert", metav1.GetOptions{}); err == nil {
		t.Errorf("the Service outlived the serving")
	}
}

// TestKServeOwnerIsChecked: a Deployment that names an InferenceService
// of another serving as its controller (anyone with edit rights can write
// one) does not get that InferenceService changed.
func TestKServeOwnerIsChecked(t *testing.T) {
	ctx := context.Background()
	c := kserveClient()
	s := vllmSpec()
	s.Name, s.Backend = "other", BackendKServe
	objs, err := Render(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, objs, false); err != nil {
		t.Fatal(err)
	}
	yes := true
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "bert-v1", Namespace: "team-a", Labels: map[string]string{Label: "bert", VersionLabel: "v1"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: KServeGroup + "/" + KServeVersion, Kind: InferenceServiceKind, Name: "other-v1", Controller: &yes}}}}
	if _, err := c.Kube.AppsV1().Deployments("team-a").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Scale(ctx, "team-a", "bert", 5); err == nil || !strings.Contains(err.Error(), "is not serving bert's") {
		t.Errorf("scaling through another serving's InferenceService: %v", err)
	}
	if n := (isvcWorkload{isvc(t, c, "other-v1")}).replicas(); n != 2 {
		t.Errorf("other-v1 has %d replicas", n)
	}
	if err := c.Delete(ctx, "team-a", "nothing"); exit.Code(err) != exit.NotFound {
		t.Errorf("deleting a serving that does not exist: %v", err)
	}
}
