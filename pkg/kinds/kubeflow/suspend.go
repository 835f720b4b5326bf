package kubeflow

import (
	"context"
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// Suspend sets the job's spec.runPolicy.suspend: the operator (v1.9 and later,
// every kind alike) deletes its pods, services and PodGroup, keeps the job
// and marks it Suspended.
func (b Base) Suspend(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error {
	return b.setSuspend(ctx, dyn, obj, true)
}

// ResumeWarning is empty: the operator makes the pods anew and counts no
// retry for it.
func (Base) ResumeWarning(*unstructured.Unstructured) string { return "" }

// Resume clears the job's spec.runPolicy.suspend: the operator creates its
// pods again and restarts its clock (status.startTime).
func (b Base) Resume(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error {
	return b.setSuspend(ctx, dyn, obj, false)
}

// setSuspend merge-patches spec.runPolicy.suspend alone, so nothing else of
// the job (changed by others since it was read) is written back.
func (b Base) setSuspend(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured, suspend bool) error {
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"runPolicy": map[string]any{"suspend": suspend}}})
	if err != nil {
		return err
	}
	_, err = dyn.Resource(b.Resource()).Namespace(obj.GetNamespace()).Patch(ctx, obj.GetName(), types.MergePatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("setting spec.runPolicy.suspend of %s %s to %t: %w", b.Shape.APIKind, obj.GetName(), suspend, err)
	}
	return nil
}
