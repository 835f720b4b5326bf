package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// tableOfPods asks the API server for its table of pods (what kubectl get
// pods prints), not for the pods: a row of a few cells each, however large
// the pods' specs are.
const tableOfPods = "application/json;as=Table;v=v1;g=meta.k8s.io"

// PodStatuses lists the pods of namespace that selector selects, as the API
// server's table of pods: each pod's name and its STATUS column, the
// reason kubectl shows ("Running", "ErrImageNeverPull",
// "Init:CrashLoopBackOff", ...).
func PodStatuses(ctx context.Context, kc kubernetes.Interface, namespace, selector string) (map[string]string, error) {
	rc, ok := kc.CoreV1().RESTClient().(*rest.RESTClient)
	if !ok || rc == nil {
		// A client with no REST client of its own (client-go's fake): the
		// pods, read as the table would show them.
		return podStatusesOfPods(ctx, kc, namespace, selector)
	}
	raw, err := rc.Get().Namespace(namespace).Resource("pods").
		Param("labelSelector", selector).SetHeader("Accept", tableOfPods).Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	return podStatusesOf(raw)
}

func podStatusesOf(raw []byte) (map[string]string, error) {
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		return nil, fmt.Errorf("reading the table of pods: %w", err)
	}
	name, status := -1, -1
	for i, c := range table.ColumnDefinitions {
		switch strings.ToLower(c.Name) {
		case "name":
			name = i
		case "status":
			status = i
		}
	}
	if name < 0 || status < 0 {
		return nil, fmt.Errorf("reading the table of pods: no name or status column")
	}
	out := make(map[string]string, len(table.Rows))
	for _, row := range table.Rows {
		if len(row.Cells) <= max(name, status) {
			continue
		}
		n, _ := row.Cells[name].(string)
		s, _ := row.Cells[status].(string)
		if n != "" {
			out[n] = s
		}
	}
	return out, nil
}

// podStatusesOfPods lists the pods and says of each what the table's
// status column would: the reason its first waiting init container, else
// container, waits with, else its phase.
func podStatusesOfPods(ctx context.Context, kc kubernetes.Interface, namespace, selector string) (map[string]string, error) {
	pods, err := kc.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(pods.Items))
	for i := range pods.Items {
		out[pods.Items[i].Name] = statusOf(&pods.Items[i])
	}
	return out, nil
}

func statusOf(p *corev1.Pod) string {
	for _, cs := range p.Status.InitContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" {
			return "Init:" + w.Reason
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			return w.Reason
		}
	}
	return string(p.Status.Phase)
}
