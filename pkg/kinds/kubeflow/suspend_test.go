package kubeflow_test

import (
	"context"
	"strings"
	"testing"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/jaxjob"
	"github.com/easyai-dev/easyai/pkg/kinds/mpijob"
	"github.com/easyai-dev/easyai/pkg/kinds/paddlejob"
	"github.com/easyai-dev/easyai/pkg/kinds/pytorchjob"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
	"github.com/easyai-dev/easyai/pkg/kinds/xgboostjob"
)

// Every training-operator kind can be suspended: the v1.9 operator runs
// all of them through the same reconciler, which honours runPolicy.suspend.
func TestEveryTrainingOperatorKindIsASuspender(t *testing.T) {
	for _, k := range []kinds.Kind{tfjob.New(), pytorchjob.New(), mpijob.New(), xgboostjob.New(), paddlejob.New(), jaxjob.New()} {
		if _, ok := k.(kinds.Suspender); !ok {
			t.Errorf("%s is not a kinds.Suspender", k.Name())
		}
	}
}

var getOpts = metav1.GetOptions{}

func jobObject(k kinds.Kind, name string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(k.GroupVersionKind())
	obj.SetNamespace("team-a")
	obj.SetName(name)
	_ = unstructured.SetNestedField(obj.Object, map[string]any{"cleanPodPolicy": "None"}, "spec", "runPolicy")
	return obj
}

func fakeDynamic(objs ...runtime.Object) *dynamicfake.FakeDynamicClient {
	listKinds := map[schema.GroupVersionResource]string{}
	for _, k := range []kinds.Kind{tfjob.New(), mpijob.New()} {
		listKinds[k.Resource()] = k.GroupVersionKind().Kind + "List"
	}
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, objs...)
}

func TestSuspendAndResumePatchRunPolicySuspendOnly(t *testing.T) {
	for _, k := range []kinds.Kind{tfjob.New(), mpijob.New()} {
		t.Run(k.Name(), func(t *testing.T) {
			obj := jobObject(k, "mnist")
			dyn := fakeDynamic(obj.DeepCopy())
			s := k.(kinds.Suspender)
			ctx := context.Background()

			if err := s.Suspend(ctx, dyn, obj); err != nil {
				t.Fatal(err)
			}
			stored, err := dyn.Resource(k.Resource()).Namespace("team-a").Get(ctx, "mnist", getOpts)
			if err != nil {
				t.Fatal(err)
			}
			if v, _, _ := unstructured.NestedBool(stored.Object, "spec", "runPolicy", "suspend"); !v {
				t.Errorf("after Suspend, spec.runPolicy = %v", stored.Object["spec"])
			}
			if v, _, _ := unstructured.NestedString(stored.Object, "spec", "runPolicy", "cleanPodPolicy"); v != "None" {
				t.Errorf("Suspend lost the rest of runPolicy: %v", stored.Object["spec"])
			}

			if w := s.ResumeWarning(stored); w != "" {
				t.Errorf("ResumeWarning = %q, want none", w)
			}
			if err := s.Resume(ctx, dyn, stored); err != nil {
				t.Fatal(err)
			}
			var patches []string
			for _, a := range dyn.Actions() {
				if p, ok := a.(clienttesting.PatchAction); ok {
					if p.GetPatchType() != types.MergePatchType {
						t.Errorf("patch type %s, want a JSON merge patch", p.GetPatchType())
					}
					patches = append(patches, p.GetResource().Resource+"/"+p.GetName()+" "+string(p.GetPatch()))
				}
			}
			want := []string{
				k.Resource().Resource + `/mnist {"spec":{"runPolicy":{"suspend":true}}}`,
				k.Resource().Resource + `/mnist {"spec":{"runPolicy":{"suspend":false}}}`,
			}
			if strings.Join(patches, "\n") != strings.Join(want, "\n") {
				t.Errorf("patches:\n%s\nwant:\n%s", strings.Join(patches, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

func TestSuspendOfAJobGoneIsNotFound(t *testing.T) {
	k := tfjob.New()
	err := k.Suspend(context.Background(), fakeDynamic(), jobObject(k, "ghost"))
	if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "setting spec.runPolicy.suspend of "+kubeflowv1.TFJobKind+" ghost to true") {
		t.Errorf("error %v, want a not-found error naming the job", err)
	}
}
