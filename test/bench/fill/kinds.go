package main

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// otherKind is how the filler makes a job of -kind trainjob or volcano: the
// job object, and its pods as that kind's controllers name and label them.
type otherKind struct {
	resource  schema.GroupVersionResource
	kind      string
	easyai    string // easyai's name of the kind (its kind label)
	container string
	// object is the job's spec; pod is pod idx's name, labels and annotations.
	object func(name string, replicas int) map[string]any
	pod    func(job string, idx int) (string, map[string]string, map[string]string)
}

var otherKinds = map[string]otherKind{
	"trainjob": {
		resource: schema.GroupVersionResource{Group: "trainer.kubeflow.org", Version: "v1alpha1", Resource: "trainjobs"},
		kind:     "TrainJob", easyai: "trainjob", container: "node",
		object: func(name string, replicas int) map[string]any {
			return map[string]any{
				"runtimeRef": map[string]any{"name": "torch-distributed"},
				"trainer": map[string]any{
					"numNodes": int64(replicas), "image": "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime",
					"command": []any{"torchrun", "/opt/train.py"},
				},
			}
		},
		// A JobSet's pod: JOBSET-REPLICATEDJOB-JOBINDEX-..., its completion
		// index annotated.
		pod: func(job string, idx int) (string, map[string]string, map[string]string) {
			return fmt.Sprintf("%s-node-0-%d-bench", job, idx),
				map[string]string{
					"jobset.sigs.k8s.io/jobset-name": job, "jobset.sigs.k8s.io/replicatedjob-name": "node",
					"jobset.sigs.k8s.io/job-index": "0", "batch.kubernetes.io/job-completion-index": strconv.Itoa(idx),
				},
				map[string]string{"batch.kubernetes.io/job-completion-index": strconv.Itoa(idx)}
		},
	},
	"volcano": {
		resource: schema.GroupVersionResource{Group: "batch.volcano.sh", Version: "v1alpha1", Resource: "jobs"},
		kind:     "Job", easyai: "volcano", container: "worker",
		object: func(name string, replicas int) map[string]any {
			return map[string]any{
				"minAvailable": int64(replicas), "schedulerName": "volcano",
				"tasks": []any{map[string]any{
					"name": "worker", "replicas": int64(replicas),
					"template": map[string]any{"spec": map[string]any{
						"restartPolicy": "Never",
						"containers":    []any{map[string]any{"name": "worker", "image": "example.com/train:1", "command": []any{"python", "train.py"}}},
					}},
				}},
			}
		},
		// Volcano's pod: JOB-TASK-INDEX.
		pod: func(job string, idx int) (string, map[string]string, map[string]string) {
			return fmt.Sprintf("%s-worker-%d", job, idx),
				map[string]string{"volcano.sh/job-name": job, "volcano.sh/task-spec": "worker", "volcano.sh/task-index": strconv.Itoa(idx)},
				map[string]string{"volcano.sh/task-spec": "worker"}
		},
	},
}

// otherJob creates job i of -kind trainjob or volcano (no status: no
// controller runs), then its pods, -workers+1 of them.
func (f *filler) otherJob(ctx context.Context, k otherKind, ns, name, user string, i int) error {
	replicas := 1 + f.o.workers
	labels := f.labels(name, user, i)
	labels[jobmodel.KindLabel] = k.easyai
	delete(labels, "app")
	delete(labels, "release")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": k.resource.GroupVersion().String(), "kind": k.kind,
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     k.object(name, replicas),
	}}
	obj.SetLabels(labels)
	obj.SetAnnotations(map[string]string{jobmodel.UserAnnotation: user, jobmodel.VersionAnnotation: cliVersion})
	created, err := f.dynamic.Resource(k.resource).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{})
	switch {
	case err == nil:
		f.jobsCreated.Add(1)
	case apierrors.IsAlreadyExists(err):
		if created, err = f.dynamic.Resource(k.resource).Namespace(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("%s %s/%s: %w", k.kind, ns, name, err)
		}
	default:
		return fmt.Errorf("%s %s/%s: %w", k.kind, ns, name, err)
	}
	if f.o.pods {
		owner := metav1.OwnerReference{APIVersion: k.resource.GroupVersion().String(), Kind: k.kind, Name: name, UID: created.GetUID()}
		for idx := range replicas {
			podName, podLabels, annotations := k.pod(name, idx)
			spec := corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, SchedulerName: noScheduler,
				Containers: []corev1.Container{{Name: k.container, Image: "example.com/train:1", Command: []string{"python", "train.py"}}},
			}
			if len(f.o.nodes) > 0 {
				spec.NodeName = f.o.nodes[idx%len(f.o.nodes)]
			}
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: podName, Namespace: ns, Labels: podLabels, Annotations: annotations,
					OwnerReferences: []metav1.OwnerReference{owner}},
				Spec: spec,
			}
			pod.OwnerReferences[0].Controller = ptr.To(true)
			if err := f.createPod(ctx, pod); err != nil {
				return err
			}
		}
	}
	f.jobDone()
	return nil
}
