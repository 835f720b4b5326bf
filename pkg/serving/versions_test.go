package serving

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/exit"
)

func created(t *testing.T) (*Client, context.Context) {
	t.Helper()
	ctx := context.Background()
	c := &Client{Kube: fake.NewSimpleClientset()}
	s := vllmSpec()
	objs, err := Render(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, objs, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(ctx, objs, false); err == nil || exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "serving bert already exists") {
		t.Errorf("a second create: %v", err)
	}
	return c, ctx
}

// replicasOfVersions are the versions' replicas ("v1=1 v2=1").
func replicasOfVersions(t *testing.T, c *Client, ctx context.Context) string {
	t.Helper()
	vs, err := c.versions(ctx, "team-a", "bert")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range vs {
		out = append(out, d.Labels[VersionLabel]+"="+string(rune('0'+replicasOf(&d)))+":"+d.Spec.Template.Spec.Containers[0].Image)
	}
	return strings.Join(out, " ")
}

// TestCanaryPromoteAndRollback: a canary takes its share of the replicas
// in a version of its own; promote gives it all of them and the Service,
// rollback gives them back to the old version.
func TestCanaryPromoteAndRollback(t *testing.T) {
	c, ctx := created(t)
	if _, err := c.Update(ctx, "team-a", "bert", Change{Image: "vllm:2", Env: []string{"HF_HUB_OFFLINE=0", "NEW=1"}, Canary: 50}); err != nil {
		t.Fatal(err)
	}
	if got := replicasOfVersions(t, c, ctx); got != "v1=1:vllm/vllm-openai:v0.6.3 v2=1:vllm:2" {
		t.Errorf("after --canary 50: %s", got)
	}
	v2, err := c.Kube.AppsV1().Deployments("team-a").Get(ctx, "bert-v2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env := v2.Spec.Template.Spec.Containers[0].Env
	if len(env) != 2 || env[0].Value != "0" || env[1].Name != "NEW" || v2.Spec.Selector.MatchLabels[VersionLabel] != "v2" ||
		v2.Spec.Template.Labels[VersionLabel] != "v2" || v2.Annotations[CanaryAnnotation] != "50" {
		t.Errorf("the canary: env %v, selector %v, labels %v, annotations %v", env, v2.Spec.Selector, v2.Spec.Template.Labels, v2.Annotations)
	}
	if err := c.Scale(ctx, "team-a", "bert", 3); err == nil || !strings.Contains(err.Error(), "has a canary (v2)") {
		t.Errorf("scale during a canary: %v", err)
	}
	if _, err := c.Promote(ctx, "team-a", "bert"); err != nil {
		t.Fatal(err)
	}
	if got := replicasOfVersions(t, c, ctx); got != "v2=2:vllm:2" {
		t.Errorf("after promote: %s", got)
	}
	svc, err := c.Kube.CoreV1().Services("team-a").Get(ctx, "bert", metav1.GetOptions{})
	if err != nil || len(svc.OwnerReferences) != 1 || svc.OwnerReferences[0].Name != "bert-v2" {
		t.Errorf("the Service after promote: %v, %v", svc, err)
	}
	if _, err := c.Promote(ctx, "team-a", "bert"); err == nil || !strings.Contains(err.Error(), "has no canary to promote: it runs one version (v2)") {
		t.Errorf("promote without a canary: %v", err)
	}

	if _, err := c.Update(ctx, "team-a", "bert", Change{Image: "vllm:3", Canary: 20}); err != nil {
		t.Fatal(err)
	}
	if got := replicasOfVersions(t, c, ctx); got != "v2=1:vllm:2 v3=1:vllm:3" {
		t.Errorf("after --canary 20 of 2 replicas: %s", got)
	}
	// A teammate's edit of the recorded replicas is not believed past what
	// the two versions have.
	v2, err = c.Kube.AppsV1().Deployments("team-a").Get(ctx, "bert-v2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v2.Annotations[ReplicasBeforeAnnotation] = "99999"
	if _, err := c.Kube.AppsV1().Deployments("team-a").Update(ctx, v2, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Rollback(ctx, "team-a", "bert"); err != nil {
		t.Fatal(err)
	}
	if got := replicasOfVersions(t, c, ctx); got != "v2=2:vllm:2" {
		t.Errorf("after rollback: %s", got)
	}
	four := int32(4)
	if _, err := c.Update(ctx, "team-a", "bert", Change{Image: "vllm:4", Replicas: &four}); err != nil {
		t.Fatal(err)
	}
	if got := replicasOfVersions(t, c, ctx); got != "v2=4:vllm:4" {
		t.Errorf("after a rolling update to 4 replicas: %s", got)
	}
	if err := c.Delete(ctx, "team-a", "bert"); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, "team-a", "bert"); exit.Code(err) != exit.NotFound {
		t.Errorf("deleting it again: %v", err)
	}
}

func TestChangeValidate(t *testing.T) {
	zero := int32(0)
	for want, ch := range map[string]Change{
		"nothing to change":          {},
		"--canary 100":               {Image: "x", Canary: 100},
		"--replicas 0":               {Replicas: &zero},
		`--env "X": want NAME=VALUE`: {Env: []string{"X"}},
	} {
		if err := ch.Validate(); err == nil || !strings.Contains(err.Error(), want) || exit.Code(err) != exit.Usage {
			t.Errorf("%+v: %v, want %q", ch, err, want)
		}
	}
}
