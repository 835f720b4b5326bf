package remote

import (
	"context"
	"fmt"
	"io"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// Job is a job found for a remote command, with its replicas.
type Job struct {
	Kind     kinds.Kind
	Object   *unstructured.Unstructured
	Replicas []jobmodel.Replica
	// Pods are the job's pods as listed.
	Pods []corev1.Pod
}

// FindJob finds the job ref names and reads its replicas from one LIST of
// its pods.
func FindJob(ctx context.Context, c *jobclient.Client, namespace string, ref kinds.Ref) (*Job, error) {
	k, obj, err := c.Find(ctx, namespace, ref)
	if err != nil {
		return nil, err
	}
	pods, err := c.Kube.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: k.PodSelector(obj.GetName())})
	if err != nil {
		return nil, fmt.Errorf("listing the pods of %s/%s: %w", k.Name(), obj.GetName(), err)
	}
	replicas, err := k.Replicas(obj, pods.Items)
	if err != nil {
		return nil, err
	}
	return &Job{Kind: k, Object: obj, Replicas: replicas, Pods: pods.Items}, nil
}

// Choose picks the replica named task, or without one the default replica;
// note says which was chosen when the user did not say, for stderr.
func (j *Job) Choose(task string) (r jobmodel.Replica, note string, err error) {
	if task != "" {
		r, err = FindReplica(j.Replicas, task)
		return r, "", err
	}
	if r, err = DefaultReplica(j.Replicas); err != nil {
		return r, "", err
	}
	tasks := make([]string, len(j.Replicas))
	for i, x := range j.Replicas {
		tasks[i] = x.Task
	}
	note = fmt.Sprintf("Running in %s of %s/%s", r.Task, j.Kind.Name(), j.Object.GetName())
	if len(tasks) > 1 {
		note += fmt.Sprintf(" (replicas: %s; choose with --task)", strings.Join(tasks, ", "))
	}
	return r, note, nil
}

// RunnableReplica picks the replica a command runs in (Choose), says which
// on notes when the user did not, and checks that its pod runs.
func (j *Job) RunnableReplica(task string, notes io.Writer) (jobmodel.Replica, error) {
	r, note, err := j.Choose(task)
	if err != nil {
		return r, err
	}
	if note != "" {
		fmt.Fprintln(notes, note)
	}
	return r, Runnable(r)
}
