package kueue

import (
	"context"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// Activation suspends and resumes a job of a Kueue LocalQueue as Kueue
// means it (kinds.Suspender): a job Kueue manages is suspended by Kueue
// while it waits for quota, and Kueue undoes a suspend it did not make.
// Suspending it deactivates its Workload (spec.active false): Kueue evicts
// it, suspends the job and takes it out of line. Resuming activates the
// Workload again: the job goes back in line, and runs once admitted.
type Activation struct{}

// Suspend deactivates the job's Workload.
func (Activation) Suspend(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error {
	return setActive(ctx, dyn, obj, false)
}

// ResumeWarning: resuming puts the job back in line; nothing is lost.
func (Activation) ResumeWarning(*unstructured.Unstructured) string { return "" }

// Resume activates the job's Workload again.
func (Activation) Resume(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error {
	return setActive(ctx, dyn, obj, true)
}

func setActive(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured, active bool) error {
	list, err := dyn.Resource(Workloads).Namespace(obj.GetNamespace()).List(ctx, metav1.ListOptions{LabelSelector: JobUIDLabel + "=" + string(obj.GetUID())})
	if err != nil {
		return fmt.Errorf("reading the Kueue Workload of %s: %w", obj.GetName(), err)
	}
	if len(list.Items) == 0 {
		return fmt.Errorf("Kueue has made no Workload for %s yet: try again in a moment", obj.GetName())
	}
	patch := []byte(`{"spec":{"active":` + strconv.FormatBool(active) + `}}`)
	for _, w := range list.Items {
		if _, err := dyn.Resource(Workloads).Namespace(w.GetNamespace()).Patch(ctx, w.GetName(), types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "easyai"}); err != nil {
			return fmt.Errorf("changing the Kueue Workload %s: %w", w.GetName(), err)
		}
	}
	return nil
}
