//go:build e2e

// Package commands runs easyai's commands, as a user would, against the
// local cluster: jobs are made with client-go (as easyai submit or another
// tool would make them) and easyai reads, shows and deletes them.
package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	kfclient "github.com/kubeflow/training-operator/pkg/client/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

const timeout = 90 * time.Second

func clients(t *testing.T) (*cluster.Cluster, kfclient.Interface) {
	t.Helper()
	c := cluster.Get(t)
	// Build easyai before any job starts its clock.
	easyai.Binary(t)
	return c, kfclient.NewForConfigOrDie(c.Config)
}

// labels are those easyai submit puts on a job; user "" leaves them out, as
// kubectl apply of a hand-written manifest would.
func labels(name, kind, user, experiment string) map[string]string {
	if user == "" {
		return nil
	}
	l := map[string]string{
		jobmodel.ManagedByLabel: jobmodel.ManagedByValue, jobmodel.NameLabel: name, jobmodel.KindLabel: kind, jobmodel.UserLabel: user,
	}
	if experiment != "" {
		l[jobmodel.ExperimentLabel] = experiment
	}
	return l
}

func annotations(user, image string, command ...string) map[string]string {
	if user == "" {
		return nil
	}
	request, _ := json.Marshal(map[string]any{"image": image, "command": command})
	return map[string]string{jobmodel.UserAnnotation: user, jobmodel.RequestAnnotation: string(request), jobmodel.VersionAnnotation: "e2e"}
}

// replica is a role whose pods ask for gpus GPUs and, when runFor > 0, end
// with exit code 0 after running that long (else they run until deleted).
func replica(n int32, gpus int64, runFor time.Duration, container string) *kubeflowv1.ReplicaSpec {
	c := corev1.Container{Name: container, Image: "example.com/train:1", Command: []string{"python", "train.py"}}
	if gpus > 0 {
		c.Resources.Limits = corev1.ResourceList{"nvidia.com/gpu": *resource.NewQuantity(gpus, resource.DecimalSI)}
	}
	var annotations map[string]string
	if runFor > 0 {
		annotations = cluster.ExitAfter(0, runFor)
	}
	return &kubeflowv1.ReplicaSpec{
		Replicas:      ptr.To(n),
		RestartPolicy: kubeflowv1.RestartPolicyNever,
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{c}},
		},
	}
}

// createTFJob makes a TFJob of one PS and workers; the workers end after
// runFor (0: never).
func createTFJob(t *testing.T, kf kfclient.Interface, ns, name string, workers int32, runFor time.Duration, user, experiment string) {
	t.Helper()
	j := &kubeflowv1.TFJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels(name, "tf", user, experiment),
			Annotations: annotations(user, "example.com/train:2", "python", "mnist.py", "--epochs", "3")},
		Spec: kubeflowv1.TFJobSpec{TFReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.TFJobReplicaTypePS:     replica(1, 0, 0, "tensorflow"),
			kubeflowv1.TFJobReplicaTypeWorker: replica(workers, 1, runFor, "tensorflow"),
		}},
	}
	if _, err := kf.KubeflowV1().TFJobs(ns).Create(cluster.Context(t, 30*time.Second), j, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func createPyTorchJob(t *testing.T, kf kfclient.Interface, ns, name, user, experiment string) {
	t.Helper()
	j := &kubeflowv1.PyTorchJob{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels(name, "pytorch", user, experiment),
			Annotations: annotations(user, "example.com/torch:1", "torchrun", "train.py")},
		Spec: kubeflowv1.PyTorchJobSpec{PyTorchReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
			kubeflowv1.PyTorchJobReplicaTypeMaster: replica(1, 2, 0, "pytorch"),
			kubeflowv1.PyTorchJobReplicaTypeWorker: replica(1, 2, 0, "pytorch"),
		}},
	}
	if _, err := kf.KubeflowV1().PyTorchJobs(ns).Create(cluster.Context(t, 30*time.Second), j, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// rows runs easyai list (no terminal: tab-separated, no header) and returns
// its rows by job name.
func rows(t *testing.T, args ...string) map[string][]string {
	t.Helper()
	r := easyai.Run(t, append([]string{"list"}, args...)...).MustSucceed(t)
	out := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n") {
		if line == "" {
			continue
		}
		cells := strings.Split(line, "\t")
		out[cells[0]] = cells
	}
	return out
}

// eventually retries check, a description of what is still wrong or "", until
// it passes.
func eventually(t *testing.T, what string, check func() string) {
	t.Helper()
	var last string
	cluster.Eventually(t, timeout, what, func(context.Context) (bool, error) {
		last = check()
		return last == "", nil
	})
	if last != "" {
		t.Fatalf("%s: %s", what, last)
	}
}

func TestListShowsJobsOfEveryKind(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	// mnist's workers end with exit code 0 after running 25s: time to see the
	// job Running, then Succeeded.
	createTFJob(t, kf, ns, "mnist", 2, 25*time.Second, "alice", "lr-sweep")
	createPyTorchJob(t, kf, ns, "resnet", "bob", "")
	createTFJob(t, kf, ns, "handmade", 1, 0, "", "")

	// NAME KIND STATUS WORKERS GPUS AGE DURATION USER
	want := map[string][]string{
		"mnist":    {"mnist", "tf", "Running", "3/3", "2"},
		"resnet":   {"resnet", "pytorch", "Running", "2/2", "4"},
		"handmade": {"handmade", "tf", "Running", "2/2", "1"},
	}
	users := map[string]string{"mnist": "alice", "resnet": "bob", "handmade": "(external)"}
	check := func(got map[string][]string, name string) string {
		row, w := got[name], want[name]
		if len(row) != 8 || strings.Join(row[:5], " ") != strings.Join(w, " ") || row[7] != users[name] {
			return fmt.Sprintf("%s: %q, want %q ... %s", name, row, w, users[name])
		}
		return ""
	}
	eventually(t, "list shows mnist running", func() string { return check(rows(t, "-n", ns), "mnist") })
	eventually(t, "list shows resnet and handmade running", func() string {
		got := rows(t, "-n", ns)
		if len(got) != 3 {
			return fmt.Sprintf("%d jobs listed, want 3", len(got))
		}
		return check(got, "resnet") + check(got, "handmade")
	})

	wide := rows(t, "-n", ns, "-o", "wide")
	// ... EXPERIMENT REASON MANAGED-BY
	if row := wide["mnist"]; len(row) != 11 || row[8] != "lr-sweep" || row[10] != "easyai" {
		t.Errorf("wide mnist row %q", row)
	}
	if row := wide["handmade"]; len(row) != 11 || row[7] != "(external)" || row[10] != "-" {
		t.Errorf("wide handmade row %q", row)
	}

	r := easyai.Run(t, "list", "-n", ns, "-o", "json").MustSucceed(t)
	var list jobmodel.List
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatalf("list -o json: %v\n%s", err, r.Stdout)
	}
	byName := map[string]jobmodel.Item{}
	for _, it := range list.Items {
		byName[it.Name] = it
	}
	if list.APIVersion != "easyai.io/v1" || list.Kind != "JobList" || len(list.Items) != 3 {
		t.Errorf("JobList %+v", list)
	}
	if it := byName["resnet"]; it.KindName != "pytorch" || it.ObjectKind != "PyTorchJob" || it.User != "bob" || it.ManagedBy != "easyai" || it.GPUs != 4 {
		t.Errorf("resnet item %+v", it)
	}
	if it := byName["handmade"]; it.ManagedBy != "" || it.User != "" || it.Namespace != ns {
		t.Errorf("handmade item %+v", it)
	}

	// Filters: kind (by name and by the CRD's kind), experiment, user, -A.
	if got := easyai.Run(t, "list", "-n", ns, "--kind", "pytorch", "-o", "name").MustSucceed(t).Stdout; got != "pytorch/resnet\n" {
		t.Errorf("--kind pytorch: %q", got)
	}
	if got := rows(t, "-n", ns, "--kind", "TFJob"); len(got) != 2 || got["resnet"] != nil {
		t.Errorf("--kind TFJob: %v", got)
	}
	if got := rows(t, "-n", ns, "--experiment", "lr-sweep"); len(got) != 1 || got["mnist"] == nil {
		t.Errorf("--experiment lr-sweep: %v", got)
	}
	if got := rows(t, "-n", ns, "--user", "bob"); len(got) != 1 || got["resnet"] == nil {
		t.Errorf("--user bob: %v", got)
	}
	all := easyai.Run(t, "list", "-A", "-l", jobmodel.ExperimentLabel+"=lr-sweep").MustSucceed(t).Stdout
	if !strings.Contains(all, ns+"\tmnist\ttf\t") {
		t.Errorf("-A does not show %s/mnist:\n%s", ns, all)
	}
	if r := easyai.Run(t, "list", "-n", ns, "--status", "finished"); r.Code != 2 || !strings.Contains(r.Stderr, `--status "finished"`) {
		t.Errorf("--status finished: exit %d, stderr %q", r.Code, r.Stderr)
	}

	// Then the workers of mnist end: the job succeeds.
	eventually(t, "mnist Succeeded", func() string {
		row := rows(t, "-n", ns, "--status", "succeeded")["mnist"]
		if row == nil {
			return "not listed as succeeded"
		}
		if row[3] != "0/3" || row[6] == "-" {
			return fmt.Sprintf("row %q: want 0/3 running and a duration", row)
		}
		return ""
	})
	if got := rows(t, "-n", ns)["resnet"]; got == nil || got[2] != "Running" {
		t.Errorf("resnet after mnist ended: %q", got)
	}
}

func TestGetShowsReplicasAndWhy(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	createTFJob(t, kf, ns, "mnist", 2, 0, "alice", "")

	eventually(t, "get shows every replica running", func() string {
		r := easyai.Run(t, "get", "mnist", "-n", ns)
		if r.Code != 0 {
			return r.Stderr
		}
		for _, task := range []string{"ps-0", "worker-0", "worker-1"} {
			if !hasRow(r.Stdout, task, "Running") {
				return task + " is not Running:\n" + r.Stdout
			}
		}
		if !strings.Contains(r.Stdout, "Status:     Running") {
			return "job not Running:\n" + r.Stdout
		}
		return ""
	})
	// The real API server's table of pods, which get reads for a running
	// job, says of each pod what the pods say (kube.RunningPods).
	ctx := cluster.Context(t, time.Minute)
	selector := kubeflowv1.JobNameLabel + "=mnist"
	fromTable, ok, err := kube.RunningPods(ctx, c.Kube, ns, selector)
	if err != nil || !ok || len(fromTable) != 3 {
		t.Fatalf("the table of mnist's pods: %d pods, ok %v, err %v; want 3 running pods read from it", len(fromTable), ok, err)
	}
	pods, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]corev1.Pod{}
	for _, p := range fromTable {
		byName[p.Name] = p
	}
	for _, want := range pods.Items {
		got, found := byName[want.Name]
		var restarts int32
		for _, cs := range want.Status.ContainerStatuses {
			restarts += cs.RestartCount
		}
		if !found || got.Spec.NodeName != want.Spec.NodeName || got.Spec.NodeName == "" || got.Namespace != ns ||
			!got.CreationTimestamp.Equal(&want.CreationTimestamp) || got.Labels[kubeflowv1.ReplicaTypeLabel] != want.Labels[kubeflowv1.ReplicaTypeLabel] ||
			got.Labels[kubeflowv1.ReplicaIndexLabel] != want.Labels[kubeflowv1.ReplicaIndexLabel] || got.Status.ContainerStatuses[0].RestartCount != restarts {
			t.Errorf("pod %s from the table: %+v; the pod: node %q, labels %v, created %v, restarts %d", want.Name, got.ObjectMeta, want.Spec.NodeName, want.Labels, want.CreationTimestamp, restarts)
		}
	}

	r := easyai.Run(t, "get", "tf/mnist", "-n", ns).MustSucceed(t)
	for _, line := range []string{"Name:       mnist\n", "Namespace:  " + ns + "\n", "Kind:       tf (TFJob.kubeflow.org/v1)\n",
		"User:       alice\n", "Image:      example.com/train:2\n", "Command:    python mnist.py --epochs 3\n", "GPUs:       2\n",
		"TASK       STATUS    NODE"} {
		if !strings.Contains(r.Stdout, line) {
			t.Errorf("get lacks %q:\n%s", line, r.Stdout)
		}
	}

	// worker-1 exits 3: the job fails, and get says which replica did it.
	c.EndPod(t, ns, "mnist-worker-1", 3)
	var doc jobmodel.Document
	eventually(t, "mnist Failed with worker-1's exit code", func() string {
		r := easyai.Run(t, "get", "mnist", "-n", ns, "-o", "json")
		if err := json.Unmarshal([]byte(r.Stdout), &doc); err != nil {
			return fmt.Sprintf("-o json: %v: %s", err, r.Stdout)
		}
		if doc.Status.State != jobmodel.Failed {
			return "state " + string(doc.Status.State)
		}
		for _, rep := range doc.Replicas {
			if rep.Task == "worker-1" && rep.ExitCode != nil && *rep.ExitCode == 3 && rep.Phase == "Failed" {
				return ""
			}
		}
		return fmt.Sprintf("replicas %+v", doc.Replicas)
	})
	if doc.APIVersion != "easyai.io/v1" || doc.DocumentKind != "Job" || doc.KindName != "tf" || doc.Request["image"] != "example.com/train:2" ||
		doc.Finished == nil || len(doc.Replicas) != 3 {
		t.Errorf("document %+v", doc)
	}
	r = easyai.Run(t, "get", "mnist", "-n", ns).MustSucceed(t)
	if !hasRow(r.Stdout, "worker-1", "Failed") || !strings.Contains(r.Stdout, "Status:     Failed") {
		t.Errorf("get after the failure:\n%s", r.Stdout)
	}

	raw := easyai.Run(t, "get", "mnist", "-n", ns, "--raw").MustSucceed(t)
	if !strings.Contains(raw.Stdout, "kind: TFJob\n") || !strings.Contains(raw.Stdout, "tfReplicaSpecs:") {
		t.Errorf("--raw:\n%s", raw.Stdout)
	}

	missing := easyai.Run(t, "get", "nosuchjob", "-n", ns)
	if missing.Code != 3 || missing.Stderr != "Error: job nosuchjob not found in namespace "+ns+"\n" || missing.Stdout != "" {
		t.Errorf("get of a missing job: exit %d, stderr %q", missing.Code, missing.Stderr)
	}
}

// hasRow reports whether a table has a row starting with first whose second
// column is second.
func hasRow(table, first, second string) bool {
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == first && f[1] == second {
			return true
		}
	}
	return false
}

func TestDeleteRemovesTheJobAndItsPods(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	createTFJob(t, kf, ns, "mnist", 2, 0, "alice", "")
	pods := func(ctx context.Context, name string) (int, error) {
		l, err := c.Kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: kubeflowv1.JobNameLabel + "=" + name})
		if err != nil {
			return 0, err
		}
		return len(l.Items), nil
	}
	cluster.Eventually(t, timeout, "the 3 pods of mnist", func(ctx context.Context) (bool, error) {
		n, err := pods(ctx, "mnist")
		return n == 3, err
	})

	r := easyai.Run(t, "delete", "mnist", "-n", ns)
	if r.Code != 2 || !strings.Contains(r.Stderr, "--yes") || r.Stdout != "" {
		t.Errorf("delete without --yes and no terminal: exit %d, stderr %q", r.Code, r.Stderr)
	}
	if _, err := kf.KubeflowV1().TFJobs(ns).Get(cluster.Context(t, 10*time.Second), "mnist", metav1.GetOptions{}); err != nil {
		t.Fatalf("the job is gone although delete refused: %v", err)
	}

	r = easyai.Run(t, "delete", "tf/mnist", "-n", ns, "--yes").MustSucceed(t)
	if r.Stdout != "deleted tf/mnist\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	cluster.Eventually(t, timeout, "mnist and its pods gone", func(ctx context.Context) (bool, error) {
		_, err := kf.KubeflowV1().TFJobs(ns).Get(ctx, "mnist", metav1.GetOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return false, err
		}
		n, perr := pods(ctx, "mnist")
		return apierrors.IsNotFound(err) && n == 0, perr
	})

	again := easyai.Run(t, "delete", "mnist", "-n", ns, "--yes")
	if again.Code != 3 || again.Stderr != "Error: job mnist not found in namespace "+ns+"\n" {
		t.Errorf("delete of a deleted job: exit %d, stderr %q", again.Code, again.Stderr)
	}
}

func TestDeleteAllOfAnExperiment(t *testing.T) {
	t.Parallel()
	c, kf := clients(t)
	ns := c.Namespace(t)
	createTFJob(t, kf, ns, "lr-1", 1, 0, "alice", "sweep")
	createPyTorchJob(t, kf, ns, "lr-2", "alice", "sweep")
	createTFJob(t, kf, ns, "keep", 1, 0, "alice", "other")
	createTFJob(t, kf, ns, "handmade", 1, 0, "", "")

	r := easyai.Run(t, "delete", "--all", "--experiment", "sweep", "-n", ns, "--yes").MustSucceed(t)
	if r.Stdout != "deleted pytorch/lr-2\ndeleted tf/lr-1\n" && r.Stdout != "deleted tf/lr-1\ndeleted pytorch/lr-2\n" {
		t.Errorf("stdout %q", r.Stdout)
	}
	if got := easyai.Run(t, "list", "-n", ns, "-o", "name").MustSucceed(t).Stdout; got != "tf/handmade\ntf/keep\n" && got != "tf/keep\ntf/handmade\n" {
		t.Errorf("left after delete --all --experiment sweep: %q", got)
	}
	// --all never deletes jobs other tools made.
	easyai.Run(t, "delete", "--all", "-n", ns, "--yes").MustSucceed(t)
	if got := easyai.Run(t, "list", "-n", ns, "-o", "name").MustSucceed(t).Stdout; got != "tf/handmade\n" {
		t.Errorf("left after delete --all: %q", got)
	}
}
