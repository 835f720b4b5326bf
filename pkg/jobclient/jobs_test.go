package jobclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

var (
	t0  = jobclienttest.T0
	now = jobclienttest.Now
	ctx = context.Background()
)

func TestMain(m *testing.M) {
	// The converter reads times in the local zone; documents print them so.
	time.Local = time.UTC
	os.Exit(m.Run())
}

func at(d time.Duration) *time.Time { t := t0.Add(d); return &t }

func worker(n, gpus, active int32) jobclienttest.Role {
	return jobclienttest.Role{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: n, GPUs: int64(gpus), Active: active}
}

func fixtures() []runtime.Object { return jobclienttest.Fixtures() }

func client(objs ...runtime.Object) *jobclient.Client {
	return &jobclient.Client{Dynamic: jobclienttest.Dynamic(objs...), Kube: kubefake.NewClientset(), Kinds: jobclienttest.Registry(), GPUResource: "nvidia.com/gpu"}
}

func names(js []jobclient.Listed) []string {
	var out []string
	for _, j := range js {
		out = append(out, j.Summary.Namespace+"/"+j.Kind.Name()+"/"+j.Summary.Name+":"+string(j.Summary.Status.State))
	}
	return out
}

func kind(t *testing.T, name string) kinds.Kind {
	t.Helper()
	k, ok := jobclienttest.Registry().Lookup(name)
	if !ok {
		t.Fatalf("no kind %s", name)
	}
	return k
}

func TestListSortsAndSummarizesEveryKind(t *testing.T) {
	c := client(fixtures()...)
	res, err := c.List(ctx, jobclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"team-a/pytorch/resnet:Queued", "team-a/tf/mnist:Running", "team-a/tf/old:Succeeded",
		"team-b/tf/bert:Failed",
	}
	if got := names(res.Jobs); !reflect.DeepEqual(got, want) {
		t.Errorf("jobs %v\nwant %v", got, want)
	}
	mnist := res.Jobs[1].Summary
	if mnist.Workers != (jobmodel.ReplicaCount{Ready: 3, Total: 3}) || mnist.GPUs != 2 || mnist.User != "alice@corp" {
		t.Errorf("mnist summary %+v", mnist)
	}
	resnet := res.Jobs[0].Summary
	if resnet.GPUs != 32 || resnet.ByEasyAI() || resnet.User != "" {
		t.Errorf("resnet summary %+v", resnet)
	}
}

// pagingDynamic serves each kind's jobs in pages of one and records the
// options of every LIST (the fake dynamic client drops Limit and Continue).
type pagingDynamic struct {
	dynamic.Interface
	mu    sync.Mutex
	lists []string
	jobs  map[string][]unstructured.Unstructured
}

func (d *pagingDynamic) Resource(gvr schema.GroupVersionResource) dynamic.NamespaceableResourceInterface {
	return pagingResource{d.Interface.Resource(gvr), d, gvr.Resource}
}

type pagingResource struct {
	dynamic.NamespaceableResourceInterface
	d        *pagingDynamic
	resource string
}

func (r pagingResource) Namespace(ns string) dynamic.ResourceInterface { return r }

func (r pagingResource) List(_ context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	r.d.mu.Lock()
	defer r.d.mu.Unlock()
	r.d.lists = append(r.d.lists, fmt.Sprintf("%s limit=%d continue=%q", r.resource, opts.Limit, opts.Continue))
	page := 0
	if opts.Continue != "" {
		page, _ = strconv.Atoi(opts.Continue)
	}
	list := &unstructured.UnstructuredList{}
	if page < len(r.d.jobs[r.resource]) {
		list.Items = r.d.jobs[r.resource][page : page+1]
	}
	if page+1 < len(r.d.jobs[r.resource]) {
		list.SetContinue(strconv.Itoa(page + 1))
	}
	return list, nil
}

func TestListMakesOnePaginatedListPerKindAndNothingElse(t *testing.T) {
	d := &pagingDynamic{Interface: jobclienttest.Dynamic(), jobs: map[string][]unstructured.Unstructured{}}
	for i := range 3 {
		d.jobs["tfjobs"] = append(d.jobs["tfjobs"], *jobclienttest.Job{Name: fmt.Sprintf("tf-%d", i), Created: t0.Add(time.Duration(i) * time.Minute)}.Object())
	}
	d.jobs["pytorchjobs"] = []unstructured.Unstructured{*jobclienttest.Job{APIKind: "PyTorchJob", Name: "pt", Created: t0.Add(-time.Minute)}.Object()}
	// No Kube client: listing must not need pods or anything else.
	c := &jobclient.Client{Dynamic: d, Kinds: jobclienttest.Registry(), GPUResource: "nvidia.com/gpu"}
	res, err := c.List(ctx, jobclient.ListOptions{Namespace: "team-a"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := names(res.Jobs), []string{"team-a/tf/tf-2:Pending", "team-a/tf/tf-1:Pending", "team-a/tf/tf-0:Pending", "team-a/pytorch/pt:Pending"}; !reflect.DeepEqual(got, want) {
		t.Errorf("jobs %v\nwant %v", got, want)
	}
	sort.Strings(d.lists)
	want := []string{
		`colossalaijobs limit=500 continue=""`, `jaxjobs limit=500 continue=""`, `jobs limit=500 continue=""`, `mpijobs limit=500 continue=""`, `paddlejobs limit=500 continue=""`,
		`pytorchjobs limit=500 continue=""`,
		`tfjobs limit=500 continue=""`, `tfjobs limit=500 continue="1"`, `tfjobs limit=500 continue="2"`, `trainjobs limit=500 continue=""`,
		`xgboostjobs limit=500 continue=""`,
	}
	if !reflect.DeepEqual(d.lists, want) {
		t.Errorf("requests\n%q\nwant\n%q", d.lists, want)
	}
}

func TestListFilters(t *testing.T) {
	tests := []struct {
		name string
		opts jobclient.ListOptions
		want []string
	}{
		{"namespace", jobclient.ListOptions{Namespace: "team-b"}, []string{"team-b/tf/bert:Failed"}},
		{"kind", jobclient.ListOptions{Kinds: []kinds.Kind{kind(t, "pytorch")}}, []string{"team-a/pytorch/resnet:Queued"}},
		{"states", jobclient.ListOptions{States: []jobmodel.State{jobmodel.Failed, jobmodel.Succeeded}}, []string{"team-a/tf/old:Succeeded", "team-b/tf/bert:Failed"}},
		{"experiment", jobclient.ListOptions{Experiment: "lr-sweep"}, []string{"team-a/tf/mnist:Running"}},
		{"selector", jobclient.ListOptions{LabelSelector: "easyai.io/user=bob"}, []string{"team-a/tf/old:Succeeded"}},
		{"managed only", jobclient.ListOptions{Namespace: "team-a", ManagedOnly: true}, []string{"team-a/tf/mnist:Running", "team-a/tf/old:Succeeded"}},
		{"user, exact", jobclient.ListOptions{User: "alice@corp"}, []string{"team-a/tf/mnist:Running", "team-b/tf/bert:Failed"}},
		{"user, label form", jobclient.ListOptions{User: "alice_corp"}, []string{"team-a/tf/mnist:Running", "team-b/tf/bert:Failed"}},
		{"user nobody", jobclient.ListOptions{User: "carol"}, nil},
	}
	objs := fixtures()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := client(objs...).List(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(res.Jobs); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("jobs %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestListTellsUsersWithTheSameLabelApart(t *testing.T) {
	objs := []runtime.Object{
		jobclienttest.Job{Name: "a", Created: t0, User: "alice@corp"}.Object(),
		jobclienttest.Job{Name: "b", Created: t0, User: "alice_corp"}.Object(),
		jobclienttest.Job{Name: "c", Created: t0, Labels: map[string]string{jobmodel.UserLabel: "alice_corp"}}.Object(), // no annotation
	}
	for user, want := range map[string][]string{
		"alice@corp": {"team-a/tf/a:Pending", "team-a/tf/c:Pending"},
		"alice_corp": {"team-a/tf/a:Pending", "team-a/tf/b:Pending", "team-a/tf/c:Pending"},
	} {
		res, err := client(objs...).List(ctx, jobclient.ListOptions{User: user})
		if err != nil {
			t.Fatal(err)
		}
		if got := names(res.Jobs); !reflect.DeepEqual(got, want) {
			t.Errorf("--user %s: %v, want %v", user, got, want)
		}
	}
}

func TestListSkipsKindsNotInstalled(t *testing.T) {
	dyn := jobclienttest.Dynamic(fixtures()...)
	jobclienttest.NotInstalled(dyn, "pytorchjobs")
	c := &jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}
	res, err := c.List(ctx, jobclient.ListOptions{Namespace: "team-a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(res.Jobs); !reflect.DeepEqual(got, []string{"team-a/tf/mnist:Running", "team-a/tf/old:Succeeded"}) {
		t.Errorf("jobs %v", got)
	}
	if len(res.NotInstalled) != 1 || res.NotInstalled[0].Name() != "pytorch" {
		t.Errorf("not installed %v, want pytorch", res.NotInstalled)
	}
}

// A kind the user may not list is skipped: the jobs of the others are
// listed (one kind's 403 does not cancel the other LISTs).
func TestListSkipsKindsRefused(t *testing.T) {
	dyn := jobclienttest.Dynamic(fixtures()...)
	jobclienttest.Refuse(dyn, "list", "tfjobs")
	jobclienttest.Refuse(dyn, "list", "colossalaijobs")
	res, err := (&jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}).List(ctx, jobclient.ListOptions{Namespace: "team-a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(res.Jobs); !reflect.DeepEqual(got, []string{"team-a/pytorch/resnet:Queued"}) {
		t.Errorf("jobs %v, want the PyTorchJob", got)
	}
	var refused []string
	for _, k := range res.Refused {
		refused = append(refused, k.Name())
	}
	if !reflect.DeepEqual(refused, []string{"colossalai", "tf"}) {
		t.Errorf("refused %v, want colossalai and tf", refused)
	}
}

// Only when every kind is refused does List fail: one error naming the
// namespace and what is missing, pointing at easyai doctor.
func TestListFailsWhenEveryKindIsRefused(t *testing.T) {
	dyn := jobclienttest.Dynamic(fixtures()...)
	jobclienttest.Refuse(dyn, "list", "*")
	jobclienttest.NotInstalled(dyn, "colossalaijobs")
	c := &jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}
	_, err := c.List(ctx, jobclient.ListOptions{Namespace: "team-b"})
	want := "you may not list jobs in namespace team-b: list is forbidden on jaxjobs.kubeflow.org, jobs.batch.volcano.sh, " +
		"mpijobs.kubeflow.org, paddlejobs.kubeflow.org, pytorchjobs.kubeflow.org, tfjobs.kubeflow.org, trainjobs.trainer.kubeflow.org, xgboostjobs.kubeflow.org"
	if err == nil || err.Error() != want || exit.Code(err) != exit.Error || !apierrors.IsForbidden(err) {
		t.Fatalf("err %v (exit %d)\nwant %s", err, exit.Code(err), want)
	}
	if hint := exit.Hint(err); hint != `"easyai doctor -n team-b" shows what you may do there, and what you may not` {
		t.Errorf("hint %q", hint)
	}
	_, err = c.List(ctx, jobclient.ListOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "you may not list jobs across namespaces: list is forbidden on ") ||
		!strings.Contains(exit.Hint(err), "-n NAMESPACE") {
		t.Errorf("list -A: %v (hint %q)", err, exit.Hint(err))
	}
}

// Any other failure is one error, of the first kind in the registry's
// order, the same on every run.
func TestListFailsOnOtherErrorsWithOneError(t *testing.T) {
	dyn := jobclienttest.Dynamic()
	dyn.PrependReactor("list", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf("Get \"https://127.0.0.1:1/apis/x/%s\": dial tcp 127.0.0.1:1: connect: connection refused", a.GetResource().Resource)
	})
	c := &jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}
	for range 5 {
		_, err := c.List(ctx, jobclient.ListOptions{Namespace: "team-a"})
		want := `listing ColossalAIJob: Get "https://127.0.0.1:1/apis/x/colossalaijobs": dial tcp 127.0.0.1:1: connect: connection refused`
		if err == nil || err.Error() != want {
			t.Fatalf("err %v\nwant %s", err, want)
		}
	}
}

func TestListShowsAJobItCannotReadAsUnknown(t *testing.T) {
	bad := jobclienttest.Job{Name: "weird", Created: t0}.Object()
	_ = unstructured.SetNestedField(bad.Object, "not-a-map", "status")
	res, err := client(bad).List(ctx, jobclient.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 || res.Jobs[0].Summary.Status.State != jobmodel.Unknown || res.Jobs[0].Summary.Status.Reason != "Unreadable" {
		t.Errorf("jobs %+v", res.Jobs)
	}
}

func TestParseRef(t *testing.T) {
	reg := jobclienttest.Registry()
	tests := []struct {
		arg, kind string
		want      string
		usage     string
	}{
		{arg: "mnist", want: "mnist"},
		{arg: "tf/mnist", want: "tf/mnist"},
		{arg: "tfjob/mnist", want: "tf/mnist"},
		{arg: "TFJob/mnist", want: "tf/mnist"},
		{arg: "mnist", kind: "pytorchjob", want: "pytorch/mnist"},
		{arg: "tf/mnist", kind: "tensorflow", want: "tf/mnist"},
		{arg: "nosuchkind/mnist", usage: `"nosuchkind/mnist": unknown kind "nosuchkind" (known: colossalai, jax, mpi, paddle, pytorch, tf, trainjob, volcano, xgboost)`},
		{arg: "mnist", kind: "nosuchkind", usage: `--kind "nosuchkind": unknown kind (known: colossalai, jax, mpi, paddle, pytorch, tf, trainjob, volcano, xgboost)`},
		{arg: "tf/mnist", kind: "pytorch", usage: `"tf/mnist" is a tf job but --kind says pytorch`},
		{arg: "tf/", usage: `"tf/": a job is NAME or KIND/NAME`},
		{arg: "tf/a/b", usage: `"tf/a/b": a job is NAME or KIND/NAME`},
	}
	for _, tt := range tests {
		ref, err := kinds.ParseRef(reg, tt.arg, tt.kind)
		if tt.usage != "" {
			if exit.Code(err) != exit.Usage || err.Error() != tt.usage {
				t.Errorf("ParseRef(%q, %q) error %v (code %d), want usage error %q", tt.arg, tt.kind, err, exit.Code(err), tt.usage)
			}
			continue
		}
		if err != nil || ref.String() != tt.want {
			t.Errorf("ParseRef(%q, %q) = %q, %v; want %q", tt.arg, tt.kind, ref, err, tt.want)
		}
	}
}

func TestFind(t *testing.T) {
	objs := append(fixtures(), jobclienttest.Job{APIKind: "PyTorchJob", Name: "mnist", Created: t0}.Object())
	tf, pt := kind(t, "tf"), kind(t, "pytorch")

	k, obj, err := client(objs...).Find(ctx, "team-a", kinds.Ref{Name: "resnet"})
	if err != nil || k.Name() != "pytorch" || obj.GetName() != "resnet" {
		t.Errorf("Find(resnet) = %v, %v, %v", k, obj, err)
	}
	_, _, err = client(objs...).Find(ctx, "team-a", kinds.Ref{Name: "mnist"})
	if exit.Code(err) != exit.Usage || err.Error() != "there are 2 jobs named mnist in namespace team-a (pytorch/mnist, tf/mnist): name one as KIND/NAME or with --kind" {
		t.Errorf("Find(mnist) in two kinds: %v", err)
	}
	if k, _, err = client(objs...).Find(ctx, "team-a", kinds.Ref{Kind: tf, Name: "mnist"}); err != nil || k.Name() != tf.Name() {
		t.Errorf("Find(tf/mnist) = %v, %v", k, err)
	}
	_, _, err = client(objs...).Find(ctx, "team-a", kinds.Ref{Name: "ghost"})
	if exit.Code(err) != exit.NotFound || err.Error() != "job ghost not found in namespace team-a" {
		t.Errorf("Find(ghost): %v", err)
	}
	_, _, err = client(objs...).Find(ctx, "team-a", kinds.Ref{Kind: pt, Name: "ghost"})
	if exit.Code(err) != exit.NotFound || err.Error() != "job pytorch/ghost not found in namespace team-a" {
		t.Errorf("Find(pytorch/ghost): %v", err)
	}
}

func TestFindSkipsKindsNotInstalledUnlessAskedFor(t *testing.T) {
	dyn := jobclienttest.Dynamic(fixtures()...)
	jobclienttest.NotInstalled(dyn, "pytorchjobs")
	c := &jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}
	if k, _, err := c.Find(ctx, "team-a", kinds.Ref{Name: "mnist"}); err != nil || k.Name() != "tf" {
		t.Errorf("Find(mnist) = %v, %v", k, err)
	}
	if _, _, err := c.Find(ctx, "team-a", kinds.Ref{Name: "ghost"}); exit.Code(err) != exit.NotFound {
		t.Errorf("Find(ghost) = %v, want not found", err)
	}
	_, _, err := c.Find(ctx, "team-a", kinds.Ref{Kind: kind(t, "pytorch"), Name: "resnet"})
	if err == nil || err.Error() != "PyTorchJob (kubeflow.org/v1) is not installed on this cluster" ||
		exit.Hint(err) != "install the Kubeflow training-operator (v1), which serves it" {
		t.Errorf("Find(pytorch/resnet) = %v (hint %q)", err, exit.Hint(err))
	}
}

func TestFindKeepsAJobWhenAnotherKindIsForbidden(t *testing.T) {
	dyn := jobclienttest.Dynamic(fixtures()...)
	dyn.PrependReactor("get", "pytorchjobs", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "kubeflow.org", Resource: "pytorchjobs"}, "mnist", errors.New("no"))
	})
	c := &jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}
	if k, _, err := c.Find(ctx, "team-a", kinds.Ref{Name: "mnist"}); err != nil || k.Name() != "tf" {
		t.Errorf("Find(mnist) = %v, %v", k, err)
	}
	if _, _, err := c.Find(ctx, "team-a", kinds.Ref{Name: "ghost"}); !apierrors.IsForbidden(err) {
		t.Errorf("Find(ghost) = %v, want the forbidden error: the job may be a PyTorchJob", err)
	}
}

// A job in namespace the user may not read is "forbidden" in one line, not
// one per kind and not "not found"; "not found" is said only when no kind
// was refused.
func TestFindWhenKindsAreRefused(t *testing.T) {
	dyn := jobclienttest.Dynamic(fixtures()...)
	jobclienttest.Refuse(dyn, "get", "*")
	c := &jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}
	_, _, err := c.Find(ctx, "team-b", kinds.Ref{Name: "a1"})
	want := "you may not read jobs in namespace team-b: get is forbidden on colossalaijobs.batch.tensorstack.dev, jaxjobs.kubeflow.org, " +
		"jobs.batch.volcano.sh, mpijobs.kubeflow.org, paddlejobs.kubeflow.org, pytorchjobs.kubeflow.org, tfjobs.kubeflow.org, trainjobs.trainer.kubeflow.org, xgboostjobs.kubeflow.org"
	if err == nil || err.Error() != want || exit.Code(err) != exit.Error || !apierrors.IsForbidden(err) {
		t.Errorf("Find(a1) = %v (exit %d)\nwant %s", err, exit.Code(err), want)
	}
	if !strings.Contains(exit.Hint(err), "easyai doctor -n team-b") {
		t.Errorf("hint %q", exit.Hint(err))
	}
	_, _, err = c.Find(ctx, "team-b", kinds.Ref{Kind: kind(t, "tf"), Name: "a1"})
	if err == nil || err.Error() != "you may not read tfjobs in namespace team-b: get is forbidden on tfjobs.kubeflow.org" || exit.Code(err) != exit.Error {
		t.Errorf("Find(tf/a1) = %v (exit %d)", err, exit.Code(err))
	}

	dyn = jobclienttest.Dynamic(fixtures()...)
	jobclienttest.Refuse(dyn, "get", "colossalaijobs")
	c = &jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}
	_, _, err = c.Find(ctx, "team-a", kinds.Ref{Name: "ghost"})
	want = "job ghost not found in namespace team-a among the kinds you may read; you may not read colossalaijobs.batch.tensorstack.dev there"
	if err == nil || err.Error() != want || exit.Code(err) != exit.Error {
		t.Errorf("Find(ghost) = %v (exit %d)\nwant %s", err, exit.Code(err), want)
	}
	if k, _, err := c.Find(ctx, "team-a", kinds.Ref{Name: "mnist"}); err != nil || k.Name() != "tf" {
		t.Errorf("Find(mnist) = %v, %v", k, err)
	}
}

// A failure that is not an answer (a dead cluster) is one error, of the
// same kind on every run.
func TestFindFailsWithOneError(t *testing.T) {
	dyn := jobclienttest.Dynamic()
	dyn.PrependReactor("get", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf("dial tcp 127.0.0.1:1: connect: connection refused (%s)", a.GetResource().Resource)
	})
	c := &jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}
	for range 5 {
		_, _, err := c.Find(ctx, "team-a", kinds.Ref{Name: "a1"})
		want := "getting colossalai/a1: dial tcp 127.0.0.1:1: connect: connection refused (colossalaijobs)"
		if err == nil || err.Error() != want {
			t.Fatalf("Find(a1) = %v\nwant %s", err, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	obj := jobclienttest.Job{Name: "mnist", Created: t0, User: "alice@corp",
		Request:    `{"image":"example.com/train:2","command":["python","train.py"],"workers":2}`,
		Roles:      []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypePS, Replicas: 1, Active: 1}, worker(2, 1, 1)},
		Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning}, Started: at(time.Minute)}.Object()
	ps := jobclienttest.Pod("team-a", "mnist", "ps", 0, corev1.PodRunning, t0)
	w0 := jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, t0)
	w1 := jobclienttest.Pod("team-a", "mnist", "worker", 1, corev1.PodPending, t0)
	w1.Spec.NodeName = ""
	w1.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/4 nodes are available"}}
	other := jobclienttest.Pod("team-a", "other", "worker", 0, corev1.PodRunning, t0)
	kube := kubefake.NewClientset(ps, w0, w1, other,
		jobclienttest.Warning("team-a", "e1", "Pod", "mnist-worker-1", "FailedScheduling", "0/4 nodes are available: 4 Insufficient nvidia.com/gpu.", 3, t0.Add(5*time.Minute)),
		jobclienttest.Warning("team-a", "e2", "TFJob", "mnist", "SettedPodTemplateRestartPolicy", "Restart policy in pod template will be overwritten", 1, t0.Add(time.Minute)),
		jobclienttest.Warning("team-a", "e3", "PodGroup", "mnist", "Unschedulable", "1/3 tasks in gang unschedulable", 1, t0.Add(2*time.Minute)),
		jobclienttest.Warning("team-a", "e4", "Pod", "other-worker-0", "BackOff", "not ours", 1, t0),
		jobclienttest.Warning("team-b", "e5", "TFJob", "mnist", "Other", "another namespace", 1, t0),
		&corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e6", Namespace: "team-a"}, Type: corev1.EventTypeNormal, Reason: "Scheduled",
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "mnist-worker-0"}},
	)
	c := &jobclient.Client{Dynamic: jobclienttest.Dynamic(obj), Kube: kube, Kinds: jobclienttest.Registry(), GPUResource: "nvidia.com/gpu"}
	d, err := c.Describe(ctx, kind(t, "tf"), obj)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []string
	for _, r := range d.Replicas {
		tasks = append(tasks, r.Task+":"+r.Phase+":"+r.Reason)
	}
	if want := []string{"ps-0:Running:", "worker-0:Running:", "worker-1:Pending:Unschedulable"}; !reflect.DeepEqual(tasks, want) {
		t.Errorf("replicas %v, want %v", tasks, want)
	}
	var events []string
	for _, e := range d.Events {
		events = append(events, e.Object+":"+e.Reason)
	}
	if want := []string{"job:SettedPodTemplateRestartPolicy", "podgroup:Unschedulable", "worker-1:FailedScheduling"}; !reflect.DeepEqual(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	if d.Events[2].Count != 3 || !d.Events[2].LastSeen.Equal(t0.Add(5*time.Minute)) {
		t.Errorf("event %+v", d.Events[2])
	}
	if d.Image != "example.com/train:2" || !reflect.DeepEqual(d.Command, []string{"python", "train.py"}) || d.Request["workers"] != float64(2) {
		t.Errorf("image %q command %q request %v", d.Image, d.Command, d.Request)
	}
	// One LIST of Warning events and one of pods (by the kind's selector).
	var lists []string
	for _, a := range kube.Actions() {
		la := a.(clienttesting.ListActionImpl)
		lists = append(lists, a.GetVerb()+" "+a.GetResource().Resource+" "+la.GetListRestrictions().Labels.String()+la.GetListOptions().FieldSelector)
	}
	if want := []string{"list events type=Warning", "list pods training.kubeflow.org/job-name=mnist"}; !reflect.DeepEqual(lists, want) {
		t.Errorf("requests %q, want %q", lists, want)
	}
}

func TestDescribeReadsImageAndCommandFromTheFirstRole(t *testing.T) {
	obj := jobclienttest.Job{Name: "handmade", External: true, Created: t0, Roles: []jobclienttest.Role{
		{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 2, Image: "worker:1", Command: []string{"python", "worker.py"}},
		{Type: kubeflowv1.TFJobReplicaTypePS, Replicas: 1, Image: "ps:1", Command: []string{"python", "ps.py"}},
	}}.Object()
	c := client(obj)
	d, err := c.Describe(ctx, kind(t, "tf"), obj)
	if err != nil {
		t.Fatal(err)
	}
	// PS comes before Worker in TF's order of roles.
	if d.Image != "ps:1" || !reflect.DeepEqual(d.Command, []string{"python", "ps.py"}) || d.Request != nil {
		t.Errorf("image %q command %q request %v", d.Image, d.Command, d.Request)
	}
}

// TestDescribeOfAnUnreadableRequest: a request annotation that is not what
// easyai writes is no request, said in RequestErr; the pod templates tell
// what the job runs.
func TestDescribeOfAnUnreadableRequest(t *testing.T) {
	obj := jobclienttest.Job{Name: "edited", Created: t0, Request: `{"image":"example.com/train:2",`, Roles: []jobclienttest.Role{
		{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 1, Image: "worker:1", Command: []string{"python", "worker.py"}},
	}}.Object()
	d, err := client(obj).Describe(ctx, kind(t, "tf"), obj)
	if err != nil {
		t.Fatal(err)
	}
	if d.RequestErr == nil || !strings.Contains(d.RequestErr.Error(), jobmodel.RequestAnnotation) || d.Request != nil || d.Image != "worker:1" {
		t.Errorf("request %v, error %v, image %q; want an error naming the annotation, no request, the template's image", d.Request, d.RequestErr, d.Image)
	}
}

func TestDelete(t *testing.T) {
	dyn := jobclienttest.Dynamic(fixtures()...)
	c := &jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}
	if err := c.Delete(ctx, kind(t, "tf"), "team-a", "mnist"); err != nil {
		t.Fatal(err)
	}
	del := dyn.Actions()[0].(clienttesting.DeleteAction)
	if p := del.GetDeleteOptions().PropagationPolicy; p == nil || *p != metav1.DeletePropagationBackground {
		t.Errorf("propagation %v, want Background", p)
	}
	if err := c.Delete(ctx, kind(t, "tf"), "team-a", "mnist"); exit.Code(err) != exit.NotFound || err.Error() != "job tf/mnist not found in namespace team-a" {
		t.Errorf("second delete: %v", err)
	}
	jobclienttest.NotInstalled(dyn, "pytorchjobs")
	if err := c.Delete(ctx, kind(t, "pytorch"), "team-a", "resnet"); exit.Hint(err) == "" {
		t.Errorf("delete of a kind not installed: %v, want the hint", err)
	}
}

// TestDeleteListed: the uid listed is the delete's precondition; the API
// server's conflict (a job made again under the name) is ErrReplaced.
func TestDeleteListed(t *testing.T) {
	dyn := jobclienttest.Dynamic(fixtures()...)
	c := &jobclient.Client{Dynamic: dyn, Kinds: jobclienttest.Registry()}
	res, err := c.List(ctx, jobclient.ListOptions{Namespace: "team-a", Kinds: []kinds.Kind{kind(t, "tf")}})
	if err != nil || len(res.Jobs) == 0 || res.Jobs[0].Summary.UID == "" {
		t.Fatalf("listed %v (%v): want jobs with their uid", res, err)
	}
	job := res.Jobs[0]
	dyn.ClearActions()
	if err := c.DeleteListed(ctx, job.Kind, "team-a", job.Summary.Name, job.Summary.UID); err != nil {
		t.Fatal(err)
	}
	del := dyn.Actions()[0].(clienttesting.DeleteAction)
	opts := del.GetDeleteOptions()
	if opts.Preconditions == nil || opts.Preconditions.UID == nil || string(*opts.Preconditions.UID) != job.Summary.UID ||
		opts.PropagationPolicy == nil || *opts.PropagationPolicy != metav1.DeletePropagationBackground {
		t.Errorf("delete options %+v, want the uid %s as precondition, in the background", opts, job.Summary.UID)
	}

	dyn.PrependReactor("delete", "tfjobs", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "kubeflow.org", Resource: "tfjobs"}, "mnist",
			errors.New("Precondition failed: UID in precondition: uid-mnist, UID in object meta: other"))
	})
	err = c.DeleteListed(ctx, kind(t, "tf"), "team-a", "mnist", "uid-mnist")
	if !errors.Is(err, jobclient.ErrReplaced) || !strings.HasPrefix(err.Error(), "tf/mnist not deleted: ") {
		t.Errorf("a job made again: %v, want ErrReplaced", err)
	}
	if err := c.DeleteListed(ctx, kind(t, "tf"), "team-a", "mnist", ""); err == nil {
		t.Error("a delete without a uid must not delete whatever has the name")
	}
}

func TestDocuments(t *testing.T) {
	res, err := client(fixtures()...).List(ctx, jobclient.ListOptions{Namespace: "team-b"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(jobclient.ListOf(res.Jobs, now))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"easyai.io/v1","kind":"JobList","items":[{"name":"bert","namespace":"team-b",` +
		`"status":{"state":"Failed","reason":"TFJobFailed","message":"TFJob bert is Failed."},"user":"alice@corp","managedBy":"easyai",` +
		`"workers":{"ready":0,"total":4},"gpus":4,"created":"2025-03-01T12:30:00Z","started":"2025-03-01T12:31:00Z","finished":"2025-03-01T12:40:00Z",` +
		`"jobKind":"tf","objectAPIVersion":"kubeflow.org/v1","objectKind":"TFJob","durationSeconds":540,` +
		`"labels":{"app.kubernetes.io/managed-by":"easyai","easyai.io/job-name":"bert","easyai.io/kind":"tf","easyai.io/user":"alice_corp"}}]}`
	if got := string(data); got != want {
		t.Errorf("JobList\n%s\nwant\n%s", got, want)
	}
	empty, _ := json.Marshal(jobclient.ListOf(nil, now))
	if string(empty) != `{"apiVersion":"easyai.io/v1","kind":"JobList","items":[]}` {
		t.Errorf("empty JobList %s", empty)
	}

	d := &jobclient.Details{Kind: res.Jobs[0].Kind, Summary: res.Jobs[0].Summary}
	doc, err := json.Marshal(jobclient.DocumentOf(d, now))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	if m["apiVersion"] != "easyai.io/v1" || m["kind"] != "Job" || m["objectKind"] != "TFJob" || m["jobKind"] != "tf" {
		t.Errorf("Job document %s", doc)
	}
	if _, ok := m["request"]; ok {
		t.Errorf("request present without an annotation: %s", doc)
	}
	if r, ok := m["replicas"].([]any); !ok || len(r) != 0 {
		t.Errorf("replicas must be an empty list, not absent: %s", doc)
	}
}

// TestDescribeReadsTheLastLinesOfAFailedContainer: a replica in a crash loop
// gets the last lines of its previous run; a running one none.
func TestDescribeReadsTheLastLinesOfAFailedContainer(t *testing.T) {
	obj := jobclienttest.Job{Name: "mnist", Created: t0, Roles: []jobclienttest.Role{worker(2, 2, 0)},
		Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobRunning}}.Object()
	w0 := jobclienttest.Pod("team-a", "mnist", "worker", 0, corev1.PodRunning, t0)
	w1 := jobclienttest.Pod("team-a", "mnist", "worker", 1, corev1.PodRunning, t0)
	w1.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "tensorflow", RestartCount: 4,
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3}}}}
	c := &jobclient.Client{Dynamic: jobclienttest.Dynamic(obj), Kube: kubefake.NewClientset(w0, w1), Kinds: jobclienttest.Registry(), GPUResource: "nvidia.com/gpu"}
	d, err := c.Describe(ctx, kind(t, "tf"), obj)
	if err != nil {
		t.Fatal(err)
	}
	// client-go's fake answers every log with "fake logs".
	want := []jobmodel.LastLines{{Task: "worker-1", Container: "tensorflow", Previous: true, ExitCode: 3, Lines: []string{"fake logs"}}}
	if !reflect.DeepEqual(d.LastLines, want) {
		t.Errorf("last lines %+v, want %+v", d.LastLines, want)
	}
	if doc := jobclient.DocumentOf(d, t0); !reflect.DeepEqual(doc.LastLines, want) {
		t.Errorf("document's last lines %+v", doc.LastLines)
	}
}

// TestPodReasons: each job's worst pod in one cell; events read only for
// pods whose status says no more; a succeeded job and quiet pods none.
func TestPodReasons(t *testing.T) {
	job := func(name string, state jobmodel.State) jobclient.Listed {
		return jobclient.Listed{Kind: kind(t, "tf"), Summary: jobmodel.Summary{Name: name, Namespace: "team-a", Status: jobmodel.Status{State: state}}}
	}
	waitingPod := func(job, role string, index int, phase corev1.PodPhase, reason string) *corev1.Pod {
		p := jobclienttest.Pod("team-a", job, role, index, phase, t0)
		if reason != "" {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "tensorflow", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}}
		}
		return p
	}
	unscheduled := waitingPod("queued", "worker", 0, corev1.PodPending, "")
	unscheduled.Spec.NodeName = ""
	// (Its scheduler has not written its event yet: the pod's condition says.)
	stuck := waitingPod("stuck", "worker", 0, corev1.PodPending, "")
	stuck.Spec.NodeName = ""
	stuck.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/4 nodes are unavailable"}}
	fresh := waitingPod("fresh", "worker", 0, corev1.PodPending, "")
	fresh.Spec.NodeName = ""
	kc := kubefake.NewClientset(
		waitingPod("crash", "worker", 0, corev1.PodRunning, ""),
		waitingPod("crash", "worker", 1, corev1.PodRunning, "CrashLoopBackOff"),
		waitingPod("crash", "worker", 2, corev1.PodRunning, "CrashLoopBackOff"),
		waitingPod("mounting", "worker", 0, corev1.PodPending, "ContainerCreating"),
		unscheduled, stuck, fresh,
		waitingPod("done", "worker", 0, corev1.PodFailed, "ErrImagePull"),
		waitingPod("quiet", "worker", 0, corev1.PodRunning, ""),
		jobclienttest.Warning("team-a", "e1", "Pod", "mounting-worker-0", "FailedMount", `MountVolume.SetUp failed for volume "code" : secret "git" not found`, 2, t0),
		jobclienttest.Warning("team-a", "e2", "Pod", "queued-worker-0", "FailedScheduling", "0/4 nodes are available", 1, t0),
	)
	c := &jobclient.Client{Dynamic: jobclienttest.Dynamic(), Kube: kc, Kinds: jobclienttest.Registry()}
	jobs := []jobclient.Listed{job("crash", jobmodel.Running), job("mounting", jobmodel.Pending), job("queued", jobmodel.Pending),
		job("done", jobmodel.Succeeded), job("quiet", jobmodel.Running), job("gone", jobmodel.Failed),
		job("stuck", jobmodel.Pending), job("fresh", jobmodel.Pending)}
	got, err := c.PodReasons(ctx, "team-a", jobs, nil)
	want := []string{"worker-1: CrashLoopBackOff (+1 more)", "worker-0: FailedMount", "worker-0: Unschedulable", "", "", "",
		"worker-0: Unschedulable", ""}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, %v\nwant %q", got, err, want)
	}
	// The same from the table read ahead, beside list's LISTs: the pods
	// are listed once.
	before := len(kc.Actions())
	rows := c.PodRowsAhead(ctx, "team-a")
	got, err = c.PodReasons(ctx, "team-a", jobs, rows)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("read ahead: got %q, %v\nwant %q", got, err, want)
	}
	podLists := 0
	for _, a := range kc.Actions()[before:] {
		if a.GetVerb() == "list" && a.GetResource().Resource == "pods" {
			podLists++
		}
	}
	if podLists != 1 {
		t.Errorf("read ahead: %d lists of pods, want 1", podLists)
	}
}
