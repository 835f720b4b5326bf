package volcano

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	vcbatch "volcano.sh/apis/pkg/apis/batch/v1alpha1"
	vcbus "volcano.sh/apis/pkg/apis/bus/v1alpha1"
)

// CommandResource is Volcano's bus Commands: a user's request to act on a
// job, which Volcano's controller carries out once and deletes.
var CommandResource = vcbus.SchemeGroupVersion.WithResource("commands")

// defaultMaxRetry is spec.maxRetry when the job does not set it (Volcano's
// admission webhook writes it).
const defaultMaxRetry = 3

func maxRetryOf(spec int32) int32 {
	if spec == 0 {
		return defaultMaxRetry
	}
	return spec
}

// retries reads a job's status.retryCount and its effective spec.maxRetry.
func retries(obj *unstructured.Unstructured) (count, max int32) {
	c, _, _ := unstructured.NestedInt64(obj.Object, "status", "retryCount")
	m, _, _ := unstructured.NestedInt64(obj.Object, "spec", "maxRetry")
	return int32(c), maxRetryOf(int32(m))
}

func phaseOf(obj *unstructured.Unstructured) vcbatch.JobPhase {
	p, _, _ := unstructured.NestedString(obj.Object, "status", "state", "phase")
	return vcbatch.JobPhase(p)
}

// Suspend sends Volcano an AbortJob command: its controller deletes the
// job's pods and keeps the job, in phase Aborted. Volcano aborts only a job
// that is Pending or Running; in any other phase it drops the command.
func (k Kind) Suspend(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error {
	switch p := phaseOf(obj); p {
	case "", vcbatch.Pending, vcbatch.Running:
	default:
		return fmt.Errorf("Volcano Job %s is %s: Volcano suspends a job only while it is Pending or Running", obj.GetName(), p)
	}
	return k.command(ctx, dyn, obj, vcbus.AbortJobAction, "suspend")
}

// ResumeWarning says when resuming fails the job: Volcano counts every
// resume as a retry (volcano-sh/volcano#3067) and fails the job, instead of
// restarting it, at retry spec.maxRetry.
func (Kind) ResumeWarning(obj *unstructured.Unstructured) string {
	count, max := retries(obj)
	if count+1 < max {
		return ""
	}
	return fmt.Sprintf("Volcano counts this resume as retry %d of the job and fails a job at retry %d (spec.maxRetry): the job will end Failed instead of running again", count+1, max)
}

// Resume sends Volcano a ResumeJob command: its controller restarts the
// job's pods, counting one more retry.
func (k Kind) Resume(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured) error {
	switch p := phaseOf(obj); p {
	case vcbatch.Aborting, vcbatch.Aborted:
	default:
		return fmt.Errorf("Volcano Job %s is %s: Volcano resumes only a job it aborted", obj.GetName(), p)
	}
	return k.command(ctx, dyn, obj, vcbus.ResumeJobAction, "resume")
}

// command creates a Command of action targeting the job, owned by it too so
// that one Volcano never consumed goes away with the job.
func (k Kind) command(ctx context.Context, dyn dynamic.Interface, obj *unstructured.Unstructured, action vcbus.Action, verb string) error {
	target := metav1.OwnerReference{
		APIVersion: vcbatch.SchemeGroupVersion.String(), Kind: k.GroupVersionKind().Kind,
		Name: obj.GetName(), UID: obj.GetUID(),
	}
	cmd := &vcbus.Command{
		TypeMeta: metav1.TypeMeta{APIVersion: vcbus.SchemeGroupVersion.String(), Kind: "Command"},
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    obj.GetName() + "-" + verb + "-",
			Namespace:       obj.GetNamespace(),
			OwnerReferences: []metav1.OwnerReference{target},
		},
		Action:       string(action),
		TargetObject: &target,
		Reason:       "UserRequest",
		Message:      "easyai " + verb,
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cmd)
	if err != nil {
		return err
	}
	_, err = dyn.Resource(CommandResource).Namespace(obj.GetNamespace()).Create(ctx, &unstructured.Unstructured{Object: u}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("creating Volcano's %s command for Volcano Job %s: %w", action, obj.GetName(), err)
	}
	return nil
}
