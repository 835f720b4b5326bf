package jobclient_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// pipelineStep is a Volcano Job as a JobFlow makes it of a pipeline step's
// JobTemplate, and that template: only Volcano's labels on the job, what
// submit recorded on the template.
func pipelineStep(template map[string]string) (*unstructured.Unstructured, *unstructured.Unstructured) {
	job := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	job.SetAPIVersion("batch.volcano.sh/v1alpha1")
	job.SetKind("Job")
	job.SetName("p-p-train")
	job.SetNamespace("team-a")
	job.SetLabels(map[string]string{"volcano.sh/createdByJobTemplate": "team-a.p-train", "volcano.sh/createdByJobFlow": "team-a.p"})
	tmpl := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	tmpl.SetAPIVersion("flow.volcano.sh/v1alpha1")
	tmpl.SetKind("JobTemplate")
	tmpl.SetName("p-train")
	tmpl.SetNamespace("team-a")
	tmpl.SetLabels(template)
	tmpl.SetAnnotations(map[string]string{"easyai.io/user": "alice", "easyai.io/job-dir": "p-p-train-x1y2z"})
	return job, tmpl
}

// TestJobsMadeFromTemplates: a pipeline step's job reads as submit recorded
// it on its template (get, list, list by experiment); a template easyai did
// not make lends nothing.
func TestJobsMadeFromTemplates(t *testing.T) {
	job, tmpl := pipelineStep(map[string]string{"app.kubernetes.io/managed-by": "easyai", "easyai.io/experiment": "p", "easyai.io/pipeline": "p"})
	c := client(job, tmpl)
	_, obj, err := c.Find(ctx, "team-a", kinds.Ref{Name: "p-p-train"})
	if err != nil {
		t.Fatal(err)
	}
	if obj.GetLabels()["easyai.io/experiment"] != "p" || obj.GetAnnotations()["easyai.io/job-dir"] != "p-p-train-x1y2z" || obj.GetLabels()["volcano.sh/createdByJobFlow"] != "team-a.p" {
		t.Errorf("get of a step's job: labels %v, annotations %v", obj.GetLabels(), obj.GetAnnotations())
	}
	for _, opts := range []jobclient.ListOptions{{Namespace: "team-a"}, {Namespace: "team-a", Experiment: "p"}, {Experiment: "p"}} {
		res, err := c.List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Jobs) != 1 || res.Jobs[0].Summary.Experiment != "p" || res.Jobs[0].Summary.User != "alice" {
			t.Errorf("list %+v: %+v", opts, res.Jobs)
		}
	}
	if res, _ := c.List(ctx, jobclient.ListOptions{Namespace: "team-a", Experiment: "other"}); len(res.Jobs) != 0 {
		t.Errorf("list of another experiment: %v", names(res.Jobs))
	}

	job, tmpl = pipelineStep(map[string]string{"easyai.io/experiment": "p"})
	_, obj, err = client(job, tmpl).Find(ctx, "team-a", kinds.Ref{Name: "p-p-train"})
	if err != nil || obj.GetLabels()["easyai.io/experiment"] != "" {
		t.Errorf("a template not easyai's lent its labels: %v, %v", obj, err)
	}
}
