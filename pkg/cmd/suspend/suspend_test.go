package suspend

import (
	"context"
	"reflect"
	"strings"
	"testing"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
)

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdSuspend(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestNewCmdSuspend(t *testing.T) {
	tests := []struct{ args, ref string }{
		{"mnist", "mnist"},
		{"tfjob/mnist", "tf/mnist"},
		{"vj --kind vcjob", "volcano/vj"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
			var got *Options
			if err := execute(f, func(o *Options) error { got = o; return nil }, strings.Fields(tt.args)...); err != nil {
				t.Fatal(err)
			}
			if got.Ref.String() != tt.ref {
				t.Errorf("ref %s, want %s", got.Ref, tt.ref)
			}
		})
	}
}

func TestNewCmdSuspendBadInput(t *testing.T) {
	tests := []struct{ args, err string }{
		{"", `"suspend" needs a job: NAME or KIND/NAME (got 0 arguments)`},
		{"a b", `"suspend" needs a job: NAME or KIND/NAME (got 2 arguments)`},
		{"nosuchkind/mnist", `"nosuchkind/mnist": unknown kind "nosuchkind"`},
		{"tf/mnist --kind volcano", `"tf/mnist" is a tf job but --kind says volcano`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
			err := execute(f, func(*Options) error { t.Error("runF called"); return nil }, strings.Fields(tt.args)...)
			if exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("error %v (exit %d), want exit 2 with %q", err, exit.Code(err), tt.err)
			}
		})
	}
}

// volcanoJob is the Volcano Job "vj" of team-a in a phase, as the API server
// sends it.
func volcanoJob(phase string, retryCount, maxRetry int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
		"metadata": map[string]any{"name": "vj", "namespace": "team-a", "uid": "uid-vj", "resourceVersion": "1"},
		"spec": map[string]any{"maxRetry": maxRetry, "tasks": []any{
			map[string]any{"name": "worker", "replicas": int64(2), "template": map[string]any{}},
		}},
		"status": map[string]any{"state": map[string]any{"phase": phase}, "retryCount": retryCount},
	}}
}

// fixtures are team-a's tf/mnist (Running), tf/old (Succeeded), tf/paused
// (Suspended by the operator) and the Volcano Job vj in phase.
func fixtures(vcPhase string) []runtime.Object {
	paused := jobclienttest.Job{Name: "paused", Created: jobclienttest.T0, Roles: []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 1}},
		Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobSuspended}}.Object()
	return append(jobclienttest.Fixtures(), paused, volcanoJob(vcPhase, 0, 3))
}

// requestsTo lists what a fake client was asked to change: "patch
// RESOURCE/NAME PATCH", or "create commands ACTION TARGET-KIND/NAME".
func requestsTo(t *testing.T, dyn *dynamicfake.FakeDynamicClient) []string {
	t.Helper()
	var out []string
	for _, a := range dyn.Actions() {
		switch a := a.(type) {
		case clienttesting.PatchAction:
			out = append(out, "patch "+a.GetResource().Resource+"/"+a.GetName()+" "+string(a.GetPatch()))
		case clienttesting.CreateAction:
			u := a.GetObject().(*unstructured.Unstructured)
			action, _, _ := unstructured.NestedString(u.Object, "action")
			kind, _, _ := unstructured.NestedString(u.Object, "target", "kind")
			name, _, _ := unstructured.NestedString(u.Object, "target", "name")
			out = append(out, "create "+a.GetResource().Resource+" "+u.GetGenerateName()+" "+action+" "+kind+"/"+name)
		}
	}
	return out
}

func TestSuspendRun(t *testing.T) {
	tests := []struct {
		name     string
		tty      bool
		args     string
		vcPhase  string
		requests []string
		stdout   string
		stderr   string
		code     int
		err      string
	}{
		{name: "a running TFJob", args: "mnist",
			requests: []string{`patch tfjobs/mnist {"spec":{"runPolicy":{"suspend":true}}}`}, stdout: "suspended tf/mnist\n"},
		{name: "on a terminal, with a hint", tty: true, args: "tf/mnist",
			requests: []string{`patch tfjobs/mnist {"spec":{"runPolicy":{"suspend":true}}}`}, stdout: "suspended tf/mnist\n",
			stderr: "Its pods are being deleted. Resume it with: easyai resume tf/mnist\n"},
		{name: "a queued PyTorchJob", args: "resnet",
			requests: []string{`patch pytorchjobs/resnet {"spec":{"runPolicy":{"suspend":true}}}`}, stdout: "suspended pytorch/resnet\n"},
		{name: "a running Volcano job", args: "vj", vcPhase: "Running",
			requests: []string{"create commands vj-suspend- AbortJob Job/vj"}, stdout: "suspended volcano/vj\n"},
		{name: "a restarting Volcano job", args: "volcano/vj", vcPhase: "Restarting",
			code: exit.Error, err: "Volcano Job vj is Restarting: Volcano suspends a job only while it is Pending or Running"},
		{name: "an aborted Volcano job", args: "volcano/vj", vcPhase: "Aborted", code: exit.Error, err: "volcano/vj is already suspended"},
		{name: "already suspended", args: "paused", code: exit.Error, err: "tf/paused is already suspended"},
		{name: "finished", args: "old", code: exit.Error, err: "tf/old has finished (Succeeded): there is nothing to suspend"},
		{name: "no such job", args: "ghost", code: exit.NotFound, err: "job ghost not found in namespace team-a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.vcPhase == "" {
				tt.vcPhase = "Running"
			}
			dyn := jobclienttest.Dynamic(fixtures(tt.vcPhase)...)
			f, stdout, stderr := cmdutiltest.Factory(t, tt.tty, dyn, nil)
			err := execute(f, nil, strings.Fields(tt.args)...)
			if exit.Code(err) != tt.code || (err != nil && err.Error() != tt.err) {
				t.Errorf("error %v (exit %d), want exit %d %q", err, exit.Code(err), tt.code, tt.err)
			}
			if got := requestsTo(t, dyn); !reflect.DeepEqual(got, tt.requests) {
				t.Errorf("requests %q, want %q", got, tt.requests)
			}
			if stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Errorf("stdout %q stderr %q, want %q %q", stdout, stderr, tt.stdout, tt.stderr)
			}
		})
	}
}

func TestSuspendOfAJobDeletedMeanwhileIsNotFound(t *testing.T) {
	dyn := jobclienttest.Dynamic(fixtures("Running")...)
	dyn.PrependReactor("patch", "tfjobs", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Group: "kubeflow.org", Resource: "tfjobs"}, "mnist")
	})
	f, stdout, _ := cmdutiltest.Factory(t, false, dyn, nil)
	err := execute(f, nil, "mnist")
	if exit.Code(err) != exit.NotFound || err.Error() != "job tf/mnist not found in namespace team-a" {
		t.Errorf("error %v (exit %d)", err, exit.Code(err))
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q", stdout)
	}
}

// plainKind is a kind that does not implement kinds.Suspender.
type plainKind struct{ kinds.Kind }

func TestSuspendOfAKindThatCannotBeSuspended(t *testing.T) {
	dyn := jobclienttest.Dynamic(fixtures("Running")...)
	f, stdout, _ := cmdutiltest.Factory(t, false, dyn, nil)
	f.Kinds = kinds.NewRegistry(plainKind{tfjob.New()})
	f.JobsClient = func() (*jobclient.Client, error) {
		return &jobclient.Client{Dynamic: dyn, Kinds: f.Kinds, GPUResource: config.DefaultGPUResource}, nil
	}
	err := execute(f, nil, "mnist")
	if exit.Code(err) != exit.Usage || err.Error() != "tf jobs cannot be suspended: tf/mnist is one" {
		t.Errorf("error %v (exit %d)", err, exit.Code(err))
	}
	if got := requestsTo(t, dyn); len(got) != 0 || stdout.Len() != 0 {
		t.Errorf("requests %q, stdout %q", got, stdout)
	}
}

func TestSuspendWaitFlags(t *testing.T) {
	f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
	var got *Options
	if err := execute(f, func(o *Options) error { got = o; return nil }, "mnist", "--wait", "--timeout", "90s"); err != nil {
		t.Fatal(err)
	}
	if !got.Wait || got.Timeout.String() != "1m30s" {
		t.Errorf("--wait %v --timeout %s", got.Wait, got.Timeout)
	}
}
