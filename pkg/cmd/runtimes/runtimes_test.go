package runtimes

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

var (
	clusterRuntimes = schema.GroupVersionResource{Group: "trainer.kubeflow.org", Version: "v1alpha1", Resource: "clustertrainingruntimes"}
	runtimes        = schema.GroupVersionResource{Group: "trainer.kubeflow.org", Version: "v1alpha1", Resource: "trainingruntimes"}
)

func execute(f *cmdutil.Factory, args ...string) error {
	cmd := NewCmdRuntimes(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func runtimeObject(kind, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": kind,
		"metadata": map[string]any{"name": name, "labels": map[string]any{"trainer.kubeflow.org/framework": "torch"}},
		"spec":     spec,
	}}
	obj.SetNamespace(namespace)
	obj.SetCreationTimestamp(metav1.NewTime(jobclienttest.Now.Add(-90 * 60e9)))
	return obj
}

func fakeDynamic(objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		clusterRuntimes: "ClusterTrainingRuntimeList", runtimes: "TrainingRuntimeList",
	}, objs...)
}

// TestRuntimes: the cluster's runtimes, then the namespace's, under the
// names --runtime takes, in each format.
func TestRuntimes(t *testing.T) {
	dyn := fakeDynamic(
		runtimeObject("ClusterTrainingRuntime", "", "torch-distributed", map[string]any{"mlPolicy": map[string]any{"numNodes": int64(2)}}),
		runtimeObject("TrainingRuntime", "team-a", "mine", map[string]any{"podGroupPolicy": map[string]any{"volcano": map[string]any{}}}),
	)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "torch-distributed\tcluster\ttorch\t2\tno\t90m\ntrainingruntime/mine\tnamespace\ttorch\t-\tvolcano\t90m\n"},
		{[]string{"-o", "name"}, "torch-distributed\ntrainingruntime/mine\n"},
		{[]string{"-o", "jsonpath={range .items[*]}{.kind} {.namespace} {.name};{end}"}, "ClusterTrainingRuntime  torch-distributed;TrainingRuntime team-a mine;"},
	} {
		f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, nil)
		if err := execute(f, tc.args...); err != nil || stdout.String() != tc.want || stderr.Len() != 0 {
			t.Errorf("runtimes %q: %v\nstdout:\n%s\nwant:\n%s\nstderr: %s", tc.args, err, stdout, tc.want, stderr)
		}
	}
}

// TestRuntimesWithoutTrainer: a cluster that serves no runtimes is an error
// with a hint; one whose cluster-wide list the user may not read is a note.
func TestRuntimesWithoutTrainer(t *testing.T) {
	dyn := fakeDynamic()
	dyn.PrependReactor("list", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(a.GetResource().GroupResource(), "")
	})
	f, _, _ := cmdutiltest.Factory(t, false, dyn, nil)
	err := execute(f)
	if exit.Code(err) != exit.Error || !strings.Contains(err.Error(), "Kubeflow Trainer v2 is not installed") || !strings.Contains(exit.Hint(err), "easyai doctor") {
		t.Errorf("no trainer: %v (exit %d, hint %q)", err, exit.Code(err), exit.Hint(err))
	}

	dyn = fakeDynamic()
	dyn.PrependReactor("list", "clustertrainingruntimes", func(a clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(a.GetResource().GroupResource(), "", nil)
	})
	f, stdout, stderr := cmdutiltest.Factory(t, false, dyn, nil)
	if err := execute(f, "-o", "json"); err != nil || !strings.Contains(stdout.String(), `"items": []`) ||
		stderr.String() != "ClusterTrainingRuntimes not shown: you may not list them cluster-wide\n" {
		t.Errorf("a forbidden list: %v\nstdout %s\nstderr %s", err, stdout, stderr)
	}
}
