package pipeline

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/kinds/mpijob"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/kinds/trainjob"
)

// flowOf is the JobFlow of the diamond pipeline (prep → train → {eval, export}).
func flowOf(t *testing.T) *unstructured.Unstructured {
	t.Helper()
	f, err := Parse("p.yaml", []byte(diamond))
	if err != nil {
		t.Fatal(err)
	}
	u := flow(f, "team-a", Meta{User: "alice"})
	u.SetAnnotations(map[string]string{"easyai.io/user": "alice"})
	return u
}

// jobOf is the job Volcano's JobFlow controller made of a step, in phase.
func jobOf(step, phase string) unstructured.Unstructured {
	u := unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"state": map[string]any{"phase": phase}}}}
	u.SetName(JobName("mnist", step))
	u.SetLabels(map[string]string{createdByJobFlow: "team-a.mnist", createdByJobTemplate: "team-a." + TemplateName("mnist", step)})
	return u
}

func states(st *Status) string {
	var out []string
	for _, s := range st.Steps {
		out = append(out, s.Name+"="+s.State)
	}
	return strings.Join(out, " ")
}

// TestStatus: each step's state from its job, or from the steps before it
// when Volcano has not made its job: waiting, or never to be made after a
// failed step.
func TestStatus(t *testing.T) {
	for _, c := range []struct {
		jobs         []unstructured.Unstructured
		want, state  string
		reason, step string
	}{
		{nil, "prep=Waiting train=Waiting eval=Waiting export=Waiting", Pending, "", ""},
		{[]unstructured.Unstructured{jobOf("prep", "Running")}, "prep=Running train=Waiting eval=Waiting export=Waiting", Running, "", "waiting for prep"},
		{[]unstructured.Unstructured{jobOf("prep", "Completed"), jobOf("train", "Failed")},
			"prep=Succeeded train=Failed eval=NotCreated export=NotCreated", Failed, "step train failed; eval, export will never run",
			"never created: train did not complete, and Volcano's JobFlow creates no step after one that failed"},
		{[]unstructured.Unstructured{jobOf("prep", "Completed"), jobOf("train", "Completed"), jobOf("eval", "Completed"), jobOf("export", "Completed")},
			"prep=Succeeded train=Succeeded eval=Succeeded export=Succeeded", Succeeded, "", ""},
	} {
		st := statusOf(flowOf(t), c.jobs)
		if got := states(st); got != c.want || st.State != c.state || st.Reason != c.reason {
			t.Errorf("got %s, %s (%s); want %s, %s (%s)", got, st.State, st.Reason, c.want, c.state, c.reason)
		}
		if c.step != "" && st.Steps[len(st.Steps)-1].Reason != c.step && st.Steps[1].Reason != c.step {
			t.Errorf("reasons %+v; want %q", st.Steps, c.step)
		}
	}
	st := statusOf(flowOf(t), nil)
	if st.Steps[1].Job != "vcjob/mnist-mnist-train" || strings.Join(st.Steps[3].After, ",") != "train" || st.User != "alice" {
		t.Errorf("steps %+v", st.Steps)
	}
}

// TestAsVolcano: a tf, pytorch or mpi job runs as a Volcano Job with its
// framework's plugin; a kind that cannot be one is refused naming the step.
func TestAsVolcano(t *testing.T) {
	out, err := asVolcano(registry.Default(), "p.yaml", "train", mpijob.New(), []byte("kind: mpi\nroles:\n  launcher: {replicas: 1}\n  worker: {replicas: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(out); !strings.Contains(s, "framework: mpi") || !strings.Contains(s, "kind: volcano") || !strings.Contains(s, "master:") || strings.Contains(s, "roles") || strings.Contains(s, "launcher") {
		t.Errorf("mpi as volcano:\n%s", s)
	}
	if _, err := asVolcano(registry.Default(), "p.yaml", "train", trainjob.New(), []byte("kind: trainjob\n")); err == nil || !strings.Contains(err.Error(), "step train is a trainjob job: a pipeline's steps run as Volcano Jobs") {
		t.Errorf("a trainjob step: %v", err)
	}
}

// TestLongNamesRefused: Volcano labels a step's job NAMESPACE.PIPELINE-STEP
// and cannot make it when that is longer than a label value may be: the
// pipeline is refused before anything is made.
func TestLongNamesRefused(t *testing.T) {
	f, err := Parse("p.yaml", []byte(diamond))
	if err != nil {
		t.Fatal(err)
	}
	ns := "team-" + strings.Repeat("a", 50)
	_, err = Build(context.Background(), f, "p.yaml", ns, Steps{}, Meta{})
	if err == nil || !strings.Contains(err.Error(), "step prep: Volcano's JobFlow labels the step's job volcano.sh/createdByJobTemplate="+ns+".mnist-prep") {
		t.Errorf("a pipeline in a namespace of a long name: %v", err)
	}
}
