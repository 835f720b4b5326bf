package submit

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fakediscovery "k8s.io/client-go/discovery/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

// TestABackendChooserPicksWhatTheJobIsRenderedAndCreatedAs: a ColossalAI job
// is a ColossalAIJob where the cluster serves them, else a Volcano Job
// (created, printed and read back as volcano/NAME, labelled as colossalai);
// a client dry run asks no cluster.
func TestABackendChooserPicksWhatTheJobIsRenderedAndCreatedAs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		t9k    bool
		stdout string
		stderr string
		gvr    schema.GroupVersionResource
	}{
		{"client dry run", []string{"--dry-run=client"}, true, "kind: Job\n", "Backend: volcano (a client dry run asks no cluster", schema.GroupVersionResource{}},
		{"no T9k", nil, false, "volcano/cai submitted to namespace team-a\n", "Backend: volcano (this cluster serves no ColossalAIJobs of T9k)",
			schema.GroupVersionResource{Group: "batch.volcano.sh", Version: "v1alpha1", Resource: "jobs"}},
		{"T9k", nil, true, "colossalai/cai submitted to namespace team-a\n", "Backend: t9k (this cluster serves ColossalAIJobs)",
			schema.GroupVersionResource{Group: "batch.tensorstack.dev", Version: "v1beta1", Resource: "colossalaijobs"}},
		{"volcano asked for", []string{"--backend", "volcano"}, true, "volcano/cai submitted to namespace team-a\n", "",
			schema.GroupVersionResource{Group: "batch.volcano.sh", Version: "v1alpha1", Resource: "jobs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := kubefake.NewClientset()
			if tc.t9k {
				kube.Discovery().(*fakediscovery.FakeDiscovery).Resources = []*metav1.APIResourceList{{
					GroupVersion: "batch.tensorstack.dev/v1beta1",
					APIResources: []metav1.APIResource{{Name: "colossalaijobs", Namespaced: true, Kind: "ColossalAIJob"}},
				}}
			}
			dyn := jobclienttest.Dynamic()
			f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, kube)
			f.User = func(context.Context) (string, error) { return "alice", nil }
			cmd := NewCmdSubmit(f, nil)
			cmd.SetArgs(append(append([]string{"colossalai", "--name", "cai", "--image", "x:1"}, tc.args...), "--", "train.py"))
			cmd.SetOut(&strings.Builder{})
			cmd.SetErr(&strings.Builder{})
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stdout %q\nstderr %q\nwant %q and %q", stdout, stderr, tc.stdout, tc.stderr)
			}
			if strings.Contains(tc.stdout, "kind: Job") && !strings.Contains(stdout.String(), "easyai.io/kind: colossalai") {
				t.Errorf("the Volcano Job is not labelled as a ColossalAI job:\n%s", stdout)
			}
			if tc.gvr.Resource == "" {
				return
			}
			obj, err := dyn.Resource(tc.gvr).Namespace("team-a").Get(t.Context(), "cai", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if l, _, _ := unstructured.NestedString(obj.Object, "metadata", "labels", "easyai.io/kind"); l != "colossalai" {
				t.Errorf("label easyai.io/kind=%q, want colossalai", l)
			}
		})
	}
}
