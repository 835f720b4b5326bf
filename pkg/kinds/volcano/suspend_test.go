package volcano_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	vcbatch "volcano.sh/apis/pkg/apis/batch/v1alpha1"
	vcbus "volcano.sh/apis/pkg/apis/bus/v1alpha1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/volcano"
)

var _ kinds.Suspender = volcano.New()

// phased is the job "vj" in a phase, with retries used and spec.maxRetry.
func phased(phase vcbatch.JobPhase, retryCount, maxRetry int64) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
		"metadata": map[string]any{"name": "vj", "namespace": "team-a", "uid": "uid-vj"},
		"spec":     map[string]any{},
		"status":   map[string]any{"state": map[string]any{"phase": string(phase)}, "retryCount": retryCount},
	}}
	if maxRetry != 0 {
		_ = unstructured.SetNestedField(obj.Object, maxRetry, "spec", "maxRetry")
	}
	return obj
}

func commandsClient() *dynamicfake.FakeDynamicClient {
	return dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{volcano.CommandResource: "CommandList"})
}

func commandsOf(t *testing.T, dyn *dynamicfake.FakeDynamicClient) []vcbus.Command {
	t.Helper()
	list, err := dyn.Resource(volcano.CommandResource).Namespace("team-a").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []vcbus.Command
	for _, u := range list.Items {
		var c vcbus.Command
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func TestSuspendAndResumeSendVolcanoACommandTargetingTheJob(t *testing.T) {
	target := metav1.OwnerReference{APIVersion: "batch.volcano.sh/v1alpha1", Kind: "Job", Name: "vj", UID: types.UID("uid-vj")}
	tests := []struct {
		name         string
		phase        vcbatch.JobPhase
		resume       bool
		action       vcbus.Action
		generateName string
	}{
		{"suspend a running job", vcbatch.Running, false, vcbus.AbortJobAction, "vj-suspend-"},
		{"suspend a pending job", vcbatch.Pending, false, vcbus.AbortJobAction, "vj-suspend-"},
		{"resume an aborted job", vcbatch.Aborted, true, vcbus.ResumeJobAction, "vj-resume-"},
		{"resume a job being aborted", vcbatch.Aborting, true, vcbus.ResumeJobAction, "vj-resume-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dyn := commandsClient()
			k := volcano.New()
			var err error
			if tt.resume {
				err = k.Resume(context.Background(), dyn, phased(tt.phase, 0, 3))
			} else {
				err = k.Suspend(context.Background(), dyn, phased(tt.phase, 0, 3))
			}
			if err != nil {
				t.Fatal(err)
			}
			cmds := commandsOf(t, dyn)
			if len(cmds) != 1 {
				t.Fatalf("%d commands, want 1", len(cmds))
			}
			c := cmds[0]
			if c.Action != string(tt.action) || c.GenerateName != tt.generateName || c.Namespace != "team-a" {
				t.Errorf("command action %q generateName %q namespace %q, want %q %q team-a", c.Action, c.GenerateName, c.Namespace, tt.action, tt.generateName)
			}
			if c.TargetObject == nil || *c.TargetObject != target {
				t.Errorf("command target %+v, want %+v", c.TargetObject, target)
			}
			if !reflect.DeepEqual(c.OwnerReferences, []metav1.OwnerReference{target}) {
				t.Errorf("command owners %+v, want the job", c.OwnerReferences)
			}
		})
	}
}

func TestSuspendAndResumeRefusePhasesVolcanoIgnoresTheCommandIn(t *testing.T) {
	k := volcano.New()
	dyn := commandsClient()
	ctx := context.Background()
	for _, p := range []vcbatch.JobPhase{vcbatch.Restarting, vcbatch.Completing, vcbatch.Terminating} {
		if err := k.Suspend(ctx, dyn, phased(p, 0, 3)); err == nil || err.Error() != "Volcano Job vj is "+string(p)+": Volcano suspends a job only while it is Pending or Running" {
			t.Errorf("Suspend of a %s job: %v", p, err)
		}
	}
	for _, p := range []vcbatch.JobPhase{vcbatch.Running, vcbatch.Pending} {
		if err := k.Resume(ctx, dyn, phased(p, 0, 3)); err == nil || err.Error() != "Volcano Job vj is "+string(p)+": Volcano resumes only a job it aborted" {
			t.Errorf("Resume of a %s job: %v", p, err)
		}
	}
	if n := len(commandsOf(t, dyn)); n != 0 {
		t.Errorf("%d commands created, want none", n)
	}
}

func TestResumeWarningWhenTheResumeIsTheLastRetry(t *testing.T) {
	tests := []struct {
		retryCount, maxRetry int64
		warning              string
	}{
		{0, 3, ""},
		{1, 3, ""},
		{2, 3, "Volcano counts this resume as retry 3 of the job and fails a job at retry 3 (spec.maxRetry): the job will end Failed instead of running again"},
		{1, 0, ""}, // maxRetry unset: Volcano's default, 3
		{2, 0, "Volcano counts this resume as retry 3 of the job and fails a job at retry 3 (spec.maxRetry): the job will end Failed instead of running again"},
		{1, 2, "Volcano counts this resume as retry 2 of the job and fails a job at retry 2 (spec.maxRetry): the job will end Failed instead of running again"},
		{0, 1, "Volcano counts this resume as retry 1 of the job and fails a job at retry 1 (spec.maxRetry): the job will end Failed instead of running again"},
	}
	for _, tt := range tests {
		if got := volcano.New().ResumeWarning(phased(vcbatch.Aborted, tt.retryCount, tt.maxRetry)); got != tt.warning {
			t.Errorf("retry %d, maxRetry %d: warning %q, want %q", tt.retryCount, tt.maxRetry, got, tt.warning)
		}
	}
}

// get of a suspended job says what resuming costs, from what the API server sent.
func TestSummarizeOfASuspendedJobSaysWhichRetryResumingUses(t *testing.T) {
	s, err := volcano.New().Summarize(phased(vcbatch.Aborted, 0, 1), "nvidia.com/gpu")
	if err != nil {
		t.Fatal(err)
	}
	want := jobmodel.Status{State: jobmodel.Suspended, Reason: "Aborted", Message: "resuming uses retry 1 of 1, at which Volcano fails the job"}
	if s.Status != want {
		t.Errorf("status %+v, want %+v", s.Status, want)
	}
	if s, _ := volcano.New().Summarize(phased(vcbatch.Aborted, 1, 0), "nvidia.com/gpu"); !strings.HasSuffix(s.Status.Message, "resuming uses retry 2 of 3") {
		t.Errorf("maxRetry unset: status %+v, want Volcano's default of 3 retries", s.Status)
	}
}
