package submit

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
)

func clusterObject(apiVersion, kind, name string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion(apiVersion)
	o.SetKind(kind)
	o.SetName(name)
	return o
}

func placementSubmission(t *testing.T, forbidden bool) (*Submission, *strings.Builder) {
	t.Helper()
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		Queues: "QueueList", PriorityClasses: "PriorityClassList",
	}, clusterObject("scheduling.volcano.sh/v1beta1", "Queue", "research"), clusterObject("scheduling.volcano.sh/v1beta1", "Queue", "default"),
		clusterObject("scheduling.k8s.io/v1", "PriorityClass", "high"))
	if forbidden {
		client.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(a.GetResource().GroupResource(), "", nil)
		})
	}
	var notes strings.Builder
	s := &Submission{JobRequest: JobRequest{DryRun: DryRunServer, Notes: &notes},
		Dynamic: func() (dynamic.Interface, error) { return client, nil },
		Served:  func(context.Context, schema.GroupVersionResource) (bool, error) { return true, nil }}
	return s, &notes
}

func placement(queue, priority string) map[string]any {
	return map[string]any{"runPolicy": map[string]any{"queue": queue}, "priorityClassName": priority}
}

func TestPlacementIsChecked(t *testing.T) {
	s, _ := placementSubmission(t, false)
	if err := s.checkPlacement(context.Background(), placement("research", "high")); err != nil {
		t.Errorf("known names: %v", err)
	}
	for values, want := range map[*map[string]any]string{
		ptr(placement("nope", "")): `--queue nope: the cluster has no Volcano queue "nope" (it has: default, research)`,
		ptr(placement("", "nope")): `--priority nope: the cluster has no PriorityClass "nope" (it has: high)`,
	} {
		if err := s.checkPlacement(context.Background(), *values); exit.Code(err) != exit.Usage || err.Error() != want {
			t.Errorf("%v: %v, want %s", *values, err, want)
		}
	}
	s, notes := placementSubmission(t, true)
	if err := s.checkPlacement(context.Background(), placement("nope", "nope")); err != nil || !strings.Contains(notes.String(), "Volcano queue nope not checked") || !strings.Contains(notes.String(), "PriorityClass nope not checked") {
		t.Errorf("a user who may not read them: %v, notes %q", err, notes.String())
	}
	s, _ = placementSubmission(t, false)
	s.DryRun = DryRunClient
	if err := s.checkPlacement(context.Background(), placement("nope", "nope")); err != nil {
		t.Errorf("a client dry run asks the cluster nothing: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }
