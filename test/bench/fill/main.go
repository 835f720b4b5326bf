// Command fill loads a cluster with TFJobs as easyai submits them and the
// training-operator runs them, and with their pods, for the list benchmark
// (test/bench/list.sh).
//
// Each job has 1 PS (no GPU) and -workers workers (1 GPU each), the labels
// and annotations easyai writes (docs/labels.md), and the status the
// operator writes for a running job (Created and Running true, every replica
// active). Its pods are named and labelled as the operator names them and
// owned by the job, but ask for a scheduler that does not exist, so they stay
// Pending and nothing else acts on them, unless -nodes binds them to fake
// nodes, which then run them (the logs benchmark). Jobs and pods also carry
// the labels arena's charts write (app=tfjob, release=<job>), by which arena
// lists and gets a TFJob and its pods, so that arena sees the same jobs when
// a benchmark times it (-arena-labels=false leaves them out). Run it on a cluster without the
// training-operator (EASYAI_CLUSTER_OPERATORS=none), so the jobs stay as
// written.
//
// -kind trainjob or -kind volcano makes Kubeflow Trainer TrainJobs
// (torch-distributed, -workers+1 nodes) or Volcano Jobs (one task of
// -workers+1 replicas) instead, with their pods named and labelled as the
// JobSet and Volcano controllers make them (the logs benchmark of those
// kinds); their jobs get no status.
//
// It is idempotent: objects that exist are kept (a job's status is written
// when it is not running yet), so a second run only completes what is missing.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	tfclient "github.com/kubeflow/training-operator/pkg/client/clientset/versioned"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

const (
	gpuResource   = corev1.ResourceName("nvidia.com/gpu")
	tfKind        = "tf"               // -kind's default: TFJobs
	controller    = "tfjob-controller" // the operator's OperatorNameLabel value for TFJobs
	cliVersion    = "v0.1.0-bench"
	noScheduler   = "easyai-bench-no-scheduler"
	containerName = "tensorflow"
	workerImage   = "tensorflow/tensorflow:2.16.1-gpu"
	psImage       = "tensorflow/tensorflow:2.16.1"
)

var users = []string{"alice@example.com", "bob@example.com", "carol@example.com", "dave@example.com", "erin@example.com"}

type options struct {
	kubeconfig  string
	jobs        int
	namespaces  int
	nsPrefix    string
	workers     int
	concurrency int
	qps         float64
	burst       int
	nodes       []string
	pods        bool
	arenaLabels bool
	kind        string
}

func main() {
	var o options
	flag.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "kubeconfig of the cluster to fill")
	flag.IntVar(&o.jobs, "jobs", 2000, "TFJobs to create, spread over the namespaces")
	flag.IntVar(&o.namespaces, "namespaces", 4, "namespaces to spread the jobs over")
	flag.StringVar(&o.nsPrefix, "namespace-prefix", "bench-team-", "namespaces are this prefix followed by 0, 1, ...")
	flag.IntVar(&o.workers, "workers", 4, "workers per job (with 1 GPU each), beside 1 PS")
	flag.IntVar(&o.concurrency, "concurrency", 16, "jobs filled at once")
	flag.Float64Var(&o.qps, "qps", 1000, "client-side rate limit (requests per second)")
	flag.IntVar(&o.burst, "burst", 2000, "client-side rate limit burst")
	flag.BoolVar(&o.pods, "pods", true, "create the jobs' pods too")
	flag.BoolVar(&o.arenaLabels, "arena-labels", true, "label jobs and pods as arena's charts do (app=tfjob, release=<job>), so that arena sees them")
	flag.StringVar(&o.kind, "kind", tfKind, "the jobs' kind: tf (TFJobs), trainjob (Kubeflow Trainer TrainJobs) or volcano (Volcano Jobs)")
	flag.Func("nodes", "comma-separated nodes to bind the pods to, in turn (fake nodes then run them); without it the pods stay Pending", func(v string) error {
		o.nodes = strings.Split(v, ",")
		return nil
	})
	flag.Parse()
	if _, other := otherKinds[o.kind]; !other && o.kind != tfKind {
		fmt.Fprintf(os.Stderr, "fill: -kind %q: not tf, trainjob or volcano\n", o.kind)
		os.Exit(2)
	}
	if err := run(context.Background(), &o); err != nil {
		fmt.Fprintln(os.Stderr, "fill:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, o *options) error {
	if o.kubeconfig == "" {
		return errors.New("no kubeconfig: set KUBECONFIG or -kubeconfig")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	tf, err := tfclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	// Core objects in protobuf, as the cluster's own controllers send them.
	pcfg := rest.CopyConfig(cfg)
	pcfg.ContentType = "application/vnd.kubernetes.protobuf"
	pcfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	kube, err := kubernetes.NewForConfig(pcfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	f := &filler{o: o, tf: tf, kube: kube, dynamic: dyn}

	start := time.Now()
	if err := f.namespaces(ctx); err != nil {
		return err
	}
	logf("namespaces ready in %s", since(start))

	jobs := make(chan int)
	errs := make(chan error, o.concurrency)
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range o.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := f.job(ctx, i); err != nil {
					errs <- err
					cancel()
					return
				}
			}
		}()
	}
feed:
	for i := range o.jobs {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	pods := o.jobs * (1 + o.workers)
	if !o.pods {
		pods = 0
	}
	logf("done: %d %s jobs and %d pods in %d namespaces in %s (jobs created %d, statuses written %d, pods created %d; the rest existed)",
		o.jobs, o.kind, pods, o.namespaces, since(start),
		f.jobsCreated.Load(), f.statuses.Load(), f.podsCreated.Load())
	return nil
}

type filler struct {
	o       *options
	tf      tfclient.Interface
	kube    kubernetes.Interface
	dynamic dynamic.Interface

	done, jobsCreated, statuses, podsCreated atomic.Int64
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[fill %s] %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func since(t time.Time) time.Duration { return time.Since(t).Round(10 * time.Millisecond) }

func (f *filler) namespace(i int) string { return f.o.nsPrefix + strconv.Itoa(i%f.o.namespaces) }

// namespaces creates the namespaces and waits for their default service
// account, without which the API server refuses pods.
func (f *filler) namespaces(ctx context.Context) error {
	for i := range f.o.namespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.namespace(i)}}
		if _, err := f.kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("namespace %s: %w", ns.Name, err)
		}
	}
	for i := range f.o.namespaces {
		ns := f.namespace(i)
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			_, err := f.kube.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return err == nil, err
		})
		if err != nil {
			return fmt.Errorf("namespace %s: no default service account: %w", ns, err)
		}
	}
	return nil
}

// job creates job i, writes its running status, then creates its pods.
func (f *filler) job(ctx context.Context, i int) error {
	ns, name := f.namespace(i), fmt.Sprintf("bench-%04d", i)
	user := users[i%len(users)]
	if k, other := otherKinds[f.o.kind]; other {
		return f.otherJob(ctx, k, ns, name, user, i)
	}
	tfjob, err := f.tf.KubeflowV1().TFJobs(ns).Create(ctx, f.tfjob(ns, name, user, i), metav1.CreateOptions{})
	switch {
	case err == nil:
		f.jobsCreated.Add(1)
	case apierrors.IsAlreadyExists(err):
		if tfjob, err = f.tf.KubeflowV1().TFJobs(ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("tfjob %s/%s: %w", ns, name, err)
		}
	default:
		return fmt.Errorf("tfjob %s/%s: %w", ns, name, err)
	}
	if !running(tfjob) {
		tfjob.Status = f.status(ns, name)
		if _, err := f.tf.KubeflowV1().TFJobs(ns).UpdateStatus(ctx, tfjob, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("tfjob %s/%s status: %w", ns, name, err)
		}
		f.statuses.Add(1)
	}
	if f.o.pods {
		for _, p := range f.pods(tfjob) {
			if err := f.createPod(ctx, p); err != nil {
				return err
			}
		}
	}
	f.jobDone()
	return nil
}

// createPod creates p unless it exists.
func (f *filler) createPod(ctx context.Context, p *corev1.Pod) error {
	_, err := f.kube.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
	switch {
	case err == nil:
		f.podsCreated.Add(1)
	case apierrors.IsAlreadyExists(err):
	default:
		return fmt.Errorf("pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return nil
}

// jobDone counts a job filled, and says so every 200 and at the last.
func (f *filler) jobDone() {
	if n := f.done.Add(1); n%200 == 0 || int(n) == f.o.jobs {
		logf("%d/%d jobs filled", n, f.o.jobs)
	}
}

func running(j *kubeflowv1.TFJob) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == kubeflowv1.JobRunning && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// labels are easyai's labels of job i, on the job and on its pod templates,
// with arena's when -arena-labels is set.
func (f *filler) labels(name, user string, i int) map[string]string {
	l := map[string]string{
		jobmodel.ManagedByLabel:  jobmodel.ManagedByValue,
		jobmodel.NameLabel:       name,
		jobmodel.KindLabel:       "tf",
		jobmodel.UserLabel:       labelSafe(user),
		jobmodel.ExperimentLabel: fmt.Sprintf("sweep-%02d", i%20),
	}
	if f.o.arenaLabels {
		// arena lists a kind's jobs and their pods by "app=<its kind>,release",
		// and gets a job's pods by release=<job>.
		l["app"], l["release"] = "tfjob", name
	}
	return l
}

func labelSafe(user string) string {
	b := []byte(user)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

func (f *filler) tfjob(ns, name, user string, i int) *kubeflowv1.TFJob {
	return &kubeflowv1.TFJob{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: ns,
			Labels:    f.labels(name, user, i),
			Annotations: map[string]string{
				jobmodel.UserAnnotation:    user,
				jobmodel.RequestAnnotation: request(name, i, f.o.workers),
				jobmodel.VersionAnnotation: cliVersion,
			},
		},
		Spec: kubeflowv1.TFJobSpec{
			RunPolicy: kubeflowv1.RunPolicy{
				CleanPodPolicy: ptr.To(kubeflowv1.CleanPodPolicyRunning),
				BackoffLimit:   ptr.To[int32](3),
			},
			TFReplicaSpecs: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaSpec{
				kubeflowv1.TFJobReplicaTypePS: {
					Replicas:      ptr.To[int32](1),
					RestartPolicy: kubeflowv1.RestartPolicyNever,
					Template:      f.template(name, user, i, psImage, "2", "4Gi", 0),
				},
				kubeflowv1.TFJobReplicaTypeWorker: {
					Replicas:      ptr.To(int32(f.o.workers)),
					RestartPolicy: kubeflowv1.RestartPolicyNever,
					Template:      f.template(name, user, i, workerImage, "4", "16Gi", 1),
				},
			},
		},
	}
}

// template is a pod template as easyai's tfjob chart renders it.
func (f *filler) template(name, user string, i int, image, cpu, memory string, gpus int64) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: f.labels(name, user, i)},
		Spec:       podSpec(image, cpu, memory, gpus),
	}
}

func podSpec(image, cpu, memory string, gpus int64) corev1.PodSpec {
	res := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(cpu),
		corev1.ResourceMemory: resource.MustParse(memory),
	}
	limits := res.DeepCopy()
	if gpus > 0 {
		limits[gpuResource] = *resource.NewQuantity(gpus, resource.DecimalSI)
	}
	return corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{
			Name:            containerName,
			Image:           image,
			ImagePullPolicy: corev1.PullIfNotPresent,
			Command:         []string{"python", "/opt/mnist/dist_mnist.py", "--train_steps=20000", "--batch_size=256"},
			WorkingDir:      "/opt/mnist",
			Env: []corev1.EnvVar{
				{Name: "TF_CPP_MIN_LOG_LEVEL", Value: "2"},
				{Name: "DATA_DIR", Value: "/data"},
			},
			Resources: corev1.ResourceRequirements{Requests: res, Limits: limits},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "dshm", MountPath: "/dev/shm"},
			},
		}},
		Volumes: []corev1.Volume{{
			Name: "dshm",
			VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
				Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(resource.MustParse("8Gi")),
			}},
		}},
	}
}

// request is the easyai.io/request annotation: the resolved values of the
// tfjob chart the job would have been rendered from, as JSON (about 1 KB).
func request(name string, i, workers int) string {
	v := map[string]any{
		"name":             name,
		"image":            workerImage,
		"imagePullPolicy":  "IfNotPresent",
		"imagePullSecrets": []any{},
		"command":          []string{"python", "/opt/mnist/dist_mnist.py", "--train_steps=20000", "--batch_size=256"},
		"workingDir":       "/opt/mnist",
		"env": []map[string]string{
			{"name": "TF_CPP_MIN_LOG_LEVEL", "value": "2"},
			{"name": "DATA_DIR", "value": "/data"},
		},
		"resources":         map[string]any{"cpu": "4", "memory": "16Gi", "gpus": 1},
		"gpuResource":       string(gpuResource),
		"shmSize":           "8Gi",
		"nodeSelector":      map[string]any{},
		"tolerations":       []any{},
		"priorityClassName": "",
		"restartPolicy":     "Never",
		"labels":            map[string]string{jobmodel.ExperimentLabel: fmt.Sprintf("sweep-%02d", i%20)},
		"annotations":       map[string]any{},
		"podAnnotations":    map[string]any{},
		"data":              []any{},
		"runPolicy": map[string]any{
			"gang": false, "queue": "", "minAvailable": nil, "backoffLimit": 3,
			"activeDeadlineSeconds": nil, "ttlSecondsAfterFinished": nil, "cleanPodPolicy": "Running",
		},
		"roles": map[string]any{
			"chief":     map[string]any{"replicas": 0},
			"ps":        map[string]any{"replicas": 1, "image": psImage, "resources": map[string]any{"cpu": "2", "memory": "4Gi", "gpus": 0}},
			"worker":    map[string]any{"replicas": workers},
			"evaluator": map[string]any{"replicas": 0},
		},
		"successPolicy": "",
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// status is what the operator writes for a job whose pods all run.
func (f *filler) status(ns, name string) kubeflowv1.JobStatus {
	now := metav1.Now()
	selector := func(rtype string) string {
		return fmt.Sprintf("%s=%s,%s=%s,%s=%s", kubeflowv1.JobNameLabel, name,
			kubeflowv1.OperatorNameLabel, controller, kubeflowv1.ReplicaTypeLabel, rtype)
	}
	cond := func(t kubeflowv1.JobConditionType, reason, verb string) kubeflowv1.JobCondition {
		return kubeflowv1.JobCondition{
			Type: t, Status: corev1.ConditionTrue, Reason: "TFJob" + reason,
			Message:        fmt.Sprintf("TFJob %s/%s is %s.", ns, name, verb),
			LastUpdateTime: now, LastTransitionTime: now,
		}
	}
	return kubeflowv1.JobStatus{
		Conditions: []kubeflowv1.JobCondition{
			cond(kubeflowv1.JobCreated, "Created", "created"),
			cond(kubeflowv1.JobRunning, "Running", "running"),
		},
		ReplicaStatuses: map[kubeflowv1.ReplicaType]*kubeflowv1.ReplicaStatus{
			kubeflowv1.TFJobReplicaTypePS:     {Active: 1, Selector: selector("ps")},
			kubeflowv1.TFJobReplicaTypeWorker: {Active: int32(f.o.workers), Selector: selector("worker")},
		},
		StartTime:         ptr.To(now),
		LastReconcileTime: ptr.To(now),
	}
}

// pods are the job's pods as the operator creates them: <job>-ps-0 and
// <job>-worker-<i>, owned by the job.
func (f *filler) pods(j *kubeflowv1.TFJob) []*corev1.Pod {
	owner := metav1.OwnerReference{
		APIVersion: kubeflowv1.SchemeGroupVersion.String(), Kind: kubeflowv1.TFJobKind,
		Name: j.Name, UID: j.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}
	var pods []*corev1.Pod
	for _, rtype := range []kubeflowv1.ReplicaType{kubeflowv1.TFJobReplicaTypePS, kubeflowv1.TFJobReplicaTypeWorker} {
		spec := j.Spec.TFReplicaSpecs[rtype]
		rt := string(rtype)
		lower := map[string]string{"PS": "ps", "Worker": "worker"}[rt]
		for idx := range int(ptr.Deref(spec.Replicas, 1)) {
			l := map[string]string{}
			for k, v := range spec.Template.Labels {
				l[k] = v
			}
			l[kubeflowv1.JobNameLabel] = j.Name
			l[kubeflowv1.OperatorNameLabel] = controller
			l[kubeflowv1.ReplicaTypeLabel] = lower
			l[kubeflowv1.ReplicaIndexLabel] = strconv.Itoa(idx)
			if rtype == kubeflowv1.TFJobReplicaTypeWorker && idx == 0 {
				l[kubeflowv1.JobRoleLabel] = "master"
			}
			ps := *spec.Template.Spec.DeepCopy()
			ps.SchedulerName = noScheduler
			if len(f.o.nodes) > 0 {
				ps.NodeName = f.o.nodes[len(pods)%len(f.o.nodes)]
			}
			ps.Containers[0].Env = append(ps.Containers[0].Env, corev1.EnvVar{Name: "TF_CONFIG", Value: tfConfig(j, lower, idx)})
			pods = append(pods, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{
					Name:            fmt.Sprintf("%s-%s-%d", j.Name, lower, idx),
					Namespace:       j.Namespace,
					Labels:          l,
					OwnerReferences: []metav1.OwnerReference{owner},
				},
				Spec: ps,
			})
		}
	}
	return pods
}

// tfConfig is the TF_CONFIG the operator gives a replica: every replica's
// address, and the replica's own role and index.
func tfConfig(j *kubeflowv1.TFJob, role string, index int) string {
	cluster := map[string][]string{}
	for rtype, spec := range j.Spec.TFReplicaSpecs {
		r := map[kubeflowv1.ReplicaType]string{kubeflowv1.TFJobReplicaTypePS: "ps", kubeflowv1.TFJobReplicaTypeWorker: "worker"}[rtype]
		for i := range int(ptr.Deref(spec.Replicas, 1)) {
			cluster[r] = append(cluster[r], fmt.Sprintf("%s-%s-%d.%s.svc:2222", j.Name, r, i, j.Namespace))
		}
	}
	b, err := json.Marshal(map[string]any{
		"cluster":     cluster,
		"task":        map[string]any{"type": role, "index": index},
		"environment": "cloud",
	})
	if err != nil {
		panic(err)
	}
	return string(b)
}
