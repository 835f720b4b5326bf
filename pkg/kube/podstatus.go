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
	rows, _, err := podRowsOf(raw)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.Name] = r.Status
	}
	return out, nil
}

// PodRow is one row of the API server's table of pods: a pod's name, where
// it is, its labels and its STATUS column.
type PodRow struct {
	Namespace, Name, Status string
	Labels                  map[string]string
}

// PodRows lists every pod of namespace ("": of every namespace) as the API
// server's table, in pages of PageSize rows: a few hundred bytes a pod,
// whatever its spec holds.
func PodRows(ctx context.Context, kc kubernetes.Interface, namespace string) ([]PodRow, error) {
	rc, ok := kc.CoreV1().RESTClient().(*rest.RESTClient)
	if !ok || rc == nil {
		return podRowsOfPods(ctx, kc, namespace)
	}
	var out []PodRow
	next := ""
	for {
		req := rc.Get().Resource("pods").Param("limit", "500").SetHeader("Accept", tableOfPods)
		if namespace != "" {
			req = req.Namespace(namespace)
		}
		if next != "" {
			req = req.Param("continue", next)
		}
		raw, err := req.Do(ctx).Raw()
		if err != nil {
			return nil, err
		}
		rows, cont, err := podRowsOf(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
		if next = cont; next == "" {
			return out, nil
		}
	}
}

// podRowsOf reads a table of pods: its rows with a name, and the token of
// the next page.
func podRowsOf(raw []byte) ([]PodRow, string, error) {
	var table metav1.Table
	if err := json.Unmarshal(raw, &table); err != nil {
		return nil, "", fmt.Errorf("reading the table of pods: %w", err)
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
		return nil, "", fmt.Errorf("reading the table of pods: no name or status column")
	}
	out := make([]PodRow, 0, len(table.Rows))
	for _, row := range table.Rows {
		if len(row.Cells) <= max(name, status) {
			continue
		}
		r := PodRow{}
		r.Name, _ = row.Cells[name].(string)
		r.Status, _ = row.Cells[status].(string)
		if r.Name == "" {
			continue
		}
		var meta metav1.PartialObjectMetadata
		if len(row.Object.Raw) > 0 && json.Unmarshal(row.Object.Raw, &meta) == nil {
			r.Namespace, r.Labels = meta.Namespace, meta.Labels
		}
		out = append(out, r)
	}
	return out, table.Continue, nil
}

// podRowsOfPods lists the pods and says of each what the table would.
func podRowsOfPods(ctx context.Context, kc kubernetes.Interface, namespace string) ([]PodRow, error) {
	pods, err := kc.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]PodRow, len(pods.Items))
	for i := range pods.Items {
		p := &pods.Items[i]
		out[i] = PodRow{Namespace: p.Namespace, Name: p.Name, Status: statusOf(p), Labels: p.Labels}
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
