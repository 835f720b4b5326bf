package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// RunningPods lists the pods of namespace that selector selects as the API
// server's table of pods (kubectl's columns, and each pod's metadata) and,
// when every row is a pod that plainly runs (STATUS Running, every
// container ready, not being deleted), makes of each row the pod get needs:
// its metadata, node, phase Running, and one running container holding the
// restarts of all. The server writes a few hundred bytes a pod, however
// large the pods' specs (a TFJob's pods each carry every replica's address).
//
// ok is false, and pods nil, when a row says anything more (a pod pending,
// waiting, crashing, ended or being deleted: what only the whole status
// details), when the server cannot answer in a table, or when the client
// has no REST client of its own (client-go's fake): LeanPods then reads
// the pods. A refusal, or any other failure, is the API's error.
func RunningPods(ctx context.Context, kc kubernetes.Interface, namespace, selector string) ([]corev1.Pod, bool, error) {
	rc, isREST := kc.CoreV1().RESTClient().(*rest.RESTClient)
	if !isREST || rc == nil {
		return nil, false, nil
	}
	raw, err := rc.Get().Namespace(namespace).Resource("pods").
		Param("labelSelector", selector).Param("includeObject", string(metav1.IncludeMetadata)).
		SetHeader("Accept", tableOfPods).Do(ctx).Raw()
	switch {
	case apierrors.IsNotAcceptable(err) || apierrors.IsUnsupportedMediaType(err):
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return RunningPodsOfTable(raw)
}

// RunningPodsOfTable reads a table of pods as RunningPods does. An answer
// that is no table is an error; a table without the columns it reads (a
// server whose table of pods is not kubectl's), or a row that is no plainly
// running pod, makes ok false.
func RunningPodsOfTable(raw []byte) (pods []corev1.Pod, ok bool, err error) {
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		return nil, false, fmt.Errorf("reading the table of pods: %w", err)
	}
	if table.Kind != "Table" {
		return nil, false, fmt.Errorf("reading the table of pods: a %q, not a Table", table.Kind)
	}
	col := map[string]int{}
	for i, c := range table.ColumnDefinitions {
		col[strings.ToLower(c.Name)] = i
	}
	for _, name := range []string{"name", "ready", "status", "restarts", "node"} {
		if _, found := col[name]; !found {
			return nil, false, nil
		}
	}
	out := make([]corev1.Pod, 0, len(table.Rows))
	for _, row := range table.Rows {
		p, plain := runningPodOfRow(row, col)
		if !plain {
			return nil, false, nil
		}
		out = append(out, p)
	}
	return out, true, nil
}

// runningPodOfRow is the pod of one row, and whether the row is one of a
// pod that plainly runs.
func runningPodOfRow(row metav1.TableRow, col map[string]int) (corev1.Pod, bool) {
	cell := func(name string) (string, bool) {
		i := col[name]
		if i >= len(row.Cells) {
			return "", false
		}
		switch v := row.Cells[i].(type) {
		case string:
			return v, true
		case float64:
			// (A server whose column is a number.)
			return strconv.FormatFloat(v, 'f', -1, 64), true
		}
		return "", false
	}
	status, ok1 := cell("status")
	ready, ok2 := cell("ready")
	restartsCell, ok3 := cell("restarts")
	node, ok4 := cell("node")
	if !ok1 || !ok2 || !ok3 || !ok4 || status != string(corev1.PodRunning) || !allReady(ready) {
		return corev1.Pod{}, false
	}
	// "3 (5m ago)": the restarts, then when the last was.
	count, _, _ := strings.Cut(restartsCell, " ")
	restarts, err := strconv.ParseInt(count, 10, 32)
	if err != nil || restarts < 0 {
		return corev1.Pod{}, false
	}
	var meta metav1.PartialObjectMetadata
	if len(row.Object.Raw) == 0 || json.Unmarshal(row.Object.Raw, &meta) != nil || meta.Name == "" || meta.DeletionTimestamp != nil {
		return corev1.Pod{}, false
	}
	if name, _ := cell("name"); name != meta.Name {
		return corev1.Pod{}, false
	}
	p := corev1.Pod{ObjectMeta: meta.ObjectMeta}
	p.ManagedFields = nil
	if node != "<none>" {
		p.Spec.NodeName = node
	}
	p.Status.Phase = corev1.PodRunning
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{
		Ready: true, RestartCount: int32(restarts),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
	}}
	return p, true
}

// allReady says whether a READY cell ("2/2") counts every container of
// the pod, at least one, ready.
func allReady(cell string) bool {
	readyS, totalS, found := strings.Cut(cell, "/")
	if !found {
		return false
	}
	ready, err1 := strconv.Atoi(readyS)
	total, err2 := strconv.Atoi(totalS)
	return err1 == nil && err2 == nil && total > 0 && ready == total
}
