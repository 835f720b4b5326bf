package resume

import (
	"context"
	"reflect"
	"strings"
	"testing"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

func execute(f *cmdutil.Factory, runF func(*Options) error, args ...string) error {
	cmd := NewCmdResume(f, runF)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	cmd.SetOut(f.IOStreams.ErrOut)
	cmd.SetErr(f.IOStreams.ErrOut)
	return cmd.ExecuteContext(context.Background())
}

func TestNewCmdResume(t *testing.T) {
	tests := []struct {
		args, ref string
		force     bool
	}{
		{"mnist", "mnist", false},
		{"tf/mnist --force", "tf/mnist", true},
		{"vj --kind volcano --force", "volcano/vj", true},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
			var got *Options
			if err := execute(f, func(o *Options) error { got = o; return nil }, strings.Fields(tt.args)...); err != nil {
				t.Fatal(err)
			}
			if got.Ref.String() != tt.ref || got.Force != tt.force {
				t.Errorf("ref %s force %v, want %s %v", got.Ref, got.Force, tt.ref, tt.force)
			}
		})
	}
	f, _, _ := cmdutiltest.Factory(t, false, nil, nil)
	if err := execute(f, nil); exit.Code(err) != exit.Usage || err.Error() != `"resume" needs a job: NAME or KIND/NAME (got 0 arguments)` {
		t.Errorf("no job: %v", err)
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

// requestsTo lists what a fake client was asked to change: "patch
// RESOURCE/NAME PATCH", or "create commands GENERATENAME ACTION KIND/NAME UID".
func requestsTo(dyn *dynamicfake.FakeDynamicClient) []string {
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
			uid, _, _ := unstructured.NestedString(u.Object, "target", "uid")
			out = append(out, "create "+a.GetResource().Resource+" "+u.GetGenerateName()+" "+action+" "+kind+"/"+name+" "+uid)
		}
	}
	return out
}

const lastRetryWarning = "Warning: resuming volcano/vj: Volcano counts this resume as retry 2 of the job and fails a job at retry 2 (spec.maxRetry): the job will end Failed instead of running again\n"

func TestResumeRun(t *testing.T) {
	resumeVJ := []string{"create commands vj-resume- ResumeJob Job/vj uid-vj"}
	tests := []struct {
		name     string
		tty      bool
		answer   bool
		args     string
		vj       *unstructured.Unstructured
		requests []string
		asked    []string
		stdout   string
		stderr   string
		code     int
		err      string
	}{
		{name: "a suspended TFJob", args: "paused",
			requests: []string{`patch tfjobs/paused {"spec":{"runPolicy":{"suspend":false}}}`}, stdout: "resumed tf/paused\n"},
		{name: "on a terminal, with a hint", tty: true, args: "tf/paused",
			requests: []string{`patch tfjobs/paused {"spec":{"runPolicy":{"suspend":false}}}`}, stdout: "resumed tf/paused\n",
			stderr: "Its pods are being created. Wait for them with: easyai wait tf/paused --for running\n"},
		{name: "a running job", args: "mnist", code: exit.Error, err: "tf/mnist is not suspended: it is Running"},
		{name: "a finished job", args: "old", code: exit.Error, err: "tf/old is not suspended: it is Succeeded"},
		{name: "a Volcano job with retries left", args: "vj", vj: volcanoJob("Aborted", 0, 3),
			requests: resumeVJ, stdout: "resumed volcano/vj\n"},
		{name: "a Volcano job on its last retry, no terminal", args: "vj", vj: volcanoJob("Aborted", 1, 2),
			stderr: lastRetryWarning, code: exit.Usage,
			err: "not resuming volcano/vj: pass --force to resume it anyway (there is no terminal to ask on)"},
		{name: "a Volcano job on its last retry, --force", args: "vj --force", vj: volcanoJob("Aborted", 1, 2),
			requests: resumeVJ, stdout: "resumed volcano/vj\n", stderr: lastRetryWarning},
		{name: "a Volcano job on its last retry, confirmed", tty: true, answer: true, args: "vj", vj: volcanoJob("Aborted", 1, 2),
			requests: resumeVJ, asked: []string{"Resume volcano/vj anyway?"}, stdout: "resumed volcano/vj\n",
			stderr: lastRetryWarning + "Its pods are being created. Wait for them with: easyai wait volcano/vj --for running\n"},
		{name: "a Volcano job on its last retry, refused", tty: true, args: "vj", vj: volcanoJob("Aborted", 1, 2),
			asked: []string{"Resume volcano/vj anyway?"}, stderr: lastRetryWarning, code: exit.Error, err: "Nothing resumed."},
		{name: "a running Volcano job", args: "volcano/vj", vj: volcanoJob("Running", 1, 2),
			code: exit.Error, err: "volcano/vj is not suspended: it is Running"},
		{name: "no such job", args: "ghost", code: exit.NotFound, err: "job ghost not found in namespace team-a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paused := jobclienttest.Job{Name: "paused", Created: jobclienttest.T0, Roles: []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 1}},
				Conditions: []kubeflowv1.JobConditionType{kubeflowv1.JobCreated, kubeflowv1.JobSuspended}}.Object()
			objs := append(jobclienttest.Fixtures(), paused)
			if tt.vj != nil {
				objs = append(objs, tt.vj)
			}
			dyn := jobclienttest.Dynamic(objs...)
			f, stdout, stderr := cmdutiltest.Factory(t, tt.tty, dyn, nil)
			prompt := &cmdutiltest.Confirm{Answer: tt.answer}
			f.Prompter = prompt
			err := execute(f, nil, strings.Fields(tt.args)...)
			if exit.Code(err) != tt.code || (err != nil && err.Error() != tt.err) {
				t.Errorf("error %v (exit %d), want exit %d %q", err, exit.Code(err), tt.code, tt.err)
			}
			if got := requestsTo(dyn); !reflect.DeepEqual(got, tt.requests) {
				t.Errorf("requests %q, want %q", got, tt.requests)
			}
			if !reflect.DeepEqual(prompt.Questions, tt.asked) {
				t.Errorf("asked %q, want %q", prompt.Questions, tt.asked)
			}
			if stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Errorf("stdout %q\nstderr %q\nwant   %q\n       %q", stdout, stderr, tt.stdout, tt.stderr)
			}
		})
	}
}
